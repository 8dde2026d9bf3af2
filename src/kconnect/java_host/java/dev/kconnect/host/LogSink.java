package dev.kconnect.host;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The host's standard error, which the worker reads line by line (protocol v6): log events as
 * one line each, {@code @kclog } followed by a JSON object (newlines in messages and traces are
 * JSON escapes, so an event never spans lines), and anything else a plugin or the JVM writes
 * there as plain lines.
 *
 * <pre>
 * @kclog {"ts":1712345678901,"level":"INFO","logger":"a.b.C","thread":"t","mdc":{...},"message":"...","trace":"..."}
 * @kclog {"new_logger":"a.b.C"}
 * </pre>
 *
 * {@code mdc} and {@code trace} are left out when empty. {@code new_logger} announces a logger
 * the first time a plugin asks for it, so the worker knows the host's loggers as Kafka's
 * {@code /admin/loggers} knows log4j's.
 *
 * <p>{@link #install()} points {@code System.out} (kept free for the frames) and
 * {@code System.err} at streams that hand over whole lines only, so a plugin's
 * {@code printStackTrace()} or {@code println} never splits an event line. Thread-safe: every
 * line is written under one lock.
 */
final class LogSink {

    /** What starts an event line; the rest of the line is a JSON object. */
    static final String PREFIX = "@kclog ";
    /** A partial line longer than this is written out without waiting for its end. */
    private static final int MAX_PARTIAL = 64 * 1024;

    private static final Object lock = new Object();
    private static final OutputStream err = new FileOutputStream(FileDescriptor.err);

    private LogSink() {
    }

    /** Makes {@code System.out} and {@code System.err} plain-line streams into this sink. */
    static void install() {
        LineStream stream = new LineStream();
        PrintStream lines = new PrintStream(stream, true, StandardCharsets.UTF_8);
        System.setOut(lines);
        System.setErr(lines);
        // a last line without its end (a plugin's print() before the JVM exits) is not lost
        Runtime.getRuntime().addShutdownHook(new Thread(stream::drain, "plugin-host-log-flush"));
    }

    /** Writes one event line. */
    static void event(String level, String logger, String thread, Map<String, String> mdc,
            String message, Throwable thrown) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("ts", System.currentTimeMillis());
        event.put("level", level);
        event.put("logger", logger);
        event.put("thread", thread);
        if (!mdc.isEmpty()) {
            event.put("mdc", mdc);
        }
        event.put("message", message);
        if (thrown != null) {
            String trace;
            try {
                trace = HostLog.trace(thrown);
            } catch (Throwable broken) {
                trace = thrown.getClass().getName() + " (its stack trace could not be printed: " + broken + ")";
            }
            event.put("trace", trace.stripTrailing());
        }
        line(PREFIX + Json.write(event));
    }

    /** Announces a logger created in the host. */
    static void newLogger(String name) {
        Map<String, Object> notice = new LinkedHashMap<>();
        notice.put("new_logger", name);
        line(PREFIX + Json.write(notice));
    }

    private static void line(String text) {
        write((text + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void write(byte[] bytes) {
        synchronized (lock) {
            try {
                err.write(bytes);
                err.flush();
            } catch (IOException ignored) {
                // the worker closed our standard error: nowhere left to log to
            }
        }
    }

    /** Collects bytes and passes on whole lines (see {@link #install()}). */
    private static final class LineStream extends OutputStream {

        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            partial.write(b);
            if (b == '\n' || partial.size() >= MAX_PARTIAL) {
                drain();
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int start = off;
            int end = off + len;
            for (int i = off; i < end; i++) {
                if (b[i] == '\n') {
                    partial.write(b, start, i + 1 - start);
                    drain();
                    start = i + 1;
                }
            }
            partial.write(b, start, end - start);
            if (partial.size() >= MAX_PARTIAL) {
                drain();
            }
        }

        synchronized void drain() {
            if (partial.size() == 0) {
                return;
            }
            byte[] bytes = partial.toByteArray();
            partial.reset();
            LogSink.write(bytes);
        }
    }
}
