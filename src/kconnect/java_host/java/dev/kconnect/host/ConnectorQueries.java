package dev.kconnect.host;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * The questions Kafka's runtime asks a fresh, never-started connector instance (v2 ops
 * without a handle): {@code connector_exactly_once_support}, {@code
 * connector_transaction_boundaries} (KIP-618, asked when a connector config is validated and
 * before its tasks start on a worker with exactly-once source support) and {@code
 * connector_alter_offsets} (KIP-875, asked before the worker alters or resets a stopped
 * connector's offsets). Each call runs with the plugin's loader as the context class loader.
 *
 * <p>Stateless; thread-safe.
 */
final class ConnectorQueries {

    private ConnectorQueries() {
    }

    static Map<String, Object> exactlyOnceSupport(PluginRegistry registry, String className,
                                                  Map<String, String> props) throws Throwable {
        Connector connector = fresh(registry, className);
        Map<String, Object> result = new LinkedHashMap<>();
        if (!(connector instanceof SourceConnector)) {
            result.put("support", null);
            return result;
        }
        ExactlyOnceSupport support;
        try (LoaderSwap swap = LoaderSwap.to(registry.plugin(className).loader)) {
            support = ((SourceConnector) connector).exactlyOnceSupport(props);
        }
        result.put("support", support == null ? null : support.name());
        return result;
    }

    static Map<String, Object> transactionBoundaries(PluginRegistry registry, String className,
                                                     Map<String, String> props) throws Throwable {
        Connector connector = fresh(registry, className);
        if (!(connector instanceof SourceConnector)) {
            throw new IllegalArgumentException("Plugin class " + className + " is not a source connector");
        }
        ConnectorTransactionBoundaries boundaries;
        try (LoaderSwap swap = LoaderSwap.to(registry.plugin(className).loader)) {
            boundaries = ((SourceConnector) connector).canDefineTransactionBoundaries(props);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("boundaries", boundaries == null ? null : boundaries.name());
        return result;
    }

    /**
     * {@code offsets}: for a source connector a list of {@code [partition object, offset object
     * or null]}; for a sink connector a list of {@code [topic, partition, offset or null]}.
     */
    static Map<String, Object> alterOffsets(PluginRegistry registry, String className,
                                            Map<String, String> props, Object offsets) throws Throwable {
        Connector connector = fresh(registry, className);
        if (!(offsets instanceof List)) {
            throw new IllegalArgumentException("Request field 'offsets' must be a list");
        }
        boolean altered;
        try (LoaderSwap swap = LoaderSwap.to(registry.plugin(className).loader)) {
            if (connector instanceof SourceConnector) {
                Map<Map<String, ?>, Map<String, ?>> sourceOffsets = new LinkedHashMap<>();
                for (Object entry : (List<?>) offsets) {
                    List<?> pair = pair(entry, 2);
                    sourceOffsets.put(objectMap(pair.get(0)), objectMap(pair.get(1)));
                }
                altered = ((SourceConnector) connector).alterOffsets(props, sourceOffsets);
            } else if (connector instanceof SinkConnector) {
                Map<TopicPartition, Long> sinkOffsets = new LinkedHashMap<>();
                for (Object entry : (List<?>) offsets) {
                    List<?> triple = pair(entry, 3);
                    Object offset = WorkerOffsetReader.asKafkaGivesIt(triple.get(2));
                    sinkOffsets.put(
                            new TopicPartition(String.valueOf(triple.get(0)),
                                    ((Number) WorkerOffsetReader.asKafkaGivesIt(triple.get(1))).intValue()),
                            offset == null ? null : ((Number) offset).longValue());
                }
                altered = ((SinkConnector) connector).alterOffsets(props, sinkOffsets);
            } else {
                throw new IllegalArgumentException("Plugin class " + className + " is not a connector");
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("altered", altered);
        return result;
    }

    private static Connector fresh(PluginRegistry registry, String className) throws Throwable {
        Object plugin = registry.newInstance(className);
        if (!(plugin instanceof Connector)) {
            throw new IllegalArgumentException("Plugin class " + className + " is not a connector");
        }
        return (Connector) plugin;
    }

    private static List<?> pair(Object entry, int size) {
        if (!(entry instanceof List) || ((List<?>) entry).size() != size) {
            throw new IllegalArgumentException("Each entry of 'offsets' must be a list of " + size);
        }
        return (List<?>) entry;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ?> objectMap(Object json) {
        if (json == null) {
            return null;
        }
        if (!(json instanceof Map)) {
            throw new IllegalArgumentException("A source partition or offset must be an object: " + json);
        }
        return (Map<String, ?>) WorkerOffsetReader.asKafkaGivesIt(json);
    }
}
