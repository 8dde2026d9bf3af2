// Java side of bench/converters.py and bench/smt.py: Kafka Connect's converters, SMTs and
// FileStreamSink rendering, timed per stage over the records of a bench/workloads.py shape.
//
// Usage: java RecordBench <spec.json>
//
// The spec (written by bench/_stages.py) names:
//   records          the records file (bench/workloads.py write_records_file: per record a
//                    big-endian int32 key length, -1 for null, the key bytes, the same for the
//                    value, an int64 timestamp)
//   key_converter, value_converter   {"class": ..., "config": {...}}: instantiated by name and
//                    configured (isKey true / false), as a worker does
//   phases           [{"name": "decode" | "encode" | "render" | "smt:<name>" | "chain:<name>",
//                      "props": {connector properties: transforms, transforms.<alias>.*,
//                                predicates, predicates.<alias>.*}}]
//   batch, rounds, warmup, dump, dump_records
//
// The records are SinkRecords on topic "bench", partition i % 2, offset i, the file's
// timestamp (CREATE_TIME). Phases:
//   decode   toConnectData of each key and value, building the SinkRecords;
//   encode   fromConnectData of the decoded records' keys and values;
//   render   String.valueOf(record.value()) of the decoded records, as FileStreamSink prints;
//   smt:*, chain:*   the connector properties' transformations over the decoded records,
//            built as Kafka's ConnectorConfig builds them (each class instantiated by name and
//            configured with its prefix-stripped settings, "predicate" and "negate" removed) and
//            applied as Kafka's TransformationStage applies them (a stage runs when it has no
//            predicate or when predicate.test(record) differs from negate; null drops the record).
// Every phase runs over the first `warmup` records first (the JIT compiles the hot paths), then
// `rounds` times over all records in `batch`-record batches, each batch's outputs kept until the
// next batch's replace them (as a worker does). Per round: wall seconds and the process's CPU
// seconds (OperatingSystemMXBean.getProcessCpuTime: every thread, JIT and GC included; Linux
// counts 10 ms ticks). Prints one JSON line: {"phases": {name: {"rounds": [[wall_s, cpu_s],
// ...]}}, ...}; a phase that throws has {"error": "<exception>"} instead, and the others run.
// With "dump", after timing, each phase's outputs of the first dump_records records are written
// to that file as JSON ({phase: [text, ...]}) in the format bench/_record_path.py writes for
// kconnect, so the Python side can compare what both runtimes produced.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

