package dev.kconnect.host;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The host's own log events, under the logger {@code dev.kconnect.host}: written as the plugins'
 * are ({@link HostLogger}, {@link LogSink}), so they reach the worker's log with their level,
 * and the connector context of the op that logs them.
 *
 * <p>Thread-safe.
 */
final class HostLog {

    private static final HostLogger LOG = HostLoggerFactory.logger("dev.kconnect.host");

    private HostLog() {
    }

    static void info(String message) {
        LOG.info(message);
    }

    static void warn(String message) {
        LOG.warn(message);
    }

    static void error(String message, Throwable t) {
        LOG.error(message, t);
    }

    /** The stack trace of a throwable as text, causes and suppressed exceptions included. */
    static String trace(Throwable t) {
        StringWriter text = new StringWriter();
        try (PrintWriter writer = new PrintWriter(text)) {
            t.printStackTrace(writer);
        }
        return text.toString();
    }
}
