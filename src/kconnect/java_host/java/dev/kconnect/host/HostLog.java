package dev.kconnect.host;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;

/**
 * The host's own log lines, written to its standard error, which the worker reads line by line
 * (plugins log through SLF4J, which has no provider here yet and stays silent).
 *
 * <p>Thread-safe: each entry is written with one {@code println} on a {@link PrintStream}, which
 * locks around it.
 */
final class HostLog {

    private static volatile PrintStream err = System.err;

    private HostLog() {
    }

    /** Fixes the stream to log to (the real standard error, before any plugin can swap it). */
    static void useStream(PrintStream stream) {
        err = stream;
    }

    static void info(String message) {
        write("INFO", message, null);
    }

    static void warn(String message) {
        write("WARN", message, null);
    }

    static void error(String message, Throwable t) {
        write("ERROR", message, t);
    }

    /** The stack trace of a throwable as text, causes and suppressed exceptions included. */
    static String trace(Throwable t) {
        StringWriter text = new StringWriter();
        try (PrintWriter writer = new PrintWriter(text)) {
            t.printStackTrace(writer);
        }
        return text.toString();
    }

    private static void write(String level, String message, Throwable t) {
        String line = Instant.now() + " " + level + " [plugin-host] " + message;
        err.println(t == null ? line : line + System.lineSeparator() + trace(t).stripTrailing());
    }
}
