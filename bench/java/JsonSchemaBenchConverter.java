// Java side of bench/registry_converters.py --format json-schema: the per-record work of
// Confluent's io.confluent.connect.json.JsonSchemaConverter once the registry's answers are
// cached, written here because Confluent's converter is not on Maven Central (and Apicurio's
// 2.6.13 converter module has no JSON Schema <-> Connect mapping of Confluent's wire format).
// It is a reference for cost, not for bytes: the bench prints "n/a" for its mismatches.
//
// Per record:
//   fromConnectData  the schema id looked up by Connect schema (a HashMap, as Confluent's
//                    JsonSchemaData caches fromConnectSchema by schema); Connect -> a Jackson tree
//                    by the rules Confluent's JSON Schema converter writes (structs as objects
//                    with every field, maps with string keys as objects, other maps as arrays of
//                    {"key", "value"}, bytes and Decimal as base64, Date as days, Time and
//                    Timestamp as milliseconds); magic byte 0, the 4-byte id, Jackson's bytes.
//   toConnectData    the id read from the prefix, the Connect schema for it from a HashMap;
//                    Jackson's readTree of the document; the tree -> Connect by the same rules.
// The Connect schema of each registry id is not derived here (JsonSchemaData is Confluent
// Community licensed and not on Maven Central): the bench gives it, as derived by kconnect's
// converter, in Kafka JsonConverter's schema JSON in the file named by "bench.schemas"
// ({"key" | "value": {"<id>": {"connect": <schema JSON>}}}); turning it into a Schema happens
// once per id, as Confluent's converter caches its toConnectSchema.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class JsonSchemaBenchConverter implements Converter {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    private final Map<Integer, Schema> schemas = new HashMap<>();
    private final Map<Schema, Integer> ids = new HashMap<>();

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        Object path = configs.get("bench.schemas");
        if (path == null) throw new IllegalArgumentException("bench.schemas is required");
        JsonConverter schemaReader = new JsonConverter();
        Map<String, Object> jc = new HashMap<>();
        jc.put("schemas.enable", "true");
        schemaReader.configure(jc, isKey);
        try {
            JsonNode side = JSON.readTree(new File(path.toString())).path(isKey ? "key" : "value");
            Iterator<Map.Entry<String, JsonNode>> it = side.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                Schema s = schemaReader.asConnectSchema(e.getValue().get("connect"));
                int id = Integer.parseInt(e.getKey());
                schemas.put(id, s);
                if (s != null) ids.putIfAbsent(s, id);
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + path, e);
        }
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        if (value == null) return null;
        Integer id = ids.get(schema);
        if (id == null) throw new DataException("no registry id for " + schema + " in bench.schemas");
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0);
            out.write(ByteBuffer.allocate(4).putInt(id).array());
            JSON.writeValue(out, toJson(schema, value));
            return out.toByteArray();
        } catch (IOException e) {
            throw new DataException("Failed to serialize JSON from topic " + topic, e);
        }
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) return SchemaAndValue.NULL;
        ByteBuffer buf = ByteBuffer.wrap(value);
        if (buf.get() != 0) throw new DataException("Unknown magic byte!");
        int id = buf.getInt();
        if (!schemas.containsKey(id)) throw new DataException("schema id " + id + " not in bench.schemas");
        Schema schema = schemas.get(id);
        try {
            JsonNode tree = JSON.readTree(value, 5, value.length - 5);
            return new SchemaAndValue(schema, toConnect(schema, tree));
        } catch (IOException e) {
            throw new DataException("Failed to deserialize JSON for topic " + topic, e);
        }
    }

    // -- Connect -> Jackson -----------------------------------------------------------------

    static JsonNode toJson(Schema s, Object v) {
        if (v == null) return NODES.nullNode();
        if (s == null) return schemaless(v);
        String logical = s.name();
        if (logical != null) {
            switch (logical) {
                case Decimal.LOGICAL_NAME:
                    return NODES.binaryNode(Decimal.fromLogical(s, (BigDecimal) v));
                case Date.LOGICAL_NAME:
                    return NODES.numberNode(Date.fromLogical(s, (java.util.Date) v));
                case Time.LOGICAL_NAME:
                    return NODES.numberNode(Time.fromLogical(s, (java.util.Date) v));
                case Timestamp.LOGICAL_NAME:
                    return NODES.numberNode(Timestamp.fromLogical(s, (java.util.Date) v));
                default:
                    break;
            }
        }
        switch (s.type()) {
            case INT8: return NODES.numberNode((Byte) v);
            case INT16: return NODES.numberNode((Short) v);
            case INT32: return NODES.numberNode((Integer) v);
            case INT64: return NODES.numberNode((Long) v);
            case FLOAT32: return NODES.numberNode((Float) v);
            case FLOAT64: return NODES.numberNode((Double) v);
            case BOOLEAN: return NODES.booleanNode((Boolean) v);
            case STRING: return NODES.textNode((String) v);
            case BYTES: return NODES.binaryNode(bytes(v));
            case ARRAY: {
                ArrayNode a = NODES.arrayNode();
                for (Object item : (List<?>) v) a.add(toJson(s.valueSchema(), item));
                return a;
            }
            case MAP: {
                Map<?, ?> m = (Map<?, ?>) v;
                if (s.keySchema().type() == Schema.Type.STRING) {
                    ObjectNode o = NODES.objectNode();
                    for (Map.Entry<?, ?> e : m.entrySet()) o.set((String) e.getKey(), toJson(s.valueSchema(), e.getValue()));
                    return o;
                }
                ArrayNode a = NODES.arrayNode();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    ObjectNode entry = NODES.objectNode();
                    entry.set("key", toJson(s.keySchema(), e.getKey()));
                    entry.set("value", toJson(s.valueSchema(), e.getValue()));
                    a.add(entry);
                }
                return a;
            }
            case STRUCT: {
                Struct st = (Struct) v;
                ObjectNode o = NODES.objectNode();
                for (Field f : s.fields()) o.set(f.name(), toJson(f.schema(), st.get(f)));
                return o;
            }
            default:
                throw new DataException("unsupported type " + s.type());
        }
    }

    private static JsonNode schemaless(Object v) {
        if (v instanceof Map) {
            ObjectNode o = NODES.objectNode();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) o.set(String.valueOf(e.getKey()), schemaless(e.getValue()));
            return o;
        }
        return JSON.valueToTree(v);
    }

    private static byte[] bytes(Object v) {
        if (v instanceof byte[]) return (byte[]) v;
        ByteBuffer b = ((ByteBuffer) v).duplicate();
        byte[] raw = new byte[b.remaining()];
        b.get(raw);
        return raw;
    }

    // -- Jackson -> Connect -----------------------------------------------------------------

    static Object toConnect(Schema s, JsonNode n) throws IOException {
        if (n == null || n.isNull()) return s == null ? null : s.defaultValue();
        if (s == null) return JSON.treeToValue(n, Object.class);
        String logical = s.name();
        if (logical != null) {
            switch (logical) {
                case Decimal.LOGICAL_NAME:
                    return n.isNumber() ? n.decimalValue().setScale(Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD))) : Decimal.toLogical(s, n.binaryValue());
                case Date.LOGICAL_NAME:
                    return Date.toLogical(s, n.intValue());
                case Time.LOGICAL_NAME:
                    return Time.toLogical(s, n.intValue());
                case Timestamp.LOGICAL_NAME:
                    return Timestamp.toLogical(s, n.longValue());
                default:
                    break;
            }
        }
        switch (s.type()) {
            case INT8: return (byte) n.intValue();
            case INT16: return (short) n.intValue();
            case INT32: return n.intValue();
            case INT64: return n.longValue();
            case FLOAT32: return n.floatValue();
            case FLOAT64: return n.doubleValue();
            case BOOLEAN: return n.booleanValue();
            case STRING: return n.textValue();
            case BYTES: return n.binaryValue();
            case ARRAY: {
                List<Object> out = new ArrayList<>(n.size());
                for (JsonNode item : n) out.add(toConnect(s.valueSchema(), item));
                return out;
            }
            case MAP: {
                Map<Object, Object> out = new LinkedHashMap<>();
                if (n.isObject()) {
                    Iterator<Map.Entry<String, JsonNode>> it = n.fields();
                    while (it.hasNext()) {
                        Map.Entry<String, JsonNode> e = it.next();
                        out.put(e.getKey(), toConnect(s.valueSchema(), e.getValue()));
                    }
                } else {
                    for (JsonNode entry : n) {
                        out.put(toConnect(s.keySchema(), entry.get("key")), toConnect(s.valueSchema(), entry.get("value")));
                    }
                }
                return out;
            }
            case STRUCT: {
                Struct st = new Struct(s);
                for (Field f : s.fields()) {
                    Object v = toConnect(f.schema(), n.get(f.name()));
                    if (v != null) st.put(f, v);
                }
                return st;
            }
            default:
                throw new DataException("unsupported type " + s.type());
        }
    }
}
