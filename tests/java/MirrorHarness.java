// Test harness for kconnect's MirrorMaker 2: drives Apache Kafka's connect-mirror and
// connect-mirror-client classes over a line protocol, so kconnect's Python implementation can be
// compared with Java's on the same inputs. One JSON request per stdin line, one JSON answer per
// stdout line ({"ok": ...} or {"error": "..."}). It sits in Java's package to reach the
// package-private encoders (recordKey/recordValue) and the OffsetSyncStore test hooks.
package org.apache.kafka.connect.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;

import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.io.BufferedReader;
import java.lang.management.ManagementFactory;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

public class MirrorHarness {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            ObjectNode answer = NODES.objectNode();
            try {
                answer.set("ok", handle(MAPPER.readTree(line)));
            } catch (Throwable t) {
                answer.put("error", t.getClass().getSimpleName() + ": " + t.getMessage());
            }
            out.println(MAPPER.writeValueAsString(answer));
            out.flush();
        }
    }

    // MirrorSourceMetrics / MirrorCheckpointMetrics made as the tasks make them (from the task
    // config, with its reporters: JMX under kafka.connect.mirror), fed the given calls, then
    // every kafka.connect.mirror MBean with its attributes' descriptions and values.
    static JsonNode metrics(JsonNode req) throws Exception {
        Map<String, String> config = strings(req.get("config"));
        AutoCloseable made;
        if (req.get("which").asText().equals("source")) {
            MirrorSourceMetrics m = new MirrorSourceTaskConfig(config).metrics();
            made = m;
            for (JsonNode c : req.get("calls")) {
                TopicPartition tp = new TopicPartition(c.get(1).asText(), c.get(2).asInt());
                long v = c.get(3).asLong();
                switch (c.get(0).asText()) {
                    case "countRecord": m.countRecord(tp); break;
                    case "recordAge": m.recordAge(tp, v); break;
                    case "recordBytes": m.recordBytes(tp, v); break;
                    case "replicationLatency": m.replicationLatency(tp, v); break;
                    default: throw new IllegalArgumentException(c.get(0).asText());
                }
            }
        } else {
            MirrorCheckpointMetrics m = new MirrorCheckpointTaskConfig(config).metrics();
            made = m;
            for (JsonNode c : req.get("calls")) {
                m.checkpointLatency(new TopicPartition(c.get(1).asText(), c.get(2).asInt()),
                    c.get(0).asText(), c.get(3).asLong());
            }
        }
        ArrayNode beans = beans("kafka.connect.mirror:*");
        made.close();
        return beans;
    }

    // Every MBean matching pattern, sorted by key list, with its attributes' descriptions
    // and values.
    static ArrayNode beans(String pattern) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ArrayNode beans = NODES.arrayNode();
        List<ObjectName> names = new ArrayList<>(server.queryNames(new ObjectName(pattern), null));
        names.sort((a, b) -> a.getKeyPropertyListString().compareTo(b.getKeyPropertyListString()));
        for (ObjectName n : names) {
            ObjectNode bean = NODES.objectNode();
            bean.put("domain", n.getDomain());
            bean.put("keys", n.getKeyPropertyListString());
            ObjectNode attrs = NODES.objectNode();
            for (MBeanAttributeInfo a : server.getMBeanInfo(n).getAttributes()) {
                Object v = server.getAttribute(n, a.getName());
                ObjectNode attr = NODES.objectNode().put("description", a.getDescription());
                if (v instanceof Double && (((Double) v).isNaN() || ((Double) v).isInfinite())) {
                    attr.put("value", v.toString());
                } else if (v instanceof Number) {
                    attr.put("value", ((Number) v).doubleValue());
                } else {
                    attr.put("value", String.valueOf(v));
                }
                attrs.set(a.getName(), attr);
            }
            bean.set("attributes", attrs);
            beans.add(bean);
        }
        return beans;
    }

    // A Monitorable of every plugin kind Connect wraps: it keeps the PluginMetrics it is given.
    public static class Capture implements org.apache.kafka.connect.storage.Converter,
            org.apache.kafka.connect.storage.HeaderConverter,
            org.apache.kafka.connect.transforms.Transformation<org.apache.kafka.connect.source.SourceRecord>,
            org.apache.kafka.connect.transforms.predicates.Predicate<org.apache.kafka.connect.source.SourceRecord>,
            org.apache.kafka.common.metrics.Monitorable {
        org.apache.kafka.common.metrics.PluginMetrics metrics;
        public void withPluginMetrics(org.apache.kafka.common.metrics.PluginMetrics m) { metrics = m; }
        public void configure(Map<String, ?> configs, boolean isKey) { }
        public void configure(Map<String, ?> configs) { }
        public byte[] fromConnectData(String topic, org.apache.kafka.connect.data.Schema schema, Object value) { return null; }
        public org.apache.kafka.connect.data.SchemaAndValue toConnectData(String topic, byte[] value) { return null; }
        public byte[] fromConnectHeader(String topic, String key, org.apache.kafka.connect.data.Schema schema, Object value) { return null; }
        public org.apache.kafka.connect.data.SchemaAndValue toConnectHeader(String topic, String key, byte[] value) { return null; }
        public org.apache.kafka.connect.source.SourceRecord apply(org.apache.kafka.connect.source.SourceRecord r) { return r; }
        public boolean test(org.apache.kafka.connect.source.SourceRecord r) { return true; }
        public ConfigDef config() { return new ConfigDef(); }
        public void close() { }
    }

    static String attempt(java.util.concurrent.Callable<?> call) {
        try {
            call.call();
            return null;
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    // KIP-877: Connect's ConnectMetrics hands a connector, a task and each Monitorable converter,
    // transformation and predicate a PluginMetrics; each of the given plugins registers a gauge
    // and a sensor's total, then tries what Java refuses. Answers the refusals' messages and
    // every kafka.connect:type=plugins MBean; then closes them and answers the closed message.
    static JsonNode pluginMetrics(JsonNode req) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("bootstrap.servers", "127.0.0.1:9");
        props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        props.put("offset.storage.file.filename", "/dev/null");
        org.apache.kafka.connect.runtime.ConnectMetrics cm = new org.apache.kafka.connect.runtime.ConnectMetrics(
            "harness", new org.apache.kafka.connect.runtime.standalone.StandaloneConfig(props),
            org.apache.kafka.common.utils.Time.SYSTEM, "cluster");
        String connector = req.get("connector").asText();
        org.apache.kafka.connect.util.ConnectorTaskId id =
            new org.apache.kafka.connect.util.ConnectorTaskId(connector, req.get("task").asInt());
        java.lang.reflect.Method taskMetrics = cm.getClass().getDeclaredMethod("taskPluginMetrics",
            org.apache.kafka.connect.util.ConnectorTaskId.class);
        taskMetrics.setAccessible(true);
        List<AutoCloseable> closers = new ArrayList<>();
        ArrayNode refusals = NODES.arrayNode();
        for (JsonNode p : req.get("plugins")) {
            String scope = p.get("scope").asText();
            String alias = p.path("alias").asText("");
            org.apache.kafka.common.metrics.PluginMetrics m;
            Capture c = new Capture();
            switch (scope) {
                case "connector": {
                    org.apache.kafka.common.metrics.internals.PluginMetricsImpl pm = cm.connectorPluginMetrics(connector);
                    closers.add(pm);
                    m = pm;
                    break;
                }
                case "task": {
                    org.apache.kafka.common.metrics.internals.PluginMetricsImpl pm =
                        (org.apache.kafka.common.metrics.internals.PluginMetricsImpl) taskMetrics.invoke(cm, id);
                    closers.add(pm);
                    m = pm;
                    break;
                }
                case "key": closers.add(cm.wrap((org.apache.kafka.connect.storage.Converter) c, id, true)); m = c.metrics; break;
                case "value": closers.add(cm.wrap((org.apache.kafka.connect.storage.Converter) c, id, false)); m = c.metrics; break;
                case "header": closers.add(cm.wrap((org.apache.kafka.connect.storage.HeaderConverter) c, id)); m = c.metrics; break;
                case "transformation": closers.add(cm.wrap((org.apache.kafka.connect.transforms.Transformation<org.apache.kafka.connect.source.SourceRecord>) c, id, alias)); m = c.metrics; break;
                case "predicate": closers.add(cm.wrap((org.apache.kafka.connect.transforms.predicates.Predicate<org.apache.kafka.connect.source.SourceRecord>) c, id, alias)); m = c.metrics; break;
                default: throw new IllegalArgumentException(scope);
            }
            java.util.LinkedHashMap<String, String> none = new java.util.LinkedHashMap<>();
            java.util.LinkedHashMap<String, String> own = new java.util.LinkedHashMap<>();
            own.put("zone", "b");
            own.put("area", "a");
            org.apache.kafka.common.MetricName gauge = m.metricName("tables", "Tables found.", none);
            m.addMetric(gauge, (org.apache.kafka.common.metrics.Gauge<Double>) (config, now) -> 2.0);
            org.apache.kafka.common.metrics.Sensor sensor = m.addSensor("seen-" + scope);
            sensor.add(m.metricName("records-total", "Records seen.", own),
                new org.apache.kafka.common.metrics.stats.CumulativeSum());
            sensor.record(3);
            sensor.record(4);
            final org.apache.kafka.common.metrics.PluginMetrics fm = m;
            java.util.LinkedHashMap<String, String> reserved = new java.util.LinkedHashMap<>();
            reserved.put(p.get("reserved").asText(), "x");
            ArrayNode r = NODES.arrayNode();
            r.add(attempt(() -> fm.metricName("m", "", reserved)));
            r.add(attempt(() -> { fm.addMetric(fm.metricName("tables", "again", none),
                (org.apache.kafka.common.metrics.Gauge<Double>) (config, now) -> 1.0); return null; }));
            r.add(attempt(() -> { fm.removeMetric(fm.metricName("nope", "", none)); return null; }));
            r.add(attempt(() -> fm.addSensor("seen-" + scope)));
            r.add(attempt(() -> { fm.removeSensor("nope"); return null; }));
            refusals.add(r);
        }
        ObjectNode answer = NODES.objectNode();
        answer.set("refusals", refusals);
        answer.set("beans", beans("kafka.connect:type=plugins,*"));
        for (AutoCloseable c : closers) c.close();
        answer.set("after", beans("kafka.connect:type=plugins,*"));
        org.apache.kafka.common.metrics.internals.PluginMetricsImpl closed = cm.connectorPluginMetrics(connector);
        closed.close();
        answer.put("closed", attempt(() -> closed.addSensor("x")));
        cm.stop();
        return answer;
    }

    static Map<String, String> strings(JsonNode obj) {
        Map<String, String> map = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            map.put(e.getKey(), e.getValue().asText());
        }
        return map;
    }

    static ObjectNode stringMap(Map<String, ?> map) {
        ObjectNode node = NODES.objectNode();
        map.forEach((k, v) -> node.put(k, v == null ? null : String.valueOf(v)));
        return node;
    }

    static ObjectNode bytes(byte[] key, byte[] value) {
        ObjectNode node = NODES.objectNode();
        node.put("key", Base64.getEncoder().encodeToString(key));
        node.put("value", Base64.getEncoder().encodeToString(value));
        return node;
    }

    static ConsumerRecord<byte[], byte[]> record(JsonNode req) {
        return new ConsumerRecord<>("t", 0, 0L,
            Base64.getDecoder().decode(req.get("key").asText()),
            Base64.getDecoder().decode(req.get("value").asText()));
    }

    static JsonNode handle(JsonNode req) throws Exception {
        switch (req.get("op").asText()) {
            case "configdef": return configDef(req.get("which").asText());
            case "heartbeat": {
                Heartbeat h = new Heartbeat(req.get("source").asText(), req.get("target").asText(),
                    req.get("timestamp").asLong());
                return bytes(h.recordKey(), h.recordValue());
            }
            case "checkpoint": {
                Checkpoint c = new Checkpoint(req.get("group").asText(),
                    new TopicPartition(req.get("topic").asText(), req.get("partition").asInt()),
                    req.get("upstream").asLong(), req.get("downstream").asLong(), req.get("metadata").asText());
                return bytes(c.recordKey(), c.recordValue());
            }
            case "offsetsync": {
                OffsetSync s = new OffsetSync(
                    new TopicPartition(req.get("topic").asText(), req.get("partition").asInt()),
                    req.get("upstream").asLong(), req.get("downstream").asLong());
                return bytes(s.recordKey(), s.recordValue());
            }
            case "decode": {
                String kind = req.get("kind").asText();
                Object decoded = kind.equals("checkpoint") ? Checkpoint.deserializeRecord(record(req))
                    : kind.equals("heartbeat") ? Heartbeat.deserializeRecord(record(req))
                    : OffsetSync.deserializeRecord(record(req));
                return NODES.textNode(decoded.toString());
            }
            case "policy": return policy(req);
            case "syncstore": return syncStore(req);
            case "hashorder": return hashOrder(req);
            case "mm2": return mm2(req);
            case "metrics": return metrics(req);
            case "pluginmetrics": return pluginMetrics(req);
            case "sourcetasks": {
                List<TopicPartition> known = new ArrayList<>();
                for (JsonNode p : req.get("partitions")) {
                    known.add(new TopicPartition(p.get(0).asText(), p.get(1).asInt()));
                }
                MirrorSourceConnector connector = new MirrorSourceConnector(known,
                    new MirrorSourceConfig(strings(req.get("config"))));
                ArrayNode tasks = NODES.arrayNode();
                for (Map<String, String> t : connector.taskConfigs(req.get("maxTasks").asInt())) {
                    tasks.add(NODES.objectNode()
                        .put("task.assigned.partitions", t.get("task.assigned.partitions"))
                        .put("task.index", t.get("task.index")));
                }
                return tasks;
            }
            case "checkpointtasks": {
                Set<String> known = new HashSet<>();
                for (JsonNode g : req.get("groups")) known.add(g.asText());
                MirrorCheckpointConnector connector = new MirrorCheckpointConnector(known,
                    new MirrorCheckpointConfig(strings(req.get("config"))));
                ArrayNode tasks = NODES.arrayNode();
                for (Map<String, String> t : connector.taskConfigs(req.get("maxTasks").asInt())) {
                    tasks.add(NODES.objectNode()
                        .put("task.assigned.groups", t.get("task.assigned.groups"))
                        .put("task.index", t.get("task.index")));
                }
                return tasks;
            }
            case "translate": {
                Map<String, Object> props = new HashMap<>(strings(req.get("props")));
                Map<TopicPartition, OffsetAndMetadata> offsets = RemoteClusterUtils.translateOffsets(
                    props, req.get("remote").asText(), req.get("group").asText(),
                    Duration.ofMillis(req.get("timeoutMs").asLong()));
                ObjectNode result = NODES.objectNode();
                offsets.forEach((tp, om) -> result.put(tp.toString(), om.offset()));
                return result;
            }
            case "client": {
                Map<String, Object> props = new HashMap<>(strings(req.get("props")));
                ObjectNode result = NODES.objectNode();
                result.put("hops", RemoteClusterUtils.replicationHops(props, req.get("upstream").asText()));
                result.set("heartbeatTopics", sorted(RemoteClusterUtils.heartbeatTopics(props)));
                result.set("checkpointTopics", sorted(RemoteClusterUtils.checkpointTopics(props)));
                result.set("upstreamClusters", sorted(RemoteClusterUtils.upstreamClusters(props)));
                try (MirrorClient client = new MirrorClient(props)) {
                    result.set("remoteTopics", sorted(client.remoteTopics()));
                }
                return result;
            }
            default: throw new IllegalArgumentException("unknown op " + req.get("op"));
        }
    }

    static ArrayNode sorted(Set<String> items) {
        ArrayNode node = NODES.arrayNode();
        items.stream().sorted().forEach(node::add);
        return node;
    }

    static JsonNode configDef(String which) {
        ConfigDef def = which.equals("source") ? MirrorSourceConfig.CONNECTOR_CONFIG_DEF
            : which.equals("checkpoint") ? MirrorCheckpointConfig.CONNECTOR_CONFIG_DEF
            : which.equals("heartbeat") ? MirrorHeartbeatConfig.CONNECTOR_CONFIG_DEF
            : MirrorMakerConfig.config();
        ArrayNode keys = NODES.arrayNode();
        for (ConfigDef.ConfigKey key : def.configKeys().values()) {
            ObjectNode k = keys.addObject();
            k.put("name", key.name);
            k.put("type", key.type.toString());
            k.put("importance", key.importance.toString());
            if (key.defaultValue == ConfigDef.NO_DEFAULT_VALUE) {
                k.put("required", true);
            } else {
                k.put("default", key.defaultValue == null ? null : ConfigDef.convertToString(key.defaultValue, key.type));
            }
        }
        return keys;
    }

    static JsonNode policy(JsonNode req) throws Exception {
        ReplicationPolicy policy = (ReplicationPolicy) Class.forName(req.get("class").asText())
            .getDeclaredConstructor().newInstance();
        if (policy instanceof org.apache.kafka.common.Configurable) {
            ((org.apache.kafka.common.Configurable) policy).configure(strings(req.get("config")));
        }
        ArrayNode results = NODES.arrayNode();
        for (JsonNode call : req.get("calls")) {
            String method = call.get(0).asText();
            Object result;
            switch (method) {
                case "formatRemoteTopic": result = policy.formatRemoteTopic(call.get(1).asText(), call.get(2).asText()); break;
                case "topicSource": result = policy.topicSource(call.get(1).asText()); break;
                case "upstreamTopic": result = policy.upstreamTopic(call.get(1).asText()); break;
                case "originalTopic": result = policy.originalTopic(call.get(1).asText()); break;
                case "heartbeatsTopic": result = policy.heartbeatsTopic(); break;
                case "offsetSyncsTopic": result = policy.offsetSyncsTopic(call.get(1).asText()); break;
                case "checkpointsTopic": result = policy.checkpointsTopic(call.get(1).asText()); break;
                case "isHeartbeatsTopic": result = policy.isHeartbeatsTopic(call.get(1).asText()); break;
                case "isCheckpointsTopic": result = policy.isCheckpointsTopic(call.get(1).asText()); break;
                case "isMM2InternalTopic": result = policy.isMM2InternalTopic(call.get(1).asText()); break;
                case "isInternalTopic": result = policy.isInternalTopic(call.get(1).asText()); break;
                default: throw new IllegalArgumentException("unknown policy method " + method);
            }
            if (result == null) results.addNull();
            else if (result instanceof Boolean) results.add((Boolean) result);
            else results.add(result.toString());
        }
        return results;
    }

    static JsonNode syncStore(JsonNode req) {
        OffsetSyncStore store = new OffsetSyncStore();
        store.initializationMustReadToEnd = req.get("mustReadToEnd").asBoolean();
        store.readToEnd = false;
        int beforeEnd = req.get("beforeEnd").asInt();
        int i = 0;
        for (JsonNode s : req.get("syncs")) {
            if (i++ == beforeEnd) store.readToEnd = true;
            OffsetSync sync = new OffsetSync(new TopicPartition(s.get(0).asText(), s.get(1).asInt()),
                s.get(2).asLong(), s.get(3).asLong());
            store.handleRecord(new ConsumerRecord<>("syncs", 0, 0L, sync.recordKey(), sync.recordValue()));
        }
        store.readToEnd = true;
        ArrayNode results = NODES.arrayNode();
        for (JsonNode q : req.get("queries")) {
            OptionalLong t = store.translateDownstream("g",
                new TopicPartition(q.get(0).asText(), q.get(1).asInt()), q.get(2).asLong());
            if (t.isPresent()) results.add(t.getAsLong());
            else results.addNull();
        }
        return results;
    }

    // The chain of collections Admin.describeTopics(...).allTopicNames() passes topic names
    // through before MirrorSourceConnector reads them: a HashSet, the futures HashMap, its copy,
    // and the result HashMap. Its iteration order is the order Java lists partitions in.
    static JsonNode hashOrder(JsonNode req) {
        List<String> names = new ArrayList<>();
        for (JsonNode n : req.get("names")) names.add(n.asText());
        Set<String> set = names.stream().collect(Collectors.toSet());
        Map<String, Integer> futures = new HashMap<>(set.size());
        for (String n : set) futures.put(n, 0);
        Map<String, Integer> copy = new HashMap<>(futures);
        Map<String, Integer> result = new HashMap<>(copy.size());
        for (Map.Entry<String, Integer> e : copy.entrySet()) result.put(e.getKey(), e.getValue());
        ArrayNode out = NODES.arrayNode();
        result.keySet().forEach(out::add);
        return out;
    }

    static JsonNode mm2(JsonNode req) {
        MirrorMakerConfig config = new MirrorMakerConfig(strings(req.get("props")));
        ObjectNode result = NODES.objectNode();
        ArrayNode pairs = result.putArray("pairs");
        ObjectNode workers = result.putObject("workers");
        ObjectNode connectors = result.putObject("connectors");
        for (SourceAndTarget pair : config.clusterPairs()) {
            pairs.add(pair.toString());
            workers.set(pair.toString(), stringMap(config.workerConfig(pair)));
            ObjectNode byClass = connectors.putObject(pair.toString());
            for (Class<?> cls : MirrorMaker.CONNECTOR_CLASSES) {
                byClass.set(cls.getSimpleName(), stringMap(config.connectorBaseConfig(pair, cls)));
            }
        }
        return result;
    }
}