import java.io.DataInputStream;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class RecordBench {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final String TOPIC = "bench";

    private static byte[][] keys;
    private static byte[][] values;
    private static long[] timestamps;
    private static SinkRecord[] decoded;
    private static Converter keyConverter;
    private static Converter valueConverter;
    private static long sink;  // keeps the JIT from dropping work whose result is unused

    /** One stage of a chain: Kafka's TransformationStage. */
    private static final class Stage {
        final Transformation<SinkRecord> transformation;
        final Predicate<SinkRecord> predicate;
        final boolean negate;

        Stage(Transformation<SinkRecord> transformation, Predicate<SinkRecord> predicate, boolean negate) {
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
    }

    /** What a phase does to records [from, to), its outputs written to out[0 .. to-from). */
    private interface Work {
        void run(int from, int to, Object[] out);
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode spec = mapper.readTree(new File(args[0]));
        readRecords(spec.get("records").asText());
        int n = keys.length;
        int batch = spec.path("batch").asInt(10_000);
        int rounds = spec.path("rounds").asInt(1);
        int warmup = Math.min(n, spec.path("warmup").asInt(50_000));
        int dumpRecords = Math.min(n, spec.path("dump_records").asInt(300));
        keyConverter = converter(spec.get("key_converter"), true);
        valueConverter = converter(spec.get("value_converter"), false);
        // the records the other phases read, decoded before timing
        decoded = new SinkRecord[n];
        decodeInto(0, n, decoded);

        Map<String, Object> timings = new LinkedHashMap<>();
        Map<String, List<String>> dumps = new LinkedHashMap<>();
        for (JsonNode phase : spec.get("phases")) {
            String name = phase.get("name").asText();
            Map<String, Object> result = new LinkedHashMap<>();
            timings.put(name, result);
            List<Stage> chain = null;
            try {
                chain = name.startsWith("smt:") || name.startsWith("chain:")
                        ? chain(strings(phase.get("props"))) : null;
                Work work = work(name, chain);
                Object[] out = new Object[batch];
                for (int from = 0; from < warmup; from += batch) {
                    work.run(from, Math.min(warmup, from + batch), out);
                }
                List<double[]> got = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    long cpu0 = OS.getProcessCpuTime();
                    long t0 = System.nanoTime();
                    for (int from = 0; from < n; from += batch) {
                        work.run(from, Math.min(n, from + batch), out);
                    }
                    long t1 = System.nanoTime();
                    long cpu1 = OS.getProcessCpuTime();
                    got.add(new double[] {(t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9});
                    sink += out[0] == null ? 0 : 1;
                }
                result.put("rounds", got);
                if (spec.hasNonNull("dump")) {
                    Object[] first = new Object[dumpRecords];
                    work.run(0, dumpRecords, first);
                    dumps.put(name, dumpTexts(name, first));
                }
            } catch (Exception | StackOverflowError e) {
                // a stage that fails on these records is reported, and the other phases still run
                result.put("error", e.toString());
            } finally {
                if (chain != null) {
                    for (Stage s : chain) {
                        s.transformation.close();
                        if (s.predicate != null) s.predicate.close();
                    }
                }
            }
        }
        if (spec.hasNonNull("dump")) {
            mapper.writeValue(new File(spec.get("dump").asText()), dumps);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("records", n);
        result.put("phases", timings);
        result.put("sink", sink);
        System.out.println(mapper.writeValueAsString(result));
    }

    private static Work work(String name, List<Stage> chain) {
        if (name.equals("decode")) {
            return (from, to, out) -> decodeInto(from, to, out);
        }
        if (name.equals("encode")) {
            return (from, to, out) -> {
                for (int i = from; i < to; i++) {
                    SinkRecord r = decoded[i];
                    out[i - from] = new byte[][] {
                        keyConverter.fromConnectData(TOPIC, r.keySchema(), r.key()),
                        valueConverter.fromConnectData(TOPIC, r.valueSchema(), r.value())
                    };
                }
            };
        }
        if (name.equals("render")) {
            return (from, to, out) -> {
                for (int i = from; i < to; i++) out[i - from] = String.valueOf(decoded[i].value());
            };
        }
        if (chain != null) {
            return (from, to, out) -> {
                for (int i = from; i < to; i++) {
                    SinkRecord r = decoded[i];
                    for (Stage s : chain) {
                        r = s.apply(r);
                        if (r == null) break;
                    }
                    out[i - from] = r;
                }
            };
        }
        throw new IllegalArgumentException("unknown phase " + name);
    }

    private static void decodeInto(int from, int to, Object[] out) {
        for (int i = from; i < to; i++) {
            SchemaAndValue k = keyConverter.toConnectData(TOPIC, keys[i]);
            SchemaAndValue v = valueConverter.toConnectData(TOPIC, values[i]);
            out[i - from] = new SinkRecord(TOPIC, i % 2, k.schema(), k.value(), v.schema(), v.value(), i,
                    timestamps[i], TimestampType.CREATE_TIME);
        }
    }

    // -- the records file and the plugins ---------------------------------------------------

    private static void readRecords(String path) throws IOException {
        List<byte[]> k = new ArrayList<>();
        List<byte[]> v = new ArrayList<>();
        List<Long> t = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(path), 1 << 20))) {
            while (true) {
                byte[] key;
                try {
                    key = readBytes(in);
                } catch (EOFException end) {
                    break;
                }
                k.add(key);
                v.add(readBytes(in));
                t.add(in.readLong());
            }
        }
        keys = k.toArray(new byte[0][]);
        values = v.toArray(new byte[0][]);
        timestamps = new long[t.size()];
        for (int i = 0; i < timestamps.length; i++) timestamps[i] = t.get(i);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int len = in.readInt();
        if (len < 0) return null;
        byte[] b = new byte[len];
        in.readFully(b);
        return b;
    }

    private static Map<String, String> strings(JsonNode node) {
        Map<String, String> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    private static Object instance(String className) throws ReflectiveOperationException {
        return Class.forName(className).getDeclaredConstructor().newInstance();
    }

    private static Converter converter(JsonNode node, boolean isKey) throws ReflectiveOperationException {
        Converter c = (Converter) instance(node.get("class").asText());
        c.configure(new HashMap<>(strings(node.path("config"))), isKey);
        return c;
    }

    private static List<String> aliases(String list) {
        List<String> out = new ArrayList<>();
        if (list == null) return out;
        for (String a : list.split(",")) {
            if (!a.trim().isEmpty()) out.add(a.trim());
        }
        return out;
    }

    private static Map<String, Object> withPrefix(Map<String, String> props, String prefix) {
        Map<String, Object> out = new HashMap<>();
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (e.getKey().startsWith(prefix)) out.put(e.getKey().substring(prefix.length()), e.getValue());
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Stage> chain(Map<String, String> props) throws ReflectiveOperationException {
        List<Stage> stages = new ArrayList<>();
        for (String alias : aliases(props.get("transforms"))) {
            Map<String, Object> settings = withPrefix(props, "transforms." + alias + ".");
            Object predicateAlias = settings.remove("predicate");
            Object negate = settings.remove("negate");
            Transformation<SinkRecord> t = (Transformation<SinkRecord>) instance((String) settings.get("type"));
            t.configure(settings);
            Predicate<SinkRecord> p = null;
            if (predicateAlias != null) {
                Map<String, Object> ps = withPrefix(props, "predicates." + predicateAlias + ".");
                p = (Predicate<SinkRecord>) instance((String) ps.get("type"));
                p.configure(ps);
            }
            stages.add(new Stage(t, p, negate != null && Boolean.parseBoolean(negate.toString())));
        }
        return stages;
    }

    // -- what the phases produced, as text both runtimes write alike ------------------------

    private static List<String> dumpTexts(String phase, Object[] outputs) {
        List<String> texts = new ArrayList<>();
        for (Object o : outputs) {
            if (phase.equals("render")) {
                texts.add((String) o);
            } else if (phase.equals("encode")) {
                byte[][] kv = (byte[][]) o;
                texts.add(base64(kv[0]) + "\t" + base64(kv[1]));
            } else {
                texts.add(describe((SinkRecord) o));
            }
        }
        return texts;
    }

    private static String base64(byte[] b) {
        return b == null ? "null" : Base64.getEncoder().encodeToString(b);
    }

    /** topic, partition, timestamp, key schema, key, value schema, value, headers; tab-separated. */
    static String describe(ConnectRecord<?> r) {
        if (r == null) return "null";
        StringBuilder headers = new StringBuilder("[");
        for (Header h : r.headers()) {
            if (headers.length() > 1) headers.append(", ");
            headers.append(h.key()).append(':').append(schema(h.schema())).append('=').append(h.value());
        }
        headers.append(']');
        return r.topic() + "\t" + r.kafkaPartition() + "\t" + r.timestamp() + "\t" + schema(r.keySchema())
                + "\t" + r.key() + "\t" + schema(r.valueSchema()) + "\t" + r.value() + "\t" + headers;
    }

    /** A schema in full: type, name, version, optional (?), parameters, default, and its parts. */
    static String schema(Schema s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder(s.type().name());
        if (s.name() != null) b.append('<').append(s.name()).append('>');
        if (s.version() != null) b.append('v').append(s.version());
        if (s.isOptional()) b.append('?');
        if (s.parameters() != null && !s.parameters().isEmpty()) b.append(s.parameters());
        if (s.defaultValue() != null) b.append("=").append(s.defaultValue());
        switch (s.type()) {
            case STRUCT:
                b.append('{');
                boolean first = true;
                for (Field f : s.fields()) {
                    if (!first) b.append(',');
                    first = false;
                    b.append(f.name()).append(':').append(schema(f.schema()));
                }
                b.append('}');
                break;
            case ARRAY:
                b.append('[').append(schema(s.valueSchema())).append(']');
                break;
            case MAP:
                b.append('{').append(schema(s.keySchema())).append("=>").append(schema(s.valueSchema())).append('}');
                break;
            default:
                break;
        }
        return b.toString();
    }
}
