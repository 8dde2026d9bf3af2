package dev.kconnect.host;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.connect.errors.ConnectException;

/**
 * The messages the host starts towards the worker (protocol v2): <em>events</em>, which need no
 * answer ({@code {"event": name, "handle": h, ...}}), and <em>callbacks</em>, which block the
 * plugin's calling thread until the worker answers ({@code {"callback": n, "op": name,
 * "handle": h, ...}}, answered by {@code {"callback": n, "ok": ..., "result"|"error": ...}}).
 *
 * <p>Thread-safe: any plugin thread may send; frames are written whole by {@link FrameChannel}.
 * The host's reader thread hands each callback answer to {@link #answer(Map)}, which completes
 * the future the asking thread waits on — so the reader never blocks on a plugin, and a callback
 * made while a request on the same handle is pending (an {@code offsets} callback from a task's
 * {@code start()}) is answered while that request's pool thread waits.
 */
final class WorkerLink {

    /** How long a plugin thread waits for the worker's answer to a callback. */
    static final long CALLBACK_TIMEOUT_MS = 120_000;

    private final FrameChannel channel;
    private final AtomicLong nextCallback = new AtomicLong();
    private final Map<Long, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();

    WorkerLink(FrameChannel channel) {
        this.channel = channel;
    }

    /** Writes one reply, event or callback frame. */
    void send(Map<String, Object> message) throws IOException {
        channel.write(Json.write(message));
    }

    /** Sends an event; a worker that cannot be written to any more is only logged. */
    void event(String name, String handle, Map<String, Object> fields) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("event", name);
        message.put("handle", handle);
        message.putAll(fields);
        try {
            send(message);
        } catch (IOException e) {
            HostLog.error("Cannot send the event " + name + " of " + handle + " to the worker", e);
        }
    }

    /**
     * Asks the worker and waits for its answer's {@code result}.
     *
     * @throws ConnectException when the worker answers {@code ok:false} (with its message), does
     *     not answer within {@link #CALLBACK_TIMEOUT_MS}, cannot be written to, or the waiting
     *     thread is interrupted (its interrupt flag is kept)
     */
    Map<String, Object> call(String op, String handle, Map<String, Object> fields) {
        CompletableFuture<Map<String, Object>> answer = ask(op, handle, fields);
        try {
            return answer.get(CALLBACK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new ConnectException("The worker did not answer the " + op + " callback of " + handle
                    + " within " + CALLBACK_TIMEOUT_MS / 1000 + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while waiting for the worker's answer to the " + op
                    + " callback of " + handle, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ConnectException) {
                throw (ConnectException) cause;
            }
            throw new ConnectException("The " + op + " callback of " + handle + " failed", cause);
        } finally {
            answer.cancel(false); // forgets a callback nobody waits for any more (timeout, interrupt)
        }
    }

    /**
     * Asks the worker without waiting: the future completes with the answer's {@code result}, or
     * exceptionally with a {@link ConnectException} when the worker answers {@code ok:false} (with
     * its message), cannot be written to, or does not answer within {@link #CALLBACK_TIMEOUT_MS}.
     */
    CompletableFuture<Map<String, Object>> ask(String op, String handle, Map<String, Object> fields) {
        long id = nextCallback.incrementAndGet();
        CompletableFuture<Map<String, Object>> answer = new CompletableFuture<>();
        pending.put(id, answer);
        CompletableFuture<Map<String, Object>> result = answer
                .orTimeout(CALLBACK_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .handle((reply, failure) -> {
                    if (failure != null) {
                        if (failure instanceof TimeoutException) {
                            throw new ConnectException("The worker did not answer the " + op + " callback of "
                                    + handle + " within " + CALLBACK_TIMEOUT_MS / 1000 + " s");
                        }
                        throw failure instanceof ConnectException ? (ConnectException) failure
                                : new ConnectException("The " + op + " callback of " + handle + " failed", failure);
                    }
                    return resultOf(op, handle, reply);
                });
        result.whenComplete((ignored, failure) -> pending.remove(id));
        answer.whenComplete((ignored, failure) -> pending.remove(id));
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("callback", id);
        message.put("op", op);
        message.put("handle", handle);
        message.putAll(fields);
        try {
            send(message);
        } catch (IOException e) {
            answer.completeExceptionally(
                    new ConnectException("Cannot ask the worker (" + op + " of " + handle + "): " + e, e));
        }
        return result;
    }

    private static Map<String, Object> resultOf(String op, String handle, Map<String, Object> reply) {
        if (Boolean.TRUE.equals(reply.get("ok"))) {
            Object result = reply.get("result");
            if (!(result instanceof Map)) {
                throw new ConnectException("The worker's answer to the " + op + " callback of " + handle
                        + " has no result object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> map = (Map<String, Object>) result;
            return map;
        }
        Object error = reply.get("error");
        Object why = error instanceof Map ? ((Map<?, ?>) error).get("message") : null;
        throw new ConnectException(why == null
                ? "The worker failed the " + op + " callback of " + handle
                : String.valueOf(why));
    }

    /** The reader thread's delivery of a worker's {@code {"callback": n, ...}} answer. */
    void answer(Map<String, Object> reply) {
        Object id = reply.get("callback");
        CompletableFuture<Map<String, Object>> waiting = id instanceof Long ? pending.get(id) : null;
        if (waiting == null) {
            HostLog.warn("An answer to callback " + id + ", which nobody waits for (any more): ignored");
            return;
        }
        waiting.complete(reply);
    }
}
