// Java side of bench/registry_converters.py --format protobuf: the per-record work of
// Confluent's io.confluent.connect.protobuf.ProtobufConverter once the registry's answers are
// cached, written here with protobuf-java because Confluent's converter is not on Maven Central
// (and Apicurio's 2.6.13 converter module has no Protobuf <-> Connect mapping). It is a
// reference for cost, not for bytes: the bench prints "n/a" for its mismatches.
//
// Per record:
//   fromConnectData  the schema id and message descriptor looked up by Connect schema (a
//                    HashMap, as Confluent's ProtobufData caches fromConnectSchema by schema);
//                    Connect Struct -> DynamicMessage field by field (int8/int16 as int32, bytes as
//                    ByteString, Decimal as confluent.type.Decimal, Date as google.type.Date, Time
//                    as google.type.TimeOfDay, Timestamp as google.protobuf.Timestamp, arrays as
//                    repeated fields, maps as repeated key/value entries, nulls left unset);
//                    magic byte 0, the 4-byte id, the message indexes (a single 0 for the first
//                    message), DynamicMessage.writeTo.
//   toConnectData    the id read from the prefix, the message indexes read (zig-zag varints),
//                    DynamicMessage.parseFrom with the id's descriptor, the message -> Connect by
//                    the same rules (an unset field with presence -> null).
// The descriptors and Connect schema of each registry id are not derived here (ProtobufData is
// Confluent Community licensed and not on Maven Central; parsing .proto text needs a parser Java
// lacks): the bench gives them, as kconnect's converter resolved them, in the file named by
// "bench.schemas" ({"key" | "value": {"<id>": {"connect": <Kafka JsonConverter schema JSON>,
// "descriptors": <base64 FileDescriptorSet, imports first>, "file": <name>, "indexes": [..]}}});
// building them happens once per id, as Confluent's converter caches them.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
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
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class ProtobufBenchConverter implements Converter {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DAY_MS = 86_400_000L;

    /** What one registry id stands for: its Connect schema, its file, and the written message. */
    private static final class Entry {
        final int id;
        final Schema schema;
        final FileDescriptor file;
        final Descriptor message;

        Entry(int id, Schema schema, FileDescriptor file, Descriptor message) {
            this.id = id;
            this.schema = schema;
            this.file = file;
            this.message = message;
        }
    }

    private final Map<Integer, Entry> byId = new HashMap<>();
    private final Map<Schema, Entry> bySchema = new HashMap<>();

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
                JsonNode node = e.getValue();
                int id = Integer.parseInt(e.getKey());
                Schema schema = schemaReader.asConnectSchema(node.get("connect"));
                FileDescriptor file = build(FileDescriptorSet.parseFrom(Base64.getDecoder().decode(node.get("descriptors").asText())),
                        node.get("file").asText());
                List<Integer> indexes = new ArrayList<>();
                for (JsonNode i : node.path("indexes")) indexes.add(i.asInt());
                Entry entry = new Entry(id, schema, file, message(file, indexes));
                byId.put(id, entry);
                if (schema != null) bySchema.putIfAbsent(schema, entry);
            }
        } catch (IOException | DescriptorValidationException e) {
            throw new IllegalArgumentException("cannot read " + path + ": " + e, e);
        }
    }

    private static FileDescriptor build(FileDescriptorSet set, String main) throws DescriptorValidationException {
        Map<String, FileDescriptor> built = new HashMap<>();
        for (FileDescriptorProto p : set.getFileList()) {
            List<FileDescriptor> deps = new ArrayList<>();
            for (String d : p.getDependencyList()) {
                FileDescriptor dep = built.get(d);
                if (dep == null) throw new IllegalArgumentException(p.getName() + " imports " + d + ", not given before it");
                deps.add(dep);
            }
            built.put(p.getName(), FileDescriptor.buildFrom(p, deps.toArray(new FileDescriptor[0])));
        }
        return built.get(main);
    }

    private static Descriptor message(FileDescriptor file, List<Integer> indexes) {
        if (indexes.isEmpty()) indexes = List.of(0);
        Descriptor d = file.getMessageTypes().get(indexes.get(0));
        for (int i = 1; i < indexes.size(); i++) d = d.getNestedTypes().get(indexes.get(i));
        return d;
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        if (value == null) return null;
        Entry entry = bySchema.get(schema);
        if (entry == null) throw new DataException("no registry id for " + schema + " in bench.schemas");
        DynamicMessage message = struct(entry.message, schema, (Struct) value);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0);
            out.write(ByteBuffer.allocate(4).putInt(entry.id).array());
            out.write(0);  // message indexes [0], written as Confluent writes them: one zero byte
            message.writeTo(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new DataException("Failed to serialize Protobuf data from topic " + topic, e);
        }
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) return SchemaAndValue.NULL;
        ByteBuffer buf = ByteBuffer.wrap(value);
        if (buf.get() != 0) throw new DataException("Unknown magic byte!");
        Entry entry = byId.get(buf.getInt());
        if (entry == null) throw new DataException("schema id not in bench.schemas");
        try {
            CodedInputStream in = CodedInputStream.newInstance(value, 5, value.length - 5);
            int count = in.readSInt32();
            List<Integer> indexes = new ArrayList<>();
            for (int i = 0; i < count; i++) indexes.add(in.readSInt32());
            Descriptor d = count == 0 ? entry.file.getMessageTypes().get(0) : message(entry.file, indexes);
            DynamicMessage message = DynamicMessage.parseFrom(d, in);
            return new SchemaAndValue(entry.schema, toStruct(entry.schema, message));
        } catch (IOException e) {
            throw new DataException("Failed to deserialize Protobuf data for topic " + topic, e);
        }
    }

    // -- Connect -> Protobuf ----------------------------------------------------------------

    private static DynamicMessage struct(Descriptor d, Schema s, Struct st) {
        DynamicMessage.Builder b = DynamicMessage.newBuilder(d);
        for (Field f : s.fields()) {
            Object v = st.get(f);
            if (v == null) continue;
            FieldDescriptor fd = d.findFieldByName(f.name());
            if (fd == null) throw new DataException("no field " + f.name() + " in " + d.getFullName());
            Schema fs = f.schema();
            if (fs.type() == Schema.Type.MAP && fs.name() == null) {
                Descriptor entry = fd.getMessageType();
                FieldDescriptor kf = entry.findFieldByNumber(1);
                FieldDescriptor vf = entry.findFieldByNumber(2);
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    DynamicMessage.Builder eb = DynamicMessage.newBuilder(entry);
                    if (e.getKey() != null) eb.setField(kf, toProto(kf, fs.keySchema(), e.getKey()));
                    if (e.getValue() != null) eb.setField(vf, toProto(vf, fs.valueSchema(), e.getValue()));
                    b.addRepeatedField(fd, eb.build());
                }
            } else if (fs.type() == Schema.Type.ARRAY) {
                for (Object item : (List<?>) v) {
                    if (item != null) b.addRepeatedField(fd, toProto(fd, fs.valueSchema(), item));
                }
            } else {
                b.setField(fd, toProto(fd, fs, v));
            }
        }
        return b.build();
    }

    private static Object toProto(FieldDescriptor fd, Schema s, Object v) {
        String logical = s.name();
        if (logical != null) {
            switch (logical) {
                case Decimal.LOGICAL_NAME: {
                    BigDecimal dec = (BigDecimal) v;
                    Descriptor t = fd.getMessageType();
                    return DynamicMessage.newBuilder(t)
                            .setField(t.findFieldByName("value"), ByteString.copyFrom(dec.unscaledValue().toByteArray()))
                            .setField(t.findFieldByName("precision"), dec.precision())
                            .setField(t.findFieldByName("scale"), dec.scale())
                            .build();
                }
                case Date.LOGICAL_NAME: {
                    LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(((java.util.Date) v).getTime(), DAY_MS));
                    Descriptor t = fd.getMessageType();
                    return DynamicMessage.newBuilder(t)
                            .setField(t.findFieldByName("year"), day.getYear())
                            .setField(t.findFieldByName("month"), day.getMonthValue())
                            .setField(t.findFieldByName("day"), day.getDayOfMonth())
                            .build();
                }
                case Time.LOGICAL_NAME: {
                    long ms = ((java.util.Date) v).getTime();
                    Descriptor t = fd.getMessageType();
                    return DynamicMessage.newBuilder(t)
                            .setField(t.findFieldByName("hours"), (int) (ms / 3_600_000))
                            .setField(t.findFieldByName("minutes"), (int) (ms / 60_000 % 60))
                            .setField(t.findFieldByName("seconds"), (int) (ms / 1000 % 60))
                            .setField(t.findFieldByName("nanos"), (int) (ms % 1000) * 1_000_000)
                            .build();
                }
                case Timestamp.LOGICAL_NAME: {
                    long ms = ((java.util.Date) v).getTime();
                    Descriptor t = fd.getMessageType();
                    return DynamicMessage.newBuilder(t)
                            .setField(t.findFieldByName("seconds"), Math.floorDiv(ms, 1000L))
                            .setField(t.findFieldByName("nanos"), (int) Math.floorMod(ms, 1000L) * 1_000_000)
                            .build();
                }
                default:
                    break;
            }
        }
        switch (s.type()) {
            case INT8: return ((Byte) v).intValue();
            case INT16: return ((Short) v).intValue();
            case INT32: case INT64: case FLOAT32: case FLOAT64: case BOOLEAN: case STRING:
                return v;
            case BYTES:
                return v instanceof byte[] ? ByteString.copyFrom((byte[]) v) : ByteString.copyFrom(((ByteBuffer) v).duplicate());
            case STRUCT:
                return struct(fd.getMessageType(), s, (Struct) v);
            default:
                throw new DataException("unsupported Protobuf field of " + s.type());
        }
    }

    // -- Protobuf -> Connect ----------------------------------------------------------------

    private static Struct toStruct(Schema s, DynamicMessage m) {
        Descriptor d = m.getDescriptorForType();
        Struct st = new Struct(s);
        for (Field f : s.fields()) {
            FieldDescriptor fd = d.findFieldByName(f.name());
            if (fd == null) continue;
            Schema fs = f.schema();
            Object v;
            if (fd.isRepeated()) {
                int n = m.getRepeatedFieldCount(fd);
                if (fs.type() == Schema.Type.MAP) {
                    Map<Object, Object> out = new LinkedHashMap<>();
                    if (n > 0) {
                        Descriptor entry = fd.getMessageType();
                        FieldDescriptor kf = entry.findFieldByNumber(1);
                        FieldDescriptor vf = entry.findFieldByNumber(2);
                        for (int i = 0; i < n; i++) {
                            DynamicMessage e = (DynamicMessage) m.getRepeatedField(fd, i);
                            out.put(toConnect(fs.keySchema(), e.getField(kf)), toConnect(fs.valueSchema(), e.getField(vf)));
                        }
                    }
                    v = out;
                } else {
                    List<Object> out = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) out.add(toConnect(fs.valueSchema(), m.getRepeatedField(fd, i)));
                    v = out;
                }
            } else if (fd.hasPresence() && !m.hasField(fd)) {
                v = null;
            } else {
                v = toConnect(fs, m.getField(fd));
            }
            if (v != null) st.put(f, v);
        }
        return st;
    }

    private static Object toConnect(Schema s, Object v) {
        String logical = s.name();
        if (logical != null) {
            switch (logical) {
                case Decimal.LOGICAL_NAME: {
                    DynamicMessage m = (DynamicMessage) v;
                    Descriptor t = m.getDescriptorForType();
                    ByteString raw = (ByteString) m.getField(t.findFieldByName("value"));
                    return new BigDecimal(new BigInteger(raw.toByteArray()), (Integer) m.getField(t.findFieldByName("scale")));
                }
                case Date.LOGICAL_NAME: {
                    DynamicMessage m = (DynamicMessage) v;
                    Descriptor t = m.getDescriptorForType();
                    long days = LocalDate.of((Integer) m.getField(t.findFieldByName("year")),
                            (Integer) m.getField(t.findFieldByName("month")),
                            (Integer) m.getField(t.findFieldByName("day"))).toEpochDay();
                    return new java.util.Date(days * DAY_MS);
                }
                case Time.LOGICAL_NAME: {
                    DynamicMessage m = (DynamicMessage) v;
                    Descriptor t = m.getDescriptorForType();
                    long ms = (Integer) m.getField(t.findFieldByName("hours")) * 3_600_000L
                            + (Integer) m.getField(t.findFieldByName("minutes")) * 60_000L
                            + (Integer) m.getField(t.findFieldByName("seconds")) * 1000L
                            + (Integer) m.getField(t.findFieldByName("nanos")) / 1_000_000;
                    return new java.util.Date(ms);
                }
                case Timestamp.LOGICAL_NAME: {
                    DynamicMessage m = (DynamicMessage) v;
                    Descriptor t = m.getDescriptorForType();
                    return new java.util.Date((Long) m.getField(t.findFieldByName("seconds")) * 1000L
                            + (Integer) m.getField(t.findFieldByName("nanos")) / 1_000_000);
                }
                default:
                    break;
            }
        }
        switch (s.type()) {
            case INT8: return ((Integer) v).byteValue();
            case INT16: return ((Integer) v).shortValue();
            case INT32: case INT64: case FLOAT32: case FLOAT64: case BOOLEAN: case STRING:
                return v;
            case BYTES:
                return ((ByteString) v).toByteArray();
            case STRUCT:
                return toStruct(s, (DynamicMessage) v);
            default:
                throw new DataException("unsupported Protobuf field of " + s.type());
        }
    }
}
