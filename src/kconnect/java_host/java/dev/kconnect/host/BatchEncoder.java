package dev.kconnect.host;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Encodes records as the binary batch of protocol v2 (see {@code PROTOCOL.md}): the records of
 * one {@code source_task_poll}, or (v5) what a run of transformations made of a batch, remembering
 * which schemas the worker already has for this handle. Any {@link ConnectRecord} goes; only a
 * {@link SourceRecord} has a source partition and offset (null maps for the others).
 *
 * <p>The format, big-endian; {@code str} = i32 UTF-8 byte length (-1: null), then the bytes:
 * <pre>
 * batch      := u32 n_schemas, (i32 schema_id, schema) * n_schemas, u32 n_records, record * n_records
 * schema     := u8 type, u8 flags, [str name], [i32 version], [str doc],
 *               [u32 n_params, (str key, str value) * n_params], body, [default: value of this schema]
 *   type  0 INT8 1 INT16 2 INT32 3 INT64 4 FLOAT32 5 FLOAT64 6 BOOLEAN 7 STRING 8 BYTES 9 ARRAY 10 MAP 11 STRUCT
 *   flags bit0 optional, bit1 name, bit2 version, bit3 doc, bit4 params, bit5 default
 *   body  ARRAY: schema; MAP: key schema, value schema; STRUCT: u32 n, (str name, schema) * n
 * record     := i64 seq, schemaless partition, schemaless offset, str topic, i32 kafka partition (-1 null),
 *               key, value, i64 timestamp (Long.MIN_VALUE null), u32 n_headers, (str key, i32 ref, value) * n
 * key, value := i32 schema ref (-1: none), then a value of that schema, or a schemaless value
 * value      := u8 0 (null) | u8 1, then INT8 i8, INT16 i16, INT32 i32, INT64 i64, FLOAT32 f32,
 *               FLOAT64 f64, BOOLEAN u8, STRING str, BYTES i32 n + bytes, ARRAY i32 n + value*,
 *               MAP i32 n + (value, value)*, STRUCT value per field in order
 *               (logical types as their physical value: Decimal.fromLogical bytes, Date days,
 *               Time ms of day, Timestamp ms since epoch)
 * schemaless := u8 tag: 0 null, 1 boolean u8, 2 i8, 3 i16, 4 i32, 5 i64, 6 f32, 7 f64, 8 str,
 *               9 i32 n + bytes, 10 i32 n + schemaless*, 11 i32 n + (schemaless, schemaless)*,
 *               12 i32 schema ref + value (a Struct); java.util.Date as 5 (ms), BigDecimal as 8 (toString)
 * </pre>
 *
 * <p>Schema ids are per handle, from 0; a schema is defined once, in the first batch that refers
 * to it. Two schemas are the same when their definitions encode alike — which is
 * {@link Schema#equals} for {@link ConnectSchema}s, and also makes a {@code SchemaBuilder}
 * (whose {@code equals} is identity) share the id of an equal built schema. Struct fields are
 * sent as stored ({@link Struct#getWithoutDefault}): a null field whose schema has a default is
 * sent as null, and the worker's converter applies the default as Kafka's do.
 *
 * <p>Not thread-safe: the caller serialises the encodings of one handle. An encoding that fails
 * (a value that does not fit its schema: {@link DataException}) leaves the known schemas as they
 * were; so does a record that {@link #add} refuses, for the batch being built.
 */
final class BatchEncoder {

    /** Identity shortcut for immutable schemas, dropped when it grows past this. */
    private static final int IDENTITY_CACHE_LIMIT = 4096;

    private final Map<Schema, Integer> byIdentity = new IdentityHashMap<>();
    private final Map<ByteBuffer, Integer> byDefinition = new HashMap<>();
    private int nextId;

    // the batch being encoded
    private final Map<Schema, Integer> newByIdentity = new IdentityHashMap<>();
    private final Map<ByteBuffer, Integer> newByDefinition = new HashMap<>();
    private Out definitions;
    private int newSchemas;
    private Out body;
    private int count;
    private int firstNewId;
    // what the record being added defined, taken back when it cannot be encoded
    private final List<Schema> recordIdentities = new ArrayList<>();
    private final List<ByteBuffer> recordDefinitions = new ArrayList<>();

    /**
     * Encodes records numbered {@code firstSeq}, {@code firstSeq + 1}, ... as one batch; a record
     * that cannot be encoded fails the whole batch (the known schemas stay as they were).
     */
    byte[] encode(List<? extends ConnectRecord<?>> records, long firstSeq) {
        begin();
        try {
            for (int i = 0; i < records.size(); i++) {
                add(firstSeq + i, records.get(i));
            }
            return finish();
        } finally {
            abort();
        }
    }

    /** Starts a batch: {@link #add} records to it, then {@link #finish} it (or {@link #abort}). */
    void begin() {
        abort();
        definitions = new Out();
        body = new Out();
        newSchemas = 0;
        count = 0;
        firstNewId = nextId;
    }

    /**
     * Adds a record with its seq (the {@link SourceRecord}'s partition and offset, null maps for
     * any other record). A record that cannot be encoded throws ({@link DataException} for a
     * value that does not fit its schema) and leaves the batch as it was before the call, so the
     * caller may add another record instead.
     */
    void add(long seq, ConnectRecord<?> record) {
        int bodyMark = body.size();
        int definitionsMark = definitions.size();
        int schemasMark = newSchemas;
        int idMark = nextId;
        recordIdentities.clear();
        recordDefinitions.clear();
        try {
            writeRecord(body, seq, record);
            count++;
        } catch (RuntimeException e) {
            body.truncate(bodyMark);
            definitions.truncate(definitionsMark);
            newSchemas = schemasMark;
            nextId = idMark;
            for (Schema schema : recordIdentities) {
                newByIdentity.remove(schema);
            }
            for (ByteBuffer definition : recordDefinitions) {
                newByDefinition.remove(definition);
            }
            throw e;
        } finally {
            recordIdentities.clear();
            recordDefinitions.clear();
        }
    }

    /** The batch of the records added since {@link #begin}; the worker now has its schemas. */
    byte[] finish() {
        Out batch = new Out();
        batch.i32(newSchemas);
        batch.append(definitions);
        batch.i32(count);
        batch.append(body);
        if (byIdentity.size() + newByIdentity.size() > IDENTITY_CACHE_LIMIT) {
            byIdentity.clear();
        }
        byIdentity.putAll(newByIdentity);
        byDefinition.putAll(newByDefinition);
        firstNewId = nextId;
        clear();
        return batch.toByteArray();
    }

    /** Forgets the batch being built (if any) and the schema ids it took. */
    void abort() {
        if (definitions != null) {
            nextId = firstNewId;
        }
        clear();
    }

    private void clear() {
        definitions = null;
        body = null;
        newByIdentity.clear();
        newByDefinition.clear();
    }

    private void writeRecord(Out out, long seq, ConnectRecord<?> record) {
        SourceRecord source = record instanceof SourceRecord ? (SourceRecord) record : null;
        out.i64(seq);
        writeSchemaless(out, source == null ? null : source.sourcePartition());
        writeSchemaless(out, source == null ? null : source.sourceOffset());
        out.str(record.topic());
        out.i32(record.kafkaPartition() == null ? -1 : record.kafkaPartition());
        writeTop(out, record.keySchema(), record.key());
        writeTop(out, record.valueSchema(), record.value());
        out.i64(record.timestamp() == null ? Long.MIN_VALUE : record.timestamp());
        int nHeaders = 0;
        for (Header ignored : record.headers()) {
            nHeaders++;
        }
        out.i32(nHeaders);
        for (Header header : record.headers()) {
            out.str(header.key());
            writeTop(out, header.schema(), header.value());
        }
    }

    /** A key, value or header value: its schema ref, then the value. */
    private void writeTop(Out out, Schema schema, Object value) {
        if (schema == null) {
            out.i32(-1);
            writeSchemaless(out, value);
        } else {
            out.i32(ref(schema));
            writeValue(out, schema, value);
        }
    }

    /** The id of a schema, defining it in this batch when the worker does not have it yet. */
    private int ref(Schema schema) {
        Integer id = byIdentity.get(schema);
        if (id == null) {
            id = newByIdentity.get(schema);
        }
        if (id != null) {
            return id;
        }
        Out definition = new Out();
        writeSchema(definition, schema);
        ByteBuffer key = ByteBuffer.wrap(definition.toByteArray());
        id = byDefinition.get(key);
        if (id == null) {
            id = newByDefinition.get(key);
        }
        if (id == null) {
            id = nextId++;
            newByDefinition.put(key, id);
            recordDefinitions.add(key);
            definitions.i32(id);
            definitions.append(definition);
            newSchemas++;
        }
        if (schema instanceof ConnectSchema) { // a SchemaBuilder may still change
            newByIdentity.put(schema, id);
            recordIdentities.add(schema);
        }
        return id;
    }

    static void writeSchema(Out out, Schema schema) {
        Map<String, String> params = schema.parameters();
        Object defaultValue = schema.defaultValue();
        int flags = (schema.isOptional() ? 1 : 0)
                | (schema.name() != null ? 2 : 0)
                | (schema.version() != null ? 4 : 0)
                | (schema.doc() != null ? 8 : 0)
                | (params != null ? 16 : 0)
                | (defaultValue != null ? 32 : 0);
        out.u8(typeCode(schema.type()));
        out.u8(flags);
        if (schema.name() != null) {
            out.str(schema.name());
        }
        if (schema.version() != null) {
            out.i32(schema.version());
        }
        if (schema.doc() != null) {
            out.str(schema.doc());
        }
        if (params != null) {
            out.i32(params.size());
            for (Map.Entry<String, String> e : params.entrySet()) {
                out.str(e.getKey());
                out.str(e.getValue());
            }
        }
        switch (schema.type()) {
            case ARRAY:
                writeSchema(out, inner(schema, schema.valueSchema()));
                break;
            case MAP:
                writeSchema(out, inner(schema, schema.keySchema()));
                writeSchema(out, inner(schema, schema.valueSchema()));
                break;
            case STRUCT:
                List<Field> fields = schema.fields();
                out.i32(fields.size());
                for (Field field : fields) {
                    out.str(field.name());
                    writeSchema(out, field.schema());
                }
                break;
            default:
                break;
        }
        if (defaultValue != null) {
            writeValue(out, schema, defaultValue);
        }
    }

    /** An ARRAY's or MAP's element schema; the grammar has no form for a missing one. */
    private static Schema inner(Schema schema, Schema element) {
        if (element == null) {
            throw new DataException("An " + schema.type() + " schema without its key or value schema cannot be"
                    + " sent to the worker (Values' inference gives one for a map or list of mixed values)");
        }
        return element;
    }

    private static int typeCode(Schema.Type type) {
        switch (type) {
            case INT8: return 0;
            case INT16: return 1;
            case INT32: return 2;
            case INT64: return 3;
            case FLOAT32: return 4;
            case FLOAT64: return 5;
            case BOOLEAN: return 6;
            case STRING: return 7;
            case BYTES: return 8;
            case ARRAY: return 9;
            case MAP: return 10;
            case STRUCT: return 11;
            default: throw new DataException("Unknown schema type " + type);
        }
    }

    /** A value of a schema: u8 0 for null, else u8 1 and the value's physical form. */
    static void writeValue(Out out, Schema schema, Object value) {
        if (value == null) {
            out.u8(0);
            return;
        }
        out.u8(1);
        Object physical = physical(schema, value);
        try {
            switch (schema.type()) {
                case INT8:
                    out.u8((Byte) physical);
                    break;
                case INT16:
                    out.i16((Short) physical);
                    break;
                case INT32:
                    out.i32((Integer) physical);
                    break;
                case INT64:
                    out.i64((Long) physical);
                    break;
                case FLOAT32:
                    out.i32(Float.floatToRawIntBits((Float) physical));
                    break;
                case FLOAT64:
                    out.i64(Double.doubleToRawLongBits((Double) physical));
                    break;
                case BOOLEAN:
                    out.u8((Boolean) physical ? 1 : 0);
                    break;
                case STRING:
                    out.str((String) physical);
                    break;
                case BYTES:
                    out.bytes(physical);
                    break;
                case ARRAY:
                    Collection<?> items = (Collection<?>) physical;
                    out.i32(items.size());
                    for (Object item : items) {
                        writeValue(out, schema.valueSchema(), item);
                    }
                    break;
                case MAP:
                    Map<?, ?> map = (Map<?, ?>) physical;
                    out.i32(map.size());
                    for (Map.Entry<?, ?> e : map.entrySet()) {
                        writeValue(out, schema.keySchema(), e.getKey());
                        writeValue(out, schema.valueSchema(), e.getValue());
                    }
                    break;
                case STRUCT:
                    Struct struct = (Struct) physical;
                    for (Field field : schema.fields()) {
                        writeValue(out, field.schema(), struct.getWithoutDefault(field.name()));
                    }
                    break;
                default:
                    throw new DataException("Unknown schema type " + schema.type());
            }
        } catch (ClassCastException e) {
            throw new DataException("Invalid Java object for schema " + describe(schema) + ": "
                    + physical.getClass().getName(), e);
        }
    }

    /** A logical type's value as Connect's converters see it; any other value as itself. */
    private static Object physical(Schema schema, Object value) {
        String name = schema.name();
        if (name == null) {
            return value;
        }
        switch (name) {
            case Decimal.LOGICAL_NAME:
                return value instanceof BigDecimal ? Decimal.fromLogical(schema, (BigDecimal) value) : value;
            case Date.LOGICAL_NAME:
                return value instanceof java.util.Date ? (Object) Date.fromLogical(schema, (java.util.Date) value) : value;
            case Time.LOGICAL_NAME:
                return value instanceof java.util.Date ? (Object) Time.fromLogical(schema, (java.util.Date) value) : value;
            case Timestamp.LOGICAL_NAME:
                return value instanceof java.util.Date ? (Object) Timestamp.fromLogical(schema, (java.util.Date) value) : value;
            default:
                return value;
        }
    }

    /** A value without a schema, tagged with its Java type. */
    private void writeSchemaless(Out out, Object value) {
        if (value == null) {
            out.u8(0);
        } else if (value instanceof Boolean) {
            out.u8(1);
            out.u8((Boolean) value ? 1 : 0);
        } else if (value instanceof Byte) {
            out.u8(2);
            out.u8((Byte) value);
        } else if (value instanceof Short) {
            out.u8(3);
            out.i16((Short) value);
        } else if (value instanceof Integer) {
            out.u8(4);
            out.i32((Integer) value);
        } else if (value instanceof Long) {
            out.u8(5);
            out.i64((Long) value);
        } else if (value instanceof Float) {
            out.u8(6);
            out.i32(Float.floatToRawIntBits((Float) value));
        } else if (value instanceof Double) {
            out.u8(7);
            out.i64(Double.doubleToRawLongBits((Double) value));
        } else if (value instanceof String) {
            out.u8(8);
            out.str((String) value);
        } else if (value instanceof byte[] || value instanceof ByteBuffer) {
            out.u8(9);
            out.bytes(value);
        } else if (value instanceof Collection) {
            Collection<?> items = (Collection<?>) value;
            out.u8(10);
            out.i32(items.size());
            for (Object item : items) {
                writeSchemaless(out, item);
            }
        } else if (value instanceof Map) {
            Map<?, ?> map = (Map<?, ?>) value;
            out.u8(11);
            out.i32(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                writeSchemaless(out, e.getKey());
                writeSchemaless(out, e.getValue());
            }
        } else if (value instanceof Struct) {
            Struct struct = (Struct) value;
            out.u8(12);
            out.i32(ref(struct.schema()));
            writeValue(out, struct.schema(), struct);
        } else if (value instanceof java.util.Date) {
            out.u8(5);
            out.i64(((java.util.Date) value).getTime());
        } else if (value instanceof BigDecimal) {
            out.u8(8);
            out.str(value.toString());
        } else {
            throw new DataException("Java class " + value.getClass().getName()
                    + " does not have corresponding schema type.");
        }
    }

    private static String describe(Schema schema) {
        return schema.type() + (schema.name() == null ? "" : " (" + schema.name() + ")");
    }

    /** A growable big-endian byte buffer. */
    static final class Out {
        private byte[] buf = new byte[256];
        private int size;

        private void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }

        void u8(int v) {
            ensure(1);
            buf[size++] = (byte) v;
        }

        void i16(int v) {
            ensure(2);
            buf[size++] = (byte) (v >>> 8);
            buf[size++] = (byte) v;
        }

        void i32(int v) {
            ensure(4);
            buf[size++] = (byte) (v >>> 24);
            buf[size++] = (byte) (v >>> 16);
            buf[size++] = (byte) (v >>> 8);
            buf[size++] = (byte) v;
        }

        void i64(long v) {
            i32((int) (v >>> 32));
            i32((int) v);
        }

        void str(String s) {
            if (s == null) {
                i32(-1);
                return;
            }
            raw(s.getBytes(StandardCharsets.UTF_8));
        }

        /** A {@code byte[]} or a {@link ByteBuffer}'s remaining bytes, with their i32 length. */
        void bytes(Object value) {
            if (value instanceof ByteBuffer) {
                ByteBuffer view = ((ByteBuffer) value).duplicate();
                byte[] copy = new byte[view.remaining()];
                view.get(copy);
                raw(copy);
            } else {
                raw((byte[]) value);
            }
        }

        private void raw(byte[] bytes) {
            i32(bytes.length);
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buf, size, bytes.length);
            size += bytes.length;
        }

        void append(Out other) {
            ensure(other.size);
            System.arraycopy(other.buf, 0, buf, size, other.size);
            size += other.size;
        }

        int size() {
            return size;
        }

        /** Drops everything written after the first {@code mark} bytes. */
        void truncate(int mark) {
            size = mark;
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, size);
        }
    }
}
