package dev.kconnect.host;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kconnect Java plugin host: a JVM child of a Python worker that loads Kafka Connect plugins
 * from {@code plugin.path} and runs them on the worker's behalf (protocols v1 to v4: see
 * {@code PROTOCOL.md} beside these sources).
 *
 * <p>Requests arrive as frames on standard input and replies leave as frames on standard output
 * ({@link FrameChannel}); standard error carries log lines ({@link LogSink}: SLF4J events of the
 * plugins and the host as structured lines, anything else as it is). The real standard output is
 * kept for frames only: {@code System.out} is pointed at standard error, so a plugin's stray
 * {@code println} cannot corrupt the stream, and {@code System.in} is emptied.
 *
 * <p>Threading: the main thread reads frames and parses them. A worker's answer to one of the
 * host's callbacks ({@code {"callback": n, ...}}, protocol v2) goes straight to the plugin thread
 * waiting for it ({@link WorkerLink}); a request goes to a pool thread, which runs the op
 * ({@link Ops}) and writes the reply — so replies may come out of order, a slow plugin call holds
 * up nothing else, and a {@code source_task_stop} runs while the same task's {@code poll()}
 * blocks; the op runs with the request's {@code log_context} as SLF4J's {@code connector.context}
 * ({@link HostMdc}). A {@code set_log_level} is served on the main thread, so levels change in
 * the order the worker sent them. Writes (replies, events, callbacks) are serialised by {@link FrameChannel}. When standard input ends (the worker exited or was killed)
 * the main thread exits the JVM at once with status 0, so no JVM outlives its worker; a
 * {@code shutdown} request does the same after its reply. A watchdog halts the JVM if a plugin's
 * shutdown hook holds up the exit for more than a few seconds.
 */
public final class PluginHost {

    private static final long EXIT_GRACE_MS = 3000;

    private final FrameChannel channel;
    private final WorkerLink link;
    private final Ops ops;
    private final ExecutorService pool;

