// Test harness for kconnect: Apache Kafka's real record path for sink records, over a line protocol.
// One request per stdin line (JSON), one answer per stdout line (JSON):
//
//   {"key_cfg": {...}, "value_cfg": {...},            JsonConverter settings of key and value
//    "props": {"transforms": "a,b", "transforms.a.type": ..., "predicates": ..., ...},
//    "records": [{"topic": t, "partition": p, "offset": o, "ts": ms|null,
//                 "key": base64|null, "value": base64|null, "headers": [[name, base64|null], ...]}]}
//
// answers {"config_error": "<Class>: <message>"} when the chain cannot be built, else
// {"results": [...]}, per record one of
//   {"decode_error": "<key|value>: <Class>: <message>"}
//   {"dropped": <index of the stage that returned null>}
//   {"error": {"stage": i, "alias": a, "class": "<Class>", "message": m}}
//   {"topic", "partition", "ts", "key_schema", "value_schema",   (schema: "TYPE name? optional?")
//    "key_text", "value_text",                                    (String.valueOf of key and value)
//    "key", "value": {"b64": ...} | {"null": true} | {"error": "<Class>: <message>"},
//    "headers": [[name, schema, text, {"b64"|"null"|"error"} by the value converter,
//                 the same by SimpleHeaderConverter]]}
//
// Like WorkerSinkTask, the key and value are decoded with JsonConverter, the headers with
// SimpleHeaderConverter (the worker's default header.converter), the record is a SinkRecord
// (CREATE_TIME), and the chain runs stage by stage as TransformationChain/TransformationStage do:
// a stage applies when it has no predicate or negate ^ predicate.test(record), a null result
// drops the record. Stages are built as ConnectorConfig.transformationStages builds them (the
// settings under "transforms.<alias>." without predicate/negate; the predicate's settings under
// "predicates.<alias>."). Results are re-encoded with the same converters (headers with the
// value converter's fromConnectHeader, and with SimpleHeaderConverter). The JVM's default time
// zone decides Date.toString.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

public class RecordHarness {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Map<String, JsonConverter> CONVERTERS = new HashMap<>();
    static final SimpleHeaderConverter HEADERS = new SimpleHeaderConverter();

    /** One configured stage, as TransformationStage holds it. */
    static final class Stage {
        final String alias;
        final Transformation<SinkRecord> transformation;
        final Predicate<SinkRecord> predicate;
        final boolean negate;

        Stage(String alias, Transformation<SinkRecord> transformation, Predicate<SinkRecord> predicate, boolean negate) {
            this.alias = alias;
            this.transformation = transformation;
            this.predicate = predicate;
            this.negate = negate;
        }

        SinkRecord apply(SinkRecord record) {
            if (predicate == null || negate ^ predicate.test(record)) {
                return transformation.apply(record);
            }
            return record;
        }

        void close() {
            try {
                transformation.close();
                if (predicate != null) predicate.close();
            } catch (Throwable ignored) {
                // as the worker: a failure to close is logged, never raised
            }
        }
    }

