package dev.kconnect.host;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.slf4j.ILoggerFactory;
import org.slf4j.Logger;

/**
 * SLF4J's logger factory in the host (bound by {@code org.slf4j.impl.StaticLoggerBinder}, which
 * slf4j-api 1.7 — the version on the host's class path, from Kafka's {@code connect-api} — looks
 * up; {@code org.slf4j} is shared with plugins, as on Kafka Connect, so a plugin's
 * {@code LoggerFactory.getLogger} lands here). One {@link HostLogger} per name, announced to the
 * worker when first made ({@link LogSink#newLogger}).
 *
 * <p>Thread-safe.
 */
public final class HostLoggerFactory implements ILoggerFactory {

    private static final HostLoggerFactory INSTANCE = new HostLoggerFactory();

    private final ConcurrentMap<String, HostLogger> loggers = new ConcurrentHashMap<>();

    private HostLoggerFactory() {
    }

    /** The factory {@code StaticLoggerBinder} hands to SLF4J. */
    public static ILoggerFactory instance() {
        return INSTANCE;
    }

    /** The host's own logger of {@code name} (what {@code LoggerFactory.getLogger} gives). */
    static HostLogger logger(String name) {
        return INSTANCE.get(name);
    }

    /** The names of every logger made so far. */
    static List<String> names() {
        return new ArrayList<>(INSTANCE.loggers.keySet());
    }

    @Override
    public Logger getLogger(String name) {
        return get(name);
    }

    private HostLogger get(String name) {
        HostLogger logger = loggers.get(name);
        if (logger != null) {
            return logger;
        }
        HostLogger made = new HostLogger(name);
        logger = loggers.putIfAbsent(name, made);
        if (logger != null) {
            return logger;
        }
        LogSink.newLogger(name);
        return made;
    }
}
