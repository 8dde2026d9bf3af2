package dev.kconnect.host;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.sink.SinkTask;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * The ops of protocol v2 on running instances, by the worker's {@code handle}: connectors
 * ({@code connector_start}, {@code connector_task_class}, {@code connector_task_configs},
 * {@code connector_stop}), source tasks ({@code source_task_start}, {@code source_task_poll},
 * {@code source_task_commit_record}, {@code source_task_commit}, {@code source_task_stop}), sink
 * tasks (v3: {@code sink_task_start}, {@code sink_task_open}, {@code sink_task_put},
 * {@code sink_task_pre_commit}, {@code sink_task_close}, {@code sink_task_stop}), transformations and
 * predicates (v5: {@code transformation_start}, {@code predicate_start}, and the record ops of
 * {@link StageRuns}: {@code transform}, {@code predicate_test}), converters and header converters
 * (v7: {@code converter_start}, {@code header_converter_start}, and the batch ops of
 * {@link ConverterRuns}: {@code from_connect}, {@code to_connect}) and {@code close}.
 *
 * <p>A start op registers its handle only when it succeeds: after a failed start (the class is
 * unknown, the constructor, {@code initialize}, {@code start} or a transformation's or
 * predicate's {@code configure} threw) the handle is not kept, and the worker neither stops nor
 * closes it (Kafka does not stop a task whose start failed).
 * An op on an unknown handle fails with {@link IllegalArgumentException}.
 *
 * <p>Every op on a handle runs as that handle's {@link MBeanOwners#enter scope}, so the MBeans
 * its plugin registers are known to be its own (protocol v4); a start op's {@code metric_tags}
 * become the tags of the instance's {@code pluginMetrics()}.
 *
 * <p>Thread-safe: handles live in a concurrent map; ops on one handle may run at once.
 */
final class RunOps {

    static final Set<String> OPS = Set.of(
            "connector_start", "connector_task_class", "connector_task_configs", "connector_stop",
            "source_task_start", "source_task_poll", "source_task_commit_record", "source_task_commit",
            "source_task_stop",
            "sink_task_start", "sink_task_open", "sink_task_put", "sink_task_pre_commit", "sink_task_close",
            "sink_task_stop",
            "transformation_start", "predicate_start", "transform", "predicate_test",
            "converter_start", "header_converter_start", "from_connect", "to_connect",
            "close",
            "connector_exactly_once_support", "connector_transaction_boundaries", "connector_alter_offsets");

    private static final Map<Class<?>, String> KINDS = Map.of(
            RunningConnector.class, "connector",
            RunningSourceTask.class, "source task",
            RunningSinkTask.class, "sink task",
            RunningStage.class, "transformation or predicate",
            RunningTransformation.class, "transformation",
            RunningPredicate.class, "predicate",
            RunningConverter.class, "converter",
            RunningHeaderConverter.class, "header converter");

    private final Supplier<PluginRegistry> registry;
    private final WorkerLink link;
    private final Map<String, RunningPlugin> running = new ConcurrentHashMap<>();

    RunOps(Supplier<PluginRegistry> registry, WorkerLink link) {
        this.registry = registry;
        this.link = link;
    }

    Map<String, Object> handle(String op, Map<String, Object> request) throws Throwable {
        if (op.equals("connector_task_class") && request.get("handle") == null) {
            // the worker asks a connector that was never started (as Kafka's Worker does)
            return unstartedTaskClass(Ops.requiredString(request, "class"));
        }
        switch (op) {  // questions for a fresh connector instance (no handle)
            case "connector_exactly_once_support":
                return ConnectorQueries.exactlyOnceSupport(registry.get(),
                        Ops.requiredString(request, "class"), Ops.stringMap(request.get("props"), "props"));
            case "connector_transaction_boundaries":
                return ConnectorQueries.transactionBoundaries(registry.get(),
                        Ops.requiredString(request, "class"), Ops.stringMap(request.get("props"), "props"));
            case "connector_alter_offsets":
                return ConnectorQueries.alterOffsets(registry.get(), Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"), request.get("offsets"));
            default:
                break;
        }
        String handle = Ops.requiredString(request, "handle");
        // MBeans the plugin registers meanwhile (here or in threads it starts) are its own
        try (MBeanOwners.Scope scope = MBeanOwners.enter(handle)) {
            return dispatch(op, handle, request);
        }
    }

    /** The tags of the plugin metrics of the instance under {@code handle}, or null. */
    Map<String, String> metricTags(String handle) {
        RunningPlugin plugin = running.get(handle);
        return plugin == null ? null : plugin.metricTags();
    }

    private Map<String, Object> dispatch(String op, String handle, Map<String, Object> request)
            throws Throwable {
        switch (op) {
            case "connector_start":
                startConnector(handle, Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"), requestedTags(request));
                return empty();
            case "connector_task_class":
                return get(handle, RunningConnector.class).taskClass();
            case "connector_task_configs":
                return get(handle, RunningConnector.class).taskConfigs(maxTasks(request));
            case "connector_stop":
                get(handle, RunningConnector.class).stop();
                return empty();
            case "source_task_start":
                startSourceTask(handle, Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"),
                        Boolean.TRUE.equals(request.get("transaction_context")), requestedTags(request));
                return empty();
            case "source_task_poll":
                return get(handle, RunningSourceTask.class).poll();
            case "source_task_commit_record":
                Object acks = request.get("acks");
                if (!(acks instanceof List)) {
                    throw new IllegalArgumentException("Request field 'acks' must be a list");
                }
                get(handle, RunningSourceTask.class).commitRecords((List<?>) acks);
                return empty();
            case "source_task_commit":
                get(handle, RunningSourceTask.class).commit();
                return empty();
            case "source_task_stop":
                get(handle, RunningSourceTask.class).stop();
                return empty();
            case "sink_task_start":
                startSinkTask(handle, Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"), requestedTags(request));
                return empty();
            case "sink_task_open":
                return get(handle, RunningSinkTask.class).open(RunningSinkTask.partitions(request.get("partitions")));
            case "sink_task_put":
                return get(handle, RunningSinkTask.class).put(RunningSinkTask.batch(request.get("batch")));
            case "sink_task_pre_commit":
                return get(handle, RunningSinkTask.class).preCommit(RunningSinkTask.offsets(request.get("offsets")));
            case "sink_task_close":
                return get(handle, RunningSinkTask.class).close(RunningSinkTask.partitions(request.get("partitions")));
            case "sink_task_stop":
                get(handle, RunningSinkTask.class).stop();
                return empty();
            case "transformation_start":
                startTransformation(handle, Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"));
                return empty();
            case "predicate_start":
                startPredicate(handle, Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"));
                return empty();
            case "transform":
                return StageRuns.transform(get(handle, RunningStage.class), stages(request.get("stages")),
                        index(request.get("first"), "first"), source(request), RunningSinkTask.batch(request.get("batch")));
            case "predicate_test":
                return StageRuns.test(get(handle, RunningPredicate.class), source(request),
                        RunningSinkTask.batch(request.get("batch")));
            case "converter_start":
                startConverter(handle, Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"), isKey(request));
                return empty();
            case "header_converter_start":
                startHeaderConverter(handle, Ops.requiredString(request, "class"),
                        Ops.stringMap(request.get("props"), "props"));
                return empty();
            case "from_connect":
                return ConverterRuns.fromConnect(converter(handle), Ops.requiredString(request, "topic"),
                        RunningSinkTask.batch(request.get("batch")));
            case "to_connect":
                return ConverterRuns.toConnect(converter(handle), Ops.requiredString(request, "topic"),
                        RunningSinkTask.batch(request.get("batch")));
            case "close":
                get(handle, RunningPlugin.class);
                RunningPlugin closed = running.remove(handle);
                if (closed != null) {
                    closed.close();
                }
                return empty();
            default:
                throw new IllegalArgumentException("Unknown op: " + op);
        }
    }

    private Map<String, Object> unstartedTaskClass(String className) throws Throwable {
        PluginRegistry current = registry.get();
        PluginDescriptor descriptor = current.plugin(className);
        Object plugin = current.newInstance(className);
        if (!(plugin instanceof Connector)) {
            throw new IllegalArgumentException("Plugin class " + className + " is not a connector");
        }
        return new RunningConnector("unstarted", (Connector) plugin, descriptor.loader, link).taskClass();
    }

    /** The start op's {@code metric_tags} (v4), in order; empty when the worker sent none. */
    private static Map<String, String> requestedTags(Map<String, Object> request) {
        return Ops.stringMap(request.get("metric_tags"), "metric_tags");
    }

    private void startConnector(String handle, String className, Map<String, String> props,
            Map<String, String> tags) throws Throwable {
        checkFree(handle);
        PluginRegistry current = registry.get();
        PluginDescriptor descriptor = current.plugin(className);
        Object plugin = current.newInstance(className);
        if (!(plugin instanceof Connector)) {
            throw new IllegalArgumentException("Plugin class " + className + " is not a connector");
        }
        RunningConnector connector = new RunningConnector(handle, (Connector) plugin, descriptor.loader, link);
        connector.metricTags(tags);
        startClaimed(connector, () -> connector.start(props));
    }

    private void startSourceTask(String handle, String className, Map<String, String> props,
                                 boolean transactionContext, Map<String, String> tags) throws Throwable {
        checkFree(handle);
        ClassLoader loader = taskLoader(className);
        SourceTask instance = newTaskOf(className, loader, SourceTask.class, "a source task");
        RunningSourceTask task = new RunningSourceTask(handle, instance, loader, props, link, transactionContext);
        task.metricTags(tags);
        startClaimed(task, task::start);
    }

    private void startSinkTask(String handle, String className, Map<String, String> props,
            Map<String, String> tags) throws Throwable {
        checkFree(handle);
        ClassLoader loader = taskLoader(className);
        SinkTask instance = newTaskOf(className, loader, SinkTask.class, "a sink task");
        RunningSinkTask task = new RunningSinkTask(handle, instance, loader, props, link);
        task.metricTags(tags);
        startClaimed(task, task::start);
    }

    private void startTransformation(String handle, String className, Map<String, String> props) throws Throwable {
        checkFree(handle);
        ClassLoader loader = taskLoader(className);
        Transformation<?> instance = newTaskOf(className, loader, Transformation.class, "a transformation");
        RunningTransformation transformation = new RunningTransformation(handle, instance, loader);
        startClaimed(transformation, () -> transformation.configure(props));
    }

    private void startPredicate(String handle, String className, Map<String, String> props) throws Throwable {
        checkFree(handle);
        ClassLoader loader = taskLoader(className);
        Predicate<?> instance = newTaskOf(className, loader, Predicate.class, "a predicate");
        RunningPredicate predicate = new RunningPredicate(handle, instance, loader);
        startClaimed(predicate, () -> predicate.configure(props));
    }

    private void startConverter(String handle, String className, Map<String, String> props, boolean isKey)
            throws Throwable {
        checkFree(handle);
        ClassLoader loader = taskLoader(className);
        Converter instance = newTaskOf(className, loader, Converter.class, "a converter");
        RunningConverter converter = new RunningConverter(handle, instance, loader, isKey);
        startClaimed(converter, () -> converter.configure(props));
    }

    private void startHeaderConverter(String handle, String className, Map<String, String> props)
            throws Throwable {
        checkFree(handle);
        ClassLoader loader = taskLoader(className);
        HeaderConverter instance = newTaskOf(className, loader, HeaderConverter.class, "a header converter");
        RunningHeaderConverter converter = new RunningHeaderConverter(handle, instance, loader);
        startClaimed(converter, () -> converter.configure(props));
    }

    /** The converter or header converter under {@code handle}. */
    private RunningStage converter(String handle) {
        RunningPlugin plugin = running.get(handle);
        if (plugin instanceof RunningConverter || plugin instanceof RunningHeaderConverter) {
            return (RunningStage) plugin;
        }
        if (plugin == null) {
            throw new IllegalArgumentException("Unknown handle: " + handle);
        }
        throw new IllegalArgumentException("Handle " + handle + " is not a converter or header converter");
    }

    private static boolean isKey(Map<String, Object> request) {
        Object value = request.get("is_key");
        if (!(value instanceof Boolean)) {
            throw new IllegalArgumentException("Request field 'is_key' must be a boolean");
        }
        return (Boolean) value;
    }

    /** {@code [[transformation handle, predicate handle or null, negate], ...]}, not empty. */
    private List<StageRuns.Stage> stages(Object value) {
        if (!(value instanceof List) || ((List<?>) value).isEmpty()) {
            throw new IllegalArgumentException(
                    "Request field 'stages' must be a list of [transformation, predicate or null, negate]");
        }
        List<StageRuns.Stage> stages = new ArrayList<>();
        for (Object raw : (List<?>) value) {
            if (!(raw instanceof List) || ((List<?>) raw).size() != 3
                    || !(((List<?>) raw).get(0) instanceof String)
                    || !(((List<?>) raw).get(1) == null || ((List<?>) raw).get(1) instanceof String)
                    || !(((List<?>) raw).get(2) instanceof Boolean)) {
                throw new IllegalArgumentException("A stage must be [transformation, predicate or null, negate]: " + raw);
            }
            List<?> stage = (List<?>) raw;
            RunningPredicate predicate = stage.get(1) == null ? null : get((String) stage.get(1), RunningPredicate.class);
            stages.add(new StageRuns.Stage(get((String) stage.get(0), RunningTransformation.class), predicate,
                    (Boolean) stage.get(2)));
        }
        return stages;
    }

    /** The request's {@code kind}: {@code "source"} or {@code "sink"} records. */
    private static boolean source(Map<String, Object> request) {
        Object kind = request.get("kind");
        if (!"source".equals(kind) && !"sink".equals(kind)) {
            throw new IllegalArgumentException("Request field 'kind' must be \"source\" or \"sink\"");
        }
        return "source".equals(kind);
    }

    private static int index(Object value, String field) {
        if (!(value instanceof Long) || (Long) value < 0 || (Long) value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Request field '" + field + "' must be a non-negative integer");
        }
        return (int) (long) (Long) value;
    }

    /** A start that may throw anything the plugin throws. */
    @FunctionalInterface
    private interface Start {
        void run() throws Throwable;
    }

    /**
     * Registers {@code plugin} under its handle and starts it; a start that throws leaves no
     * handle behind (the worker neither stops nor closes it, as Kafka does not stop a task whose
     * start failed).
     */
    private void startClaimed(RunningPlugin plugin, Start start) throws Throwable {
        claim(plugin);
        boolean started = false;
        try {
            start.run();
            started = true;
        } finally {
            if (!started) {
                forget(plugin);
            }
        }
    }

    private static <T> T newTaskOf(String className, ClassLoader loader, Class<T> kind, String what)
            throws Throwable {
        Object instance = newTask(className, loader);
        if (!kind.isInstance(instance)) {
            throw new IllegalArgumentException("Class " + className + " is not " + what);
        }
        return kind.cast(instance);
    }

    private static Object newTask(String className, ClassLoader loader) throws Throwable {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            return Class.forName(className, true, loader).getDeclaredConstructor().newInstance();
        } catch (InvocationTargetException e) {
            throw e.getCause() != null ? e.getCause() : e;
        }
    }

    /**
     * The loader of the plugin location a task class belongs to: Kafka loads a task class through
     * its connector's loader, so this is the location whose loader defines the class (the copy
     * that runs first, when several do); failing that, a location whose loader can load it at all.
     * Transformation and predicate classes are found the same way.
     */
    private ClassLoader taskLoader(String className) {
        Set<ClassLoader> loaders = new LinkedHashSet<>();
        List<PluginDescriptor> plugins = new ArrayList<>(registry.get().plugins());
        for (int i = plugins.size() - 1; i >= 0; i--) { // Kafka's order: the greatest copy last
            loaders.add(plugins.get(i).loader);
        }
        ClassLoader loadsIt = null;
        for (ClassLoader loader : loaders) {
            Class<?> klass;
            try {
                klass = Class.forName(className, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                continue;
            }
            if (klass.getClassLoader() == loader) {
                return loader;
            }
            if (loadsIt == null) {
                loadsIt = loader;
            }
        }
        if (loadsIt == null) {
            throw new IllegalArgumentException("Unknown task class: " + className
                    + " (no plugin location found by the last scan of plugin.path has it)");
        }
        return loadsIt;
    }

    private void checkFree(String handle) {
        if (running.containsKey(handle)) {
            throw new IllegalArgumentException("Handle " + handle + " is already in use");
        }
    }

    private void claim(RunningPlugin plugin) {
        if (running.putIfAbsent(plugin.handle, plugin) != null) {
            throw new IllegalArgumentException("Handle " + plugin.handle + " is already in use");
        }
    }

    private void forget(RunningPlugin plugin) {
        running.remove(plugin.handle, plugin);
        plugin.close();
    }

    private <T extends RunningPlugin> T get(String handle, Class<T> kind) {
        RunningPlugin plugin = running.get(handle);
        if (plugin == null) {
            throw new IllegalArgumentException("Unknown handle: " + handle);
        }
        if (!kind.isInstance(plugin)) {
            throw new IllegalArgumentException("Handle " + handle + " is not a " + KINDS.get(kind));
        }
        return kind.cast(plugin);
    }

    private static int maxTasks(Map<String, Object> request) {
        Object value = request.get("max_tasks");
        if (!(value instanceof Long) || (Long) value < 0 || (Long) value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Request field 'max_tasks' must be a non-negative integer");
        }
        return (int) (long) (Long) value;
    }

    private static Map<String, Object> empty() {
        return new LinkedHashMap<>();
    }
}
