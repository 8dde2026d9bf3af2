package dev.kconnect.host;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import org.slf4j.spi.MDCAdapter;

/**
 * SLF4J's MDC in the host (bound by {@code org.slf4j.impl.StaticMDCBinder}): one map per thread,
 * <em>not</em> inherited by threads a plugin starts (a plain {@link ThreadLocal}, where SLF4J's
 * {@code BasicMDCAdapter} inherits), so a plugin's own threads carry only what the plugin puts
 * there, as on Kafka Connect's log4j.
 *
 * <p>The host puts Kafka's {@code connector.context} ({@code "[name|task-0] "}, see Kafka's
 * {@code LoggingContext}) around every op that the worker sent with a {@code log_context}
 * ({@link #beginOp}), and clears the pool thread's map after the op ({@link #endOp}): whatever a
 * plugin put there during a call (Debezium's {@code dbz.*} keys) is written with the events of
 * that call and does not leak into the next op served by the same pool thread.
 *
 * <p>Thread-safe: each thread sees its own map; maps are replaced on change, never mutated, so
 * an event takes a consistent snapshot by reading one reference.
 */
public final class HostMdc implements MDCAdapter {

    /** Kafka's MDC key for the connector/task context of a log line. */
    static final String CONNECTOR_CONTEXT = "connector.context";

    private static final HostMdc INSTANCE = new HostMdc();

    private final ThreadLocal<Map<String, String>> maps = new ThreadLocal<>();

    private HostMdc() {
    }

    /** The adapter {@code StaticMDCBinder} hands to SLF4J. */
    public static MDCAdapter adapter() {
        return INSTANCE;
    }

    /** The calling thread's MDC as it is now (an unmodifiable map, empty when none). */
    static Map<String, String> snapshot() {
        Map<String, String> map = INSTANCE.maps.get();
        return map == null ? Collections.emptyMap() : map;
    }

    /** Before an op on a pool thread: an MDC holding only the op's connector context, if any. */
    static void beginOp(String connectorContext) {
        if (connectorContext == null || connectorContext.isEmpty()) {
            INSTANCE.maps.remove();
        } else {
            INSTANCE.maps.set(Collections.singletonMap(CONNECTOR_CONTEXT, connectorContext));
        }
    }

    /** After an op: nothing stays in the pool thread's MDC. */
    static void endOp() {
        INSTANCE.maps.remove();
    }

    @Override
    public void put(String key, String val) {
        if (key == null) {
            throw new IllegalArgumentException("key cannot be null");
        }
        Map<String, String> copy = new HashMap<>(snapshot());
        copy.put(key, val);
        maps.set(Collections.unmodifiableMap(copy));
    }

    @Override
    public String get(String key) {
        return key == null ? null : snapshot().get(key);
    }

    @Override
    public void remove(String key) {
        Map<String, String> current = snapshot();
        if (current.containsKey(key)) {
            Map<String, String> copy = new HashMap<>(current);
            copy.remove(key);
            maps.set(Collections.unmodifiableMap(copy));
        }
    }

    @Override
    public void clear() {
        maps.remove();
    }

    @Override
    public Map<String, String> getCopyOfContextMap() {
        Map<String, String> map = maps.get();
        return map == null ? null : new HashMap<>(map);
    }

    @Override
    public void setContextMap(Map<String, String> contextMap) {
        maps.set(Collections.unmodifiableMap(new HashMap<>(contextMap)));
    }
}