    PluginHost(FrameChannel channel, WorkerLink link, Ops ops) {
        this.channel = channel;
        this.link = link;
        this.ops = ops;
        AtomicInteger count = new AtomicInteger();
        this.pool = Executors.newCachedThreadPool(task -> {
            Thread t = new Thread(task, "plugin-host-op-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts the host. {@code --log-levels <JSON object of logger name to level name>} gives
     * the levels the worker's loggers have (protocol v6), applied before anything logs.
     */
    public static void main(String[] args) {
        FileOutputStream stdout = new FileOutputStream(FileDescriptor.out);
        FileInputStream stdin = new FileInputStream(FileDescriptor.in);
        LogSink.install();
        System.setIn(new ByteArrayInputStream(new byte[0]));
        configureLogLevels(args);

        FrameChannel channel = new FrameChannel(
                new BufferedInputStream(stdin, 1 << 16), new BufferedOutputStream(stdout, 1 << 16));
        WorkerLink link = new WorkerLink(channel);
        new PluginHost(channel, link, new Ops(PluginHost.class.getClassLoader(), link)).run();
    }

    /** Serves requests until standard input ends, then exits the JVM. */
    void run() {
        HostLog.info("Plugin host started (protocol " + Ops.PROTOCOL_VERSION + ", Java "
                + System.getProperty("java.version") + ")");
        while (true) {
            String request;
            try {
                request = channel.read();
            } catch (IOException e) {
                HostLog.error("Cannot read requests any more; exiting", e);
                exit(1);
                return;
            }
            if (request == null) {
                HostLog.info("Standard input closed: the worker is gone; exiting");
                exit(0);
                return;
            }
            Object parsed;
            RuntimeException malformed = null;
            try {
                parsed = Json.parse(request);
            } catch (RuntimeException e) {
                parsed = null;
                malformed = e;
            }
            if (parsed instanceof Map && ((Map<?, ?>) parsed).containsKey("callback")
                    && !((Map<?, ?>) parsed).containsKey("op")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> answer = (Map<String, Object>) parsed;
                link.answer(answer);
                continue;
            }
            Object frame = parsed;
            RuntimeException error = malformed;
            if (parsed instanceof Map && Ops.SET_LOG_LEVEL.equals(((Map<?, ?>) parsed).get("op"))) {
                serve(frame, error); // in order of arrival: the last level set is the one that holds
            } else {
                pool.execute(() -> serve(frame, error));
            }
        }
    }

    /** Runs one request (or reports why it is none) on a pool thread and writes its reply. */
    private void serve(Object parsed, RuntimeException malformed) {
        Object id = null;
        Map<String, Object> reply;
        boolean shutdown = false;
        try {
            if (malformed != null) {
                throw malformed;
            }
            if (!(parsed instanceof Map)) {
                throw new IllegalArgumentException("A request must be a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> request = (Map<String, Object>) parsed;
            id = request.get("id");
            Object op = request.get("op");
            if (op != null && !(op instanceof String)) {
                throw new IllegalArgumentException("Request field 'op' must be a string");
            }
            Map<String, Object> result;
            if ("shutdown".equals(op)) {
                result = new LinkedHashMap<>();
                shutdown = true;
            } else {
                Object logContext = request.get("log_context");
                HostMdc.beginOp(logContext instanceof String ? (String) logContext : null);
                try {
                    result = ops.handle((String) op, request);
                } finally {
                    HostMdc.endOp();
                }
            }
            reply = success(id, result);
        } catch (Throwable t) {
            reply = failure(id, t);
        }
        String json;
        List<byte[]> attachments = new ArrayList<>();
        try {
            json = Json.write(reply, attachments);
        } catch (Throwable t) {
            attachments.clear();
            json = Json.write(failure(id, t)); // a result Json could not write
        }
        try {
            channel.write(json, attachments);
        } catch (IOException e) {
            HostLog.error("Cannot write replies any more: the worker is gone; exiting", e);
            exit(0);
        }
        if (shutdown) {
            HostLog.info("Shutdown requested; exiting");
            exit(0);
        }
    }

    private static Map<String, Object> success(Object id, Map<String, Object> result) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("id", id);
        reply.put("ok", true);
        reply.put("result", result);
        return reply;
    }

    private static Map<String, Object> failure(Object id, Throwable t) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("id", id);
        reply.put("ok", false);
        reply.put("error", error(t));
        return reply;
    }

    /**
     * The protocol's error object of a Throwable: {@code class}, {@code message}, {@code trace},
     * {@code retriable} (a failed reply's, and since v4 a record's in a {@code transform} answer).
     */
    static Map<String, Object> error(Throwable t) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("class", t.getClass().getName());
        error.put("message", safeMessage(t));
        String trace;
        try {
            trace = HostLog.trace(t);
        } catch (Throwable broken) {
            trace = t.getClass().getName() + " (its stack trace could not be printed: " + broken + ")";
        }
        error.put("trace", trace);
        // Kafka retries a RetriableException (a source task's poll, a sink task's put, a transformation)
        error.put("retriable", t instanceof org.apache.kafka.connect.errors.RetriableException);
        return error;
    }

    private static String safeMessage(Throwable t) {
        try {
            return t.getMessage();
        } catch (Throwable broken) {
            return "(getMessage() threw " + broken.getClass().getName() + ")";
        }
    }

    private static void configureLogLevels(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if ("--log-levels".equals(args[i]) && i + 1 < args.length) {
                try {
                    LogLevels.configure(Ops.levels(Json.parse(args[i + 1])));
                } catch (RuntimeException e) {
                    HostLog.error("Ignoring the log levels given at start: " + args[i + 1], e);
                }
            }
        }
    }

    /** Exits the JVM; halts it if shutdown hooks have not let it go within the grace time. */
    static void exit(int status) {
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(EXIT_GRACE_MS);
            } catch (InterruptedException ignored) {
                // halt anyway
            }
            Runtime.getRuntime().halt(status);
        }, "plugin-host-exit-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        System.exit(status);
    }
}
