// Java side of bench/converters.py: times Apache Kafka's JsonConverter (and optionally the
// ValueToKey + ExtractField$Key chain) on the same records the Python side converts.
// The encode phase keeps each 10,000-record batch's output until the batch is done (as a
// worker does), the decode phase reads records encoded before timing; both sides of the bench
// do the same.
// Usage: java ConverterBench <records> <chain:true|false>; prints one JSON line: per phase
// records/s, and the phase's wall seconds ("<phase>_s") and CPU seconds of this whole JVM
// ("<phase>_cpu_s": getProcessCpuTime, the process's utime + stime, so every thread, JIT
// compiler and GC included; on Linux it counts 10 ms clock ticks). The chain's figures are
// those of its best round.
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.ExtractField;
import org.apache.kafka.connect.transforms.ValueToKey;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

public class ConverterBench {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private static String phase(String name, int n, long t0, long t1, long cpu0, long cpu1) {
        double s = (t1 - t0) / 1e9;
        return "\"" + name + "\":" + (n / s) + ",\"" + name + "_s\":" + s
                + ",\"" + name + "_cpu_s\":" + ((cpu1 - cpu0) / 1e9);
    }

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        boolean chain = args.length > 1 && Boolean.parseBoolean(args[1]);
        Schema schema = SchemaBuilder.struct().name("table01")
                .field("id", Schema.INT32_SCHEMA)
                .field("user_id", Schema.OPTIONAL_STRING_SCHEMA)
                .field("item", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Struct[] values = new Struct[n];
        String[] items = {"apple", "orange", "banana", "melon"};
        for (int i = 0; i < n; i++) {
            values[i] = new Struct(schema).put("id", i).put("user_id", "user0" + (i % 10)).put("item", items[i % 4]);
        }
        JsonConverter conv = new JsonConverter();
        Map<String, Object> cfg = new HashMap<>();
        conv.configure(cfg, false);
        // The records the decode phase reads, encoded before timing.
        byte[][] encoded = new byte[n][];
        for (int i = 0; i < n; i++) encoded[i] = conv.fromConnectData("t", schema, values[i]);
        long sink = 0;
        // warm-up: let the JIT compile the hot paths before timing
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < Math.min(n, 200_000); i++) {
                byte[] b = conv.fromConnectData("t", schema, values[i]);
                sink += conv.toConnectData("t", b).value().hashCode();
            }
        }
        // As a worker does (and as the Python side does): each 10,000-record batch's output
        // is kept until the batch is done, not all n of them.
        int batch = 10_000;
        byte[][] out = new byte[batch][];
        long cpu0 = OS.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) out[i % batch] = conv.fromConnectData("t", schema, values[i]);
        long t1 = System.nanoTime();
        long cpu1 = OS.getProcessCpuTime();
        sink += out[0].length;
        for (int i = 0; i < n; i++) {
            SchemaAndValue sv = conv.toConnectData("t", encoded[i]);
            sink += sv.value() == null ? 0 : 1;
        }
        long t2 = System.nanoTime();
        long cpu2 = OS.getProcessCpuTime();
        String chainPart = "";
        if (chain) {
            ValueToKey<SourceRecord> v2k = new ValueToKey<>();
            Map<String, Object> c1 = new HashMap<>();
            c1.put("fields", "user_id");
            v2k.configure(c1);
            ExtractField.Key<SourceRecord> extract = new ExtractField.Key<>();
            Map<String, Object> c2 = new HashMap<>();
            c2.put("field", "user_id");
            extract.configure(c2);
            // The same work as the Python side: the input records exist before timing (a
            // task's poll() built them), each result is kept until its 10,000-record batch is
            // done; the best of three timed rounds is reported.
            SourceRecord[] recs = new SourceRecord[n];
            for (int i = 0; i < n; i++) recs[i] = new SourceRecord(null, null, "t", null, null, null, schema, values[i]);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < Math.min(n, 200_000); i++) {
                    sink += extract.apply(v2k.apply(recs[i])).key().hashCode();
                }
            }
            SourceRecord[] outRecords = new SourceRecord[batch];
            String best = null;
            long bestNs = Long.MAX_VALUE;
            for (int round = 0; round < 3; round++) {
                long cpu3 = OS.getProcessCpuTime();
                long t3 = System.nanoTime();
                for (int i = 0; i < n; i++) outRecords[i % batch] = extract.apply(v2k.apply(recs[i]));
                long t4 = System.nanoTime();
                long cpu4 = OS.getProcessCpuTime();
                sink += outRecords[0].key().hashCode();
                if (t4 - t3 < bestNs) {
                    bestNs = t4 - t3;
                    best = phase("chain", n, t3, t4, cpu3, cpu4);
                }
            }
            chainPart = "," + best;
        }
        System.out.println("{" + phase("encode", n, t0, t1, cpu0, cpu1) + "," + phase("decode", n, t1, t2, cpu1, cpu2)
                + chainPart + ",\"sink\":" + sink + "}");
    }
}