    public static void main(String[] args) throws Exception {
        HEADERS.configure(new HashMap<>());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String answer;
            try {
                answer = MAPPER.writeValueAsString(handle(MAPPER.readTree(line)));
            } catch (Throwable t) {
                ObjectNode o = MAPPER.createObjectNode();
                o.put("harness_error", describe(t));
                answer = MAPPER.writeValueAsString(o);
            }
            out.println(answer);
            out.flush();
        }
    }

    static String describe(Throwable t) {
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    static JsonConverter converter(JsonNode cfg, boolean isKey) {
        String key = isKey + cfg.toString();
        return CONVERTERS.computeIfAbsent(key, k -> {
            Map<String, Object> conf = new HashMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = cfg.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                conf.put(e.getKey(), e.getValue().asText());
            }
            JsonConverter c = new JsonConverter();
            c.configure(conf, isKey);
            return c;
        });
    }

    static Map<String, Object> withPrefix(Map<String, String> props, String prefix) {
        Map<String, Object> out = new HashMap<>();
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (e.getKey().startsWith(prefix)) out.put(e.getKey().substring(prefix.length()), e.getValue());
        }
        return out;
    }

    static List<String> aliases(Map<String, String> props, String key) {
        List<String> out = new ArrayList<>();
        String text = props.get(key);
        if (text == null) return out;
        for (String a : text.split(",")) {
            if (!a.trim().isEmpty()) out.add(a.trim());
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static List<Stage> stages(Map<String, String> props) throws Exception {
        List<Stage> stages = new ArrayList<>();
        for (String alias : aliases(props, "transforms")) {
            String prefix = "transforms." + alias + ".";
            Map<String, Object> configs = withPrefix(props, prefix);
            Object predicateAlias = configs.remove("predicate");
            Object negate = configs.remove("negate");
            Transformation<SinkRecord> t = (Transformation<SinkRecord>) Class.forName(props.get(prefix + "type"))
                    .getDeclaredConstructor().newInstance();
            t.configure(configs);
            Predicate<SinkRecord> p = null;
            if (predicateAlias != null) {
                String predicatePrefix = "predicates." + predicateAlias + ".";
                p = (Predicate<SinkRecord>) Class.forName(props.get(predicatePrefix + "type"))
                        .getDeclaredConstructor().newInstance();
                p.configure(withPrefix(props, predicatePrefix));
            }
            stages.add(new Stage(alias, t, p, negate != null && Boolean.parseBoolean(negate.toString())));
        }
        return stages;
    }

    static ObjectNode handle(JsonNode req) {
        ObjectNode answer = MAPPER.createObjectNode();
        JsonConverter keys = converter(req.get("key_cfg"), true);
        JsonConverter values = converter(req.get("value_cfg"), false);
        Map<String, String> props = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = req.get("props").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            props.put(e.getKey(), e.getValue().asText());
        }
        List<Stage> stages;
        try {
            stages = stages(props);
        } catch (Throwable t) {
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException ? t.getCause() : t;
            answer.put("config_error", describe(cause));
            return answer;
        }
        ArrayNode results = answer.putArray("results");
        try {
            for (JsonNode r : req.get("records")) {
                results.add(record(r, keys, values, stages));
            }
        } finally {
            for (Stage s : stages) s.close();
        }
        return answer;
    }

    static byte[] bytes(JsonNode n) {
        return n == null || n.isNull() ? null : Base64.getDecoder().decode(n.asText());
    }

    static ObjectNode record(JsonNode r, JsonConverter keys, JsonConverter values, List<Stage> stages) {
        ObjectNode out = MAPPER.createObjectNode();
        String topic = r.get("topic").asText();
        SchemaAndValue key;
        SchemaAndValue value;
        try {
            key = keys.toConnectData(topic, bytes(r.get("key")));
        } catch (Throwable t) {
            out.put("decode_error", "key: " + describe(t));
            return out;
        }
        try {
            value = values.toConnectData(topic, bytes(r.get("value")));
        } catch (Throwable t) {
            out.put("decode_error", "value: " + describe(t));
            return out;
        }
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode h : r.get("headers")) {
            String name = h.get(0).asText();
            headers.add(name, HEADERS.toConnectHeader(topic, name, bytes(h.get(1))));
        }
        JsonNode ts = r.get("ts");
        SinkRecord record = new SinkRecord(topic, r.get("partition").asInt(), key.schema(), key.value(),
                value.schema(), value.value(), r.get("offset").asLong(),
                ts == null || ts.isNull() ? null : ts.asLong(), TimestampType.CREATE_TIME, headers);
        for (int i = 0; i < stages.size(); i++) {
            Stage stage = stages.get(i);
            try {
                record = stage.apply(record);
            } catch (Throwable t) {
                ObjectNode e = out.putObject("error");
                e.put("stage", i);
                e.put("alias", stage.alias);
                e.put("class", t.getClass().getSimpleName());
                e.put("message", String.valueOf(t.getMessage()));
                return out;
            }
            if (record == null) {
                out.put("dropped", i);
                return out;
            }
        }
        out.put("topic", record.topic());
        if (record.kafkaPartition() == null) out.putNull("partition");
        else out.put("partition", record.kafkaPartition());
        if (record.timestamp() == null) out.putNull("ts");
        else out.put("ts", record.timestamp());
        out.put("key_schema", signature(record.keySchema()));
        out.put("value_schema", signature(record.valueSchema()));
        out.put("key_text", String.valueOf(record.key()));
        out.put("value_text", String.valueOf(record.value()));
        final SinkRecord done = record;
        out.set("key", encoded(() -> keys.fromConnectData(done.topic(), done.keySchema(), done.key())));
        out.set("value", encoded(() -> values.fromConnectData(done.topic(), done.valueSchema(), done.value())));
        ArrayNode hs = out.putArray("headers");
        for (Header h : record.headers()) {
            ArrayNode a = hs.addArray();
            a.add(h.key());
            a.add(signature(h.schema()));
            a.add(String.valueOf(h.value()));
            a.add(encoded(() -> values.fromConnectHeader(done.topic(), h.key(), h.schema(), h.value())));
            a.add(encoded(() -> HEADERS.fromConnectHeader(done.topic(), h.key(), h.schema(), h.value())));
        }
        return out;
    }

    /** "TYPE", then " name" and " optional" where they apply; null for no schema. */
    static String signature(Schema s) {
        if (s == null) return null;
        StringBuilder b = new StringBuilder(s.type().toString());
        if (s.name() != null) b.append(' ').append(s.name());
        if (s.isOptional()) b.append(" optional");
        return b.toString();
    }

    interface Encoding {
        byte[] run();
    }

    static ObjectNode encoded(Encoding e) {
        ObjectNode o = MAPPER.createObjectNode();
        try {
            byte[] b = e.run();
            if (b == null) o.put("null", true);
            else o.put("b64", Base64.getEncoder().encodeToString(b));
        } catch (Throwable t) {
            o.put("error", describe(t));
        }
        return o;
    }
}
