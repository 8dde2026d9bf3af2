// Test harness for kconnect: drives Apache Kafka's real JsonConverter over a line protocol.
// One request per stdin line (JSON), one answer per stdout line:
//   {"op":"encode","cfg":{...},"schema":<neutral>,"value":<neutral>} -> "OK <base64>" | "NULL" | "ERR <message>"
//   {"op":"reencode","cfg":{...},"data":"<base64>"}  (toConnectData then fromConnectData)
// The neutral description is kconnect's own format (see tests/integration/test_json_converter_java.py),
// so Java builds Schema/Struct objects without going through the converter under test.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class JsonHarness {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final Map<String, JsonConverter> CONVERTERS = new HashMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String answer;
            try {
                answer = handle(MAPPER.readTree(line));
            } catch (Throwable t) {
                String msg = String.valueOf(t.getMessage()).replace('\n', ' ').replace('\r', ' ');
                answer = "ERR " + t.getClass().getSimpleName() + ": " + msg;
            }
            out.println(answer);
            out.flush();
        }
    }

    static JsonConverter converter(JsonNode cfg) {
        String key = cfg.toString();
        return CONVERTERS.computeIfAbsent(key, k -> {
            Map<String, Object> conf = new HashMap<>();
            Iterator<Map.Entry<String, JsonNode>> it = cfg.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                conf.put(e.getKey(), e.getValue().asText());
            }
            JsonConverter c = new JsonConverter();
            c.configure(conf, false);
            return c;
        });
    }

    static String handle(JsonNode req) {
        JsonConverter c = converter(req.get("cfg"));
        String op = req.get("op").asText();
        byte[] bytes;
        if (op.equals("encode")) {
            Schema schema = buildSchema(req.get("schema"));
            Object value = buildValue(schema, req.get("value"));
            bytes = c.fromConnectData("t", schema, value);
        } else if (op.equals("reencode")) {
            SchemaAndValue sv = c.toConnectData("t", Base64.getDecoder().decode(req.get("data").asText()));
            bytes = c.fromConnectData("t", sv.schema(), sv.value());
        } else {
            throw new IllegalArgumentException("unknown op " + op);
        }
        return bytes == null ? "NULL" : "OK " + Base64.getEncoder().encodeToString(bytes);
    }

    static Schema buildSchema(JsonNode n) {
        if (n == null || n.isNull()) return null;
        String t = n.get("t").asText();
        SchemaBuilder b;
        switch (t) {
            case "int8": b = SchemaBuilder.int8(); break;
            case "int16": b = SchemaBuilder.int16(); break;
            case "int32": b = SchemaBuilder.int32(); break;
            case "int64": b = SchemaBuilder.int64(); break;
            case "float32": b = SchemaBuilder.float32(); break;
            case "float64": b = SchemaBuilder.float64(); break;
            case "boolean": b = SchemaBuilder.bool(); break;
            case "string": b = SchemaBuilder.string(); break;
            case "bytes": b = SchemaBuilder.bytes(); break;
            case "array": b = SchemaBuilder.array(buildSchema(n.get("items"))); break;
            case "map": b = SchemaBuilder.map(buildSchema(n.get("keys")), buildSchema(n.get("values"))); break;
            case "struct":
                b = SchemaBuilder.struct();
                for (JsonNode f : n.get("fields")) b.field(f.get(0).asText(), buildSchema(f.get(1)));
                break;
            default: throw new IllegalArgumentException("type " + t);
        }
        if (n.path("opt").asBoolean(false)) b.optional();
        if (n.hasNonNull("name")) b.name(n.get("name").asText());
        if (n.hasNonNull("ver")) b.version(n.get("ver").asInt());
        if (n.hasNonNull("doc")) b.doc(n.get("doc").asText());
        if (n.hasNonNull("params")) for (JsonNode p : n.get("params")) b.parameter(p.get(0).asText(), p.get(1).asText());
        if (n.hasNonNull("def")) b.defaultValue(buildValue(b.build(), n.get("def")));
        return b.build();
    }

    static Object buildValue(Schema s, JsonNode n) {
        if (n == null || n.isNull()) return null;
        String k = n.get("k").asText();
        JsonNode v = n.get("v");
        switch (k) {
            case "i8": return Byte.valueOf(v.asText());
            case "i16": return Short.valueOf(v.asText());
            case "i32": return Integer.valueOf(v.asText());
            case "i64": return Long.valueOf(v.asText());
            case "f32": return Float.intBitsToFloat((int) Long.parseLong(v.asText(), 16));
            case "f64": return Double.longBitsToDouble(Long.parseUnsignedLong(v.asText(), 16));
            case "bool": return v.asBoolean();
            case "str": return v.asText();
            case "bytes": return hex(v.asText());
            case "dec": return new BigDecimal(new BigInteger(v.asText()), n.get("s").asInt());
            case "date": return new java.util.Date(v.asLong() * 86400000L);
            case "time":
            case "ts": return new java.util.Date(v.asLong());
            case "arr": {
                List<Object> l = new ArrayList<>();
                Schema item = s == null ? null : s.valueSchema();
                for (JsonNode e : v) l.add(buildValue(item, e));
                return l;
            }
            case "map": {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (JsonNode e : v) m.put(buildValue(s == null ? null : s.keySchema(), e.get(0)),
                        buildValue(s == null ? null : s.valueSchema(), e.get(1)));
                return m;
            }
            case "struct": {
                Struct st = new Struct(s);
                int i = 0;
                for (Field f : s.fields()) {
                    Object fv = buildValue(f.schema(), v.get(i++));
                    if (fv != null) st.put(f, fv);
                }
                return st;
            }
            default: throw new IllegalArgumentException("kind " + k);
        }
    }

    static byte[] hex(String h) {
        byte[] out = new byte[h.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return out;
    }
}
