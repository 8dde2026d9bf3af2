package dev.kconnect.host;

import org.slf4j.Marker;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.MarkerIgnoringBase;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LocationAwareLogger;

/**
 * An SLF4J logger of the host: an event that its level lets through becomes one line on the
 * host's standard error ({@link LogSink}) with its level, logger name, thread, the thread's MDC
 * ({@link HostMdc}), the formatted message and the throwable's trace. Markers are ignored, as
 * Kafka Connect's log configuration ignores them.
 *
 * <p>Thread-safe. The threshold is cached with the {@link LogLevels#generation() generation} of
 * the levels it was computed from, packed in one volatile long, so the {@code is*Enabled} checks
 * cost one volatile read until an {@code /admin/loggers} change.
 */
final class HostLogger extends MarkerIgnoringBase implements LocationAwareLogger {

    private static final long serialVersionUID = 1L;

    /** {@code generation << 32 | threshold}; generation -1 = not computed yet. */
    private transient volatile long cached = -1L << 32;

    HostLogger(String name) {
        this.name = name;
    }

    private int threshold() {
        long packed = cached;
        int generation = LogLevels.generation();
        if ((int) (packed >>> 32) == generation) {
            return (int) packed;
        }
        int level = LogLevels.effective(name);
        cached = ((long) generation << 32) | (level & 0xffffffffL);
        return level;
    }

    boolean enabled(int level) {
        return level >= threshold();
    }

    // ------------------------------------------------------------------ writing

    private void emit(int level, String message, Throwable thrown) {
        LogSink.event(LogLevels.eventName(level), name, Thread.currentThread().getName(),
                HostMdc.snapshot(), message, thrown);
    }

    private void format(int level, String pattern, Object arg) {
        if (enabled(level)) {
            FormattingTuple tuple = MessageFormatter.format(pattern, arg);
            emit(level, tuple.getMessage(), tuple.getThrowable());
        }
    }

    private void format(int level, String pattern, Object arg1, Object arg2) {
        if (enabled(level)) {
            FormattingTuple tuple = MessageFormatter.format(pattern, arg1, arg2);
            emit(level, tuple.getMessage(), tuple.getThrowable());
        }
    }

    private void formatArray(int level, String pattern, Object[] args) {
        if (enabled(level)) {
            FormattingTuple tuple = MessageFormatter.arrayFormat(pattern, args);
            emit(level, tuple.getMessage(), tuple.getThrowable());
        }
    }

    private void plain(int level, String message, Throwable thrown) {
        if (enabled(level)) {
            emit(level, message, thrown);
        }
    }

    @Override
    public void log(Marker marker, String fqcn, int level, String message, Object[] args, Throwable t) {
        if (!enabled(level)) {
            return;
        }
        if (args == null || args.length == 0) {
            emit(level, message, t);
            return;
        }
        FormattingTuple tuple = MessageFormatter.arrayFormat(message, args, t);
        emit(level, tuple.getMessage(), t != null ? t : tuple.getThrowable());
    }

    // ------------------------------------------------------------------ SLF4J's Logger

    @Override
    public boolean isTraceEnabled() {
        return enabled(TRACE_INT);
    }

    @Override
    public void trace(String msg) {
        plain(TRACE_INT, msg, null);
    }

    @Override
    public void trace(String format, Object arg) {
        format(TRACE_INT, format, arg);
    }

    @Override
    public void trace(String format, Object arg1, Object arg2) {
        format(TRACE_INT, format, arg1, arg2);
    }

    @Override
    public void trace(String format, Object... arguments) {
        formatArray(TRACE_INT, format, arguments);
    }

    @Override
    public void trace(String msg, Throwable t) {
        plain(TRACE_INT, msg, t);
    }

    @Override
    public boolean isDebugEnabled() {
        return enabled(DEBUG_INT);
    }

    @Override
    public void debug(String msg) {
        plain(DEBUG_INT, msg, null);
    }

    @Override
    public void debug(String format, Object arg) {
        format(DEBUG_INT, format, arg);
    }

    @Override
    public void debug(String format, Object arg1, Object arg2) {
        format(DEBUG_INT, format, arg1, arg2);
    }

    @Override
    public void debug(String format, Object... arguments) {
        formatArray(DEBUG_INT, format, arguments);
    }

    @Override
    public void debug(String msg, Throwable t) {
        plain(DEBUG_INT, msg, t);
    }

    @Override
    public boolean isInfoEnabled() {
        return enabled(INFO_INT);
    }

    @Override
    public void info(String msg) {
        plain(INFO_INT, msg, null);
    }

    @Override
    public void info(String format, Object arg) {
        format(INFO_INT, format, arg);
    }

    @Override
    public void info(String format, Object arg1, Object arg2) {
        format(INFO_INT, format, arg1, arg2);
    }

    @Override
    public void info(String format, Object... arguments) {
        formatArray(INFO_INT, format, arguments);
    }

    @Override
    public void info(String msg, Throwable t) {
        plain(INFO_INT, msg, t);
    }

    @Override
    public boolean isWarnEnabled() {
        return enabled(WARN_INT);
    }

    @Override
    public void warn(String msg) {
        plain(WARN_INT, msg, null);
    }

    @Override
    public void warn(String format, Object arg) {
        format(WARN_INT, format, arg);
    }

    @Override
    public void warn(String format, Object arg1, Object arg2) {
        format(WARN_INT, format, arg1, arg2);
    }

    @Override
    public void warn(String format, Object... arguments) {
        formatArray(WARN_INT, format, arguments);
    }

    @Override
    public void warn(String msg, Throwable t) {
        plain(WARN_INT, msg, t);
    }

    @Override
    public boolean isErrorEnabled() {
        return enabled(ERROR_INT);
    }

    @Override
    public void error(String msg) {
        plain(ERROR_INT, msg, null);
    }

    @Override
    public void error(String format, Object arg) {
        format(ERROR_INT, format, arg);
    }

    @Override
    public void error(String format, Object arg1, Object arg2) {
        format(ERROR_INT, format, arg1, arg2);
    }

    @Override
    public void error(String format, Object... arguments) {
        formatArray(ERROR_INT, format, arguments);
    }

    @Override
    public void error(String msg, Throwable t) {
        plain(ERROR_INT, msg, t);
    }
}
