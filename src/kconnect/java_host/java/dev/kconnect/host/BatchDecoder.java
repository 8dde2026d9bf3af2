package dev.kconnect.host;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.common.record.TimestampType;
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
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Decodes the sink batch of protocol v3 (see {@code PROTOCOL.md}) into {@link SinkRecord}s, and
 * (v5) a batch of v2's grammar into {@link SourceRecord}s, remembering the schemas the worker
 * defined for this handle.
 *
 * <pre>
 * sink_batch  := u32 n_schemas, (i32 schema_id, schema) * n_schemas, u32 n_records, sink_record * n_records
 * sink_record := i64 seq, str topic, i32 partition, i64 offset, i64 timestamp (Long.MIN_VALUE null),
 *                u8 timestamp type (0 NO_TIMESTAMP_TYPE, 1 CREATE_TIME, 2 LOG_APPEND_TIME),
 *                key, value, u32 n_headers, (str key, i32 ref, value) * n,
 *                str original topic, i32 original partition, i64 original offset
 * </pre>
 * with v2's {@code schema}, {@code value} and {@code schemaless} grammars ({@link BatchEncoder}).
 * Values come as Connect's converters give them: logical types as their logical Java values
 * ({@link Decimal#toLogical} etc. of the physical value sent), BYTES as {@code byte[]}, ARRAY as
 * a {@code List}, MAP as a {@code Map} in the order sent, STRUCT as a {@link Struct} of the
 * decoded schema. A null struct field is left unset (so {@code Struct.get} gives its default).
 * Schemas are {@link ConnectSchema}s; a default value is decoded against the schema without it.
 *
 * A source batch's records are v2's {@code record}s ({@link BatchEncoder}); their source partition
 * and offset must be schemaless maps or null.
 *
 * <p>Not thread-safe: one per handle, used under its owner's lock.
 */
final class BatchDecoder {

    /** One decoded batch: the records in batch order and their seq numbers. */
    static final class Decoded<R extends ConnectRecord<R>> {
        final List<R> records;
        final long[] seqs;

        Decoded(List<R> records, long[] seqs) {
            this.records = records;
            this.seqs = seqs;
        }
    }

    private static final Schema.Type[] TYPES = {
        Schema.Type.INT8, Schema.Type.INT16, Schema.Type.INT32, Schema.Type.INT64,
        Schema.Type.FLOAT32, Schema.Type.FLOAT64, Schema.Type.BOOLEAN, Schema.Type.STRING,
        Schema.Type.BYTES, Schema.Type.ARRAY, Schema.Type.MAP, Schema.Type.STRUCT,
    };

    private final Map<Integer, Schema> schemas = new HashMap<>();
    private ByteBuffer in;

    /** A sink batch's {@link SinkRecord}s. */
    Decoded<SinkRecord> decode(byte[] batch) {
        return decode(batch, this::readRecord, "sink");
    }

    /**
     * A source batch's {@link SourceRecord}s (v5): the records of v2's batch grammar, whose
     * source partition and offset must be maps (or null).
     */
    Decoded<SourceRecord> decodeSource(byte[] batch) {
        return decode(batch, this::readSourceRecord, "source");
    }

    private <R extends ConnectRecord<R>> Decoded<R> decode(byte[] batch, Supplier<R> reader,
            String kind) {
        in = ByteBuffer.wrap(batch); // big-endian
        try {
            int nSchemas = count();
            for (int i = 0; i < nSchemas; i++) {
                int id = in.getInt();
                Schema schema = readSchema();
                if (schemas.putIfAbsent(id, schema) != null) {
                    throw new DataException("Schema " + id + " is defined twice");
                }
            }
            int n = count();
            List<R> records = new ArrayList<>(n);
            long[] seqs = new long[n];
            for (int i = 0; i < n; i++) {
                seqs[i] = in.getLong();
                records.add(reader.get());
            }
            if (in.hasRemaining()) {
                throw new DataException("Trailing bytes in a " + kind + " batch: " + in.remaining());
            }
            return new Decoded<>(records, seqs);
        } catch (java.nio.BufferUnderflowException e) {
            throw new DataException("Truncated " + kind + " batch", e);
        } finally {
            in = null;
        }
    }

    private SinkRecord readRecord() {
        String topic = str();
        int partition = in.getInt();
        long offset = in.getLong();
        long ts = in.getLong();
        Long timestamp = ts == Long.MIN_VALUE ? null : ts;
        TimestampType timestampType = timestampType(in.get() & 0xff);
        int keyRef = in.getInt();
        Schema keySchema = schemaOf(keyRef);
        Object key = keySchema == null ? readSchemaless() : readValue(keySchema);
        int valueRef = in.getInt();
        Schema valueSchema = schemaOf(valueRef);
        Object value = valueSchema == null ? readSchemaless() : readValue(valueSchema);
        ConnectHeaders headers = readHeaders();
        String originalTopic = str();
        int originalPartition = in.getInt();
        long originalOffset = in.getLong();
        return new SinkRecord(topic, partition, keySchema, key, valueSchema, value, offset, timestamp,
                timestampType, headers, originalTopic, originalPartition, originalOffset);
    }

    /** v2's record after its seq: partition, offset, topic, kafka partition, key, value, timestamp, headers. */
    private SourceRecord readSourceRecord() {
        Map<String, ?> sourcePartition = sourceMap(readSchemaless(), "partition");
        Map<String, ?> sourceOffset = sourceMap(readSchemaless(), "offset");
        String topic = str();
        int partition = in.getInt();
        int keyRef = in.getInt();
        Schema keySchema = schemaOf(keyRef);
        Object key = keySchema == null ? readSchemaless() : readValue(keySchema);
        int valueRef = in.getInt();
        Schema valueSchema = schemaOf(valueRef);
        Object value = valueSchema == null ? readSchemaless() : readValue(valueSchema);
        long ts = in.getLong();
        ConnectHeaders headers = readHeaders();
        return new SourceRecord(sourcePartition, sourceOffset, topic, partition == -1 ? null : partition,
                keySchema, key, valueSchema, value, ts == Long.MIN_VALUE ? null : ts, headers);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ?> sourceMap(Object value, String what) {
        if (value != null && !(value instanceof Map)) {
            throw new DataException("A source " + what + " must be a map: " + value.getClass().getName());
        }
        return (Map<String, ?>) value;
    }

    private ConnectHeaders readHeaders() {
        int nHeaders = count();
        ConnectHeaders headers = new ConnectHeaders();
        for (int i = 0; i < nHeaders; i++) {
            String name = str();
            Schema schema = schemaOf(in.getInt());
            headers.add(name, schema == null ? readSchemaless() : readValue(schema), schema);
        }
        return headers;
    }

    private static TimestampType timestampType(int code) {
        switch (code) {
            case 0: return TimestampType.NO_TIMESTAMP_TYPE;
            case 1: return TimestampType.CREATE_TIME;
            case 2: return TimestampType.LOG_APPEND_TIME;
            default: throw new DataException("Unknown timestamp type " + code);
        }
    }

    /** The schema of a ref; null for -1 (no schema). */
    private Schema schemaOf(int ref) {
        if (ref == -1) {
            return null;
        }
        Schema schema = schemas.get(ref);
        if (schema == null) {
            throw new DataException("Unknown schema ref " + ref);
        }
        return schema;
    }

    private Schema readSchema() {
        int code = in.get() & 0xff;
        if (code >= TYPES.length) {
            throw new DataException("Unknown schema type " + code);
        }
        Schema.Type type = TYPES[code];
        int flags = in.get() & 0xff;
        boolean optional = (flags & 1) != 0;
        String name = (flags & 2) != 0 ? str() : null;
        Integer version = (flags & 4) != 0 ? in.getInt() : null;
        String doc = (flags & 8) != 0 ? str() : null;
        Map<String, String> params = null;
        if ((flags & 16) != 0) {
            int n = count();
            params = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                params.put(str(), str());
            }
            params = Collections.unmodifiableMap(params);
        }
        Schema keySchema = null;
        Schema valueSchema = null;
        List<Field> fields = null;
        switch (type) {
            case ARRAY:
                valueSchema = readSchema();
                break;
            case MAP:
                keySchema = readSchema();
                valueSchema = readSchema();
                break;
            case STRUCT:
                int n = count();
                fields = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    fields.add(new Field(str(), i, readSchema()));
                }
                break;
            default:
                break;
        }
        ConnectSchema schema = new ConnectSchema(type, optional, null, name, version, doc, params, fields,
                keySchema, valueSchema);
        if ((flags & 32) == 0) {
            return schema;
        }
        Object defaultValue = readValue(schema);
        return new ConnectSchema(type, optional, defaultValue, name, version, doc, params, fields,
                keySchema, valueSchema);
    }

    /** A value of a schema (u8 0: null), as its logical Java value. */
    private Object readValue(Schema schema) {
        int present = in.get() & 0xff;
        if (present == 0) {
            return null;
        }
        if (present != 1) {
            throw new DataException("Bad value marker " + present);
        }
        Object physical;
        switch (schema.type()) {
            case INT8: physical = in.get(); break;
            case INT16: physical = in.getShort(); break;
            case INT32: physical = in.getInt(); break;
            case INT64: physical = in.getLong(); break;
            case FLOAT32: physical = Float.intBitsToFloat(in.getInt()); break;
            case FLOAT64: physical = Double.longBitsToDouble(in.getLong()); break;
            case BOOLEAN: physical = in.get() != 0; break;
            case STRING: physical = str(); break;
            case BYTES: physical = raw(); break;
            case ARRAY: {
                int n = count();
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(readValue(schema.valueSchema()));
                }
                physical = items;
                break;
            }
            case MAP: {
                int n = count();
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    Object k = readValue(schema.keySchema());
                    map.put(k, readValue(schema.valueSchema()));
                }
                physical = map;
                break;
            }
            case STRUCT: {
                Struct struct = new Struct(schema);
                for (Field field : schema.fields()) {
                    Object v = readValue(field.schema());
                    if (v != null) {
                        struct.put(field, v);
                    }
                }
                physical = struct;
                break;
            }
            default:
                throw new DataException("Unknown schema type " + schema.type());
        }
        return logical(schema, physical);
    }

    /** A logical type's Java value of its physical value, as Connect's converters give it. */
    private static Object logical(Schema schema, Object physical) {
        String name = schema.name();
        if (name == null) {
            return physical;
        }
        switch (name) {
            case Decimal.LOGICAL_NAME:
                return physical instanceof byte[] ? Decimal.toLogical(schema, (byte[]) physical) : physical;
            case Date.LOGICAL_NAME:
                return physical instanceof Integer ? Date.toLogical(schema, (Integer) physical) : physical;
            case Time.LOGICAL_NAME:
                return physical instanceof Integer ? Time.toLogical(schema, (Integer) physical) : physical;
            case Timestamp.LOGICAL_NAME:
                return physical instanceof Long ? Timestamp.toLogical(schema, (Long) physical) : physical;
            default:
                return physical;
        }
    }

    /** A schemaless value by its tag (v2's tags; INT64/STRING stay Long/String). */
    private Object readSchemaless() {
        int tag = in.get() & 0xff;
        switch (tag) {
            case 0: return null;
            case 1: return in.get() != 0;
            case 2: return in.get();
            case 3: return in.getShort();
            case 4: return in.getInt();
            case 5: return in.getLong();
            case 6: return Float.intBitsToFloat(in.getInt());
            case 7: return Double.longBitsToDouble(in.getLong());
            case 8: return str();
            case 9: return raw();
            case 10: {
                int n = count();
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(readSchemaless());
                }
                return items;
            }
            case 11: {
                int n = count();
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    Object k = readSchemaless();
                    map.put(k, readSchemaless());
                }
                return map;
            }
            case 12: {
                Schema schema = schemaOf(in.getInt());
                if (schema == null) {
                    throw new DataException("A schemaless struct needs a schema");
                }
                return readValue(schema);
            }
            default:
                throw new DataException("Unknown schemaless tag " + tag);
        }
    }

    private int count() {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new DataException("Bad count in a sink batch: " + Integer.toUnsignedString(n));
        }
        return n;
    }

    private String str() {
        int n = in.getInt();
        if (n == -1) {
            return null;
        }
        return new String(bytes(n), StandardCharsets.UTF_8);
    }

    private byte[] raw() {
        return bytes(in.getInt());
    }

    private byte[] bytes(int n) {
        if (n < 0 || n > in.remaining()) {
            throw new DataException("Bad length in a sink batch: " + n);
        }
        byte[] out = new byte[n];
        in.get(out);
        return out;
    }
}
