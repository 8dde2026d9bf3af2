package dev.kconnect.host;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.spi.LocationAwareLogger;

/**
 * The log levels of the host's loggers, as the worker's {@code /admin/loggers} sets them
 * (protocol v6's {@code set_log_level}, and {@code --log-levels} at start).
 *
 * <p>A logger's effective level is the one configured for its own name or else for its nearest
 * dotted ancestor ({@code a.b.c}, {@code a.b}, {@code a}), else the root's, which is INFO — the
 * hierarchy of log4j and the root of Kafka Connect's default log configuration. Setting a
 * namespace follows Kafka's {@code Loggers.setLevel} (and kconnect's Python twin): the namespace
 * and every existing or configured logger whose name starts with it get the level; for
 * {@code root}, every logger does.
 *
 * <p>Thread-safe. Reading is cheap: every change bumps a generation, and each
 * {@link HostLogger} caches its threshold with the generation it was computed at, so
 * {@code isDebugEnabled()} is one volatile read and a comparison until the levels change.
 */
final class LogLevels {

    static final String ROOT = "root";

    /** Below every level, and above: ALL and OFF. FATAL is above ERROR (SLF4J has no fatal). */
    static final int ALL = Integer.MIN_VALUE;
    static final int TRACE = LocationAwareLogger.TRACE_INT;
    static final int DEBUG = LocationAwareLogger.DEBUG_INT;
    static final int INFO = LocationAwareLogger.INFO_INT;
    static final int WARN = LocationAwareLogger.WARN_INT;
    static final int ERROR = LocationAwareLogger.ERROR_INT;
    static final int FATAL = ERROR + 10;
    static final int OFF = Integer.MAX_VALUE;

    private static final Map<String, Integer> configured = new ConcurrentHashMap<>();
    private static volatile int rootLevel = INFO;
    private static volatile int generation;
    private static final Object changeLock = new Object();

    private LogLevels() {
    }

    /** The level of a Kafka/log4j level name (case-insensitive). */
    static int parse(String name) {
        switch (name.trim().toUpperCase(Locale.ROOT)) {
            case "ALL":
                return ALL;
            case "TRACE":
                return TRACE;
            case "DEBUG":
                return DEBUG;
            case "INFO":
                return INFO;
            case "WARN":
                return WARN;
            case "ERROR":
                return ERROR;
            case "FATAL":
                return FATAL;
            case "OFF":
                return OFF;
            default:
                throw new IllegalArgumentException("Invalid log level: " + name);
        }
    }

    /** The name an event of {@code level} (one of SLF4J's five) is written with. */
    static String eventName(int level) {
        if (level <= TRACE) {
            return "TRACE";
        }
        if (level <= DEBUG) {
            return "DEBUG";
        }
        if (level <= INFO) {
            return "INFO";
        }
        return level <= WARN ? "WARN" : "ERROR";
    }

    static int generation() {
        return generation;
    }

    /** The effective level of a logger name (its own, else its nearest configured ancestor's). */
    static int effective(String name) {
        if (ROOT.equals(name)) {
            return rootLevel;
        }
        String current = name;
        while (true) {
            Integer level = configured.get(current);
            if (level != null) {
                return level;
            }
            int dot = current.lastIndexOf('.');
            if (dot < 0) {
                return rootLevel;
            }
            current = current.substring(0, dot);
        }
    }

    /**
     * Configures levels as they are (no cascading to children): what a new host starts with,
     * the levels the worker's loggers have at that moment. {@code root} sets the root level.
     */
    static void configure(Map<String, Integer> levels) {
        synchronized (changeLock) {
            for (Map.Entry<String, Integer> entry : levels.entrySet()) {
                put(entry.getKey(), entry.getValue());
            }
            generation++;
        }
    }

    /**
     * Sets {@code namespace} and every logger under it (see the class comment) to {@code level};
     * returns the names whose effective level changed, sorted. {@code existing} are the
     * loggers created so far.
     */
    static List<String> set(String namespace, int level, Collection<String> existing) {
        synchronized (changeLock) {
            Set<String> targets = new LinkedHashSet<>();
            boolean root = ROOT.equalsIgnoreCase(namespace);
            for (String name : existing) {
                if (root || name.startsWith(namespace)) {
                    targets.add(name);
                }
            }
            for (String name : configured.keySet()) {
                if (root || name.startsWith(namespace)) {
                    targets.add(name);
                }
            }
            targets.add(root ? ROOT : namespace);
            // levels before any change: setting a parent first must not hide its children
            List<String> changed = new ArrayList<>();
            for (String name : targets) {
                if (effective(name) != level) {
                    changed.add(name);
                }
            }
            for (String name : changed) {
                put(name, level);
            }
            generation++;
            Collections.sort(changed);
            return changed;
        }
    }

    private static void put(String name, int level) {
        if (ROOT.equalsIgnoreCase(name)) {
            rootLevel = level;
        } else {
            configured.put(name, level);
        }
    }
}
