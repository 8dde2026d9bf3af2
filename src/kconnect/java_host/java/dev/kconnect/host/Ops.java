package dev.kconnect.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.connect.components.Versioned;

/**
 * The protocol's operations on plugins: {@code hello}, {@code scan}, {@code version}, (via
 * {@link ConfigOps}) {@code config_def} and {@code validate}, (via {@link RunOps}, protocols
 * v2, v3 and v5) the running connectors, tasks, transformations and predicates, by handle,
 * (via {@link MetricsOps}, v4) {@code metrics} and (protocol v6) {@code set_log_level}.
 * ({@code shutdown} is the host's
 * own, see {@link PluginHost}.) Each op takes the request object and returns the reply's
 * {@code result}; a failure is thrown and becomes an {@code ok:false} reply.
 *
 * <p>Thread-safe: ops run concurrently on the host's pool. Scans are serialised; each builds a
 * fresh {@link PluginRegistry} (with fresh class loaders) and publishes it atomically, so an op
 * sees either the previous scan's plugins or the new one's, never a mix.
 */
final class Ops {

    /** The protocol version this host speaks. */
    static final String PROTOCOL_VERSION = "1";
    /** The v4 op that changes log levels (served in order by {@link PluginHost}). */
    static final String SET_LOG_LEVEL = "set_log_level";

    private final ClassLoader hostLoader;
    private final Object scanLock = new Object();
    private volatile PluginRegistry registry = PluginRegistry.EMPTY;
    private final ConfigOps configOps = new ConfigOps(this::registry);
    private final RunOps runOps;
    private final MetricsOps metricsOps;

    Ops(ClassLoader hostLoader, WorkerLink link) {
        this.hostLoader = hostLoader;
        this.runOps = new RunOps(this::registry, link);
        // listens to MBean registrations from now on, before any plugin runs
        this.metricsOps = new MetricsOps(runOps::metricTags);
    }

    PluginRegistry registry() {
        return registry;
    }

    /**
     * Runs one op.
     *
     * @throws IllegalArgumentException for an unknown op or plugin class, or a malformed request
     * @throws Throwable whatever the plugin's code threw
     */
    Map<String, Object> handle(String op, Map<String, Object> request) throws Throwable {
        if (op == null) {
            throw new IllegalArgumentException("Request has no 'op'");
        }
        switch (op) {
            case "hello":
                return hello();
            case "scan":
                return scan(request);
            case "config_def":
                return configOps.configDef(requiredString(request, "class"));
            case "validate":
                return configOps.validate(requiredString(request, "class"), stringMap(request.get("config")));
            case "version":
                return version(requiredString(request, "class"));
            case "metrics":
                return metricsOps.snapshot();
            case SET_LOG_LEVEL:
                return setLogLevel(requiredString(request, "logger"), requiredString(request, "level"));
            default:
                if (RunOps.OPS.contains(op)) {
                    return runOps.handle(op, request);
                }
                throw new IllegalArgumentException("Unknown op: " + op);
        }
    }

    private Map<String, Object> hello() {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("host_version", PROTOCOL_VERSION);
        result.put("java_version", System.getProperty("java.version"));
        result.put("kafka_version", AppInfoParser.getVersion());
        return result;
    }

    private Map<String, Object> scan(Map<String, Object> request) {
        Object raw = request.get("plugin_path");
        List<String> pluginPath = new ArrayList<>();
        if (raw instanceof List) {
            for (Object entry : (List<?>) raw) {
                if (!(entry instanceof String)) {
                    throw new IllegalArgumentException("'plugin_path' must be a list of strings");
                }
                pluginPath.add((String) entry);
            }
        } else if (raw != null) {
            throw new IllegalArgumentException("'plugin_path' must be a list of strings");
        }
        PluginRegistry scanned;
        synchronized (scanLock) {
            DelegatingLoader parent = new DelegatingLoader(hostLoader);
            scanned = PluginRegistry.of(new PluginScanner(parent).scan(pluginPath));
            parent.install(scanned.chosenLoaders());
            registry = scanned;
        }
        List<Object> plugins = new ArrayList<>();
        for (PluginDescriptor d : scanned.plugins()) {
            plugins.add(d.toJson());
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("plugins", plugins);
        result.put("errors", scanned.errors());
        return result;
    }

    private Map<String, Object> version(String className) throws Throwable {
        PluginRegistry current = registry;
        Object plugin = current.newInstance(className);
        String version = PluginDescriptor.UNDEFINED_VERSION;
        if (plugin instanceof Versioned) {
            try (LoaderSwap swap = LoaderSwap.to(current.plugin(className).loader)) {
                version = ((Versioned) plugin).version();
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("version", version);
        return result;
    }

    /** Kafka's {@code PUT /admin/loggers/{logger}} in the host: the loggers whose level changed. */
    private static Map<String, Object> setLogLevel(String logger, String level) {
        List<String> changed = LogLevels.set(logger, LogLevels.parse(level), HostLoggerFactory.names());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("loggers", changed);
        return result;
    }

    /** A JSON object of logger name to level name as levels ({@code --log-levels}). */
    static Map<String, Integer> levels(Object json) {
        if (!(json instanceof Map)) {
            throw new IllegalArgumentException("The log levels must be a JSON object");
        }
        Map<String, Integer> levels = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) json).entrySet()) {
            levels.put(String.valueOf(e.getKey()), LogLevels.parse(String.valueOf(e.getValue())));
        }
        return levels;
    }

    static String requiredString(Map<String, Object> request, String field) {
        Object value = request.get(field);
        if (!(value instanceof String)) {
            throw new IllegalArgumentException("Request field '" + field + "' must be a string");
        }
        return (String) value;
    }

    /** A JSON object of strings as a connector config; JSON null stays null, numbers become text. */
    private static Map<String, String> stringMap(Object raw) {
        return stringMap(raw, "config");
    }

    /** {@link #stringMap(Object)} of the request field {@code field}, named in its errors. */
    static Map<String, String> stringMap(Object raw, String field) {
        if (raw == null) {
            return new LinkedHashMap<>();
        }
        if (!(raw instanceof Map)) {
            throw new IllegalArgumentException("'" + field + "' must be an object of strings");
        }
        Map<String, String> config = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) raw).entrySet()) {
            Object v = e.getValue();
            if (v instanceof Map || v instanceof List) {
                throw new IllegalArgumentException("'" + field + "' value of '" + e.getKey() + "' must be a string");
            }
            config.put(String.valueOf(e.getKey()), v == null ? null : String.valueOf(v));
        }
        return config;
    }
}
