// Java side of bench/avro.py: what Confluent's io.confluent.connect.avro.AvroConverter does per
// record once the schema registry's answers are cached, built from parts on Maven Central
// (Confluent's own jars are not): AvroData from Apicurio's fork of Confluent's
// (io.apicurio.registry.utils.converter.avro, apicurio-registry-utils-converter 2.6.13.Final),
// Avro's GenericDatumWriter / GenericDatumReader, and Confluent's wire format (magic byte 0, the
// 4-byte big-endian schema id).
//
// Per record, as Confluent's AvroConverter + KafkaAvroSerializer / Deserializer:
//   fromConnectData  AvroData.fromConnectSchema (cached by AvroData) and fromConnectData; the
//                    schema id registered once per Avro schema under the TopicNameStrategy
//                    subject (<topic>-key / <topic>-value) with POST /subjects/<s>/versions,
//                    then cached; a DatumWriter cached per schema; a top-level "bytes" value
//                    written raw (no length), as AbstractKafkaAvroSerializer does; a value
//                    AvroData wraps in a NonRecordContainer (not a record) written unwrapped.
//   toConnectData    the id read from the prefix; the writer's schema fetched once per id
//                    (GET /schemas/ids/<id>) and its version in the subject once (POST
//                    /subjects/<s>); a DatumReader cached per schema; AvroData.toConnectData;
//                    the top-level Connect schema given that version when it has none (Apicurio's
//                    AvroData has no version parameter; Confluent's sets it the same way).
// Configured with schema.registry.url plus AvroData's settings (connect.meta.data, ...).
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apicurio.registry.utils.converter.avro.AvroData;
import io.apicurio.registry.utils.converter.avro.AvroDataConfig;
import io.apicurio.registry.serde.avro.NonRecordContainer;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.ConnectSchema;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

public class AvroBenchConverter implements Converter {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private String url;
    private boolean isKey;
    private AvroData avroData;
    private final Map<org.apache.avro.Schema, Integer> ids = new HashMap<>();
    private final Map<Integer, org.apache.avro.Schema> schemas = new HashMap<>();
    private final Map<Integer, Integer> versions = new HashMap<>();
    private final Map<org.apache.avro.Schema, GenericDatumWriter<Object>> writers = new HashMap<>();
    private final Map<org.apache.avro.Schema, GenericDatumReader<Object>> readers = new HashMap<>();

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        Object u = configs.get("schema.registry.url");
        if (u == null) throw new IllegalArgumentException("schema.registry.url is required");
        this.url = u.toString().replaceAll("/+$", "");
        this.isKey = isKey;
        this.avroData = new AvroData(new AvroDataConfig(configs));
    }

    private String subject(String topic) {
        return topic + (isKey ? "-key" : "-value");
    }

    private JsonNode call(String method, String path, String body) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path))
                    .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                    .header("Accept", "application/vnd.schemaregistry.v1+json");
            b = body == null ? b.GET() : b.method(method, HttpRequest.BodyPublishers.ofString(body));
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                throw new DataException("registry " + method + " " + path + ": " + r.statusCode() + " " + r.body());
            }
            return JSON.readTree(r.body());
        } catch (IOException | InterruptedException e) {
            throw new DataException("registry " + method + " " + path + " failed", e);
        }
    }

    private String schemaBody(org.apache.avro.Schema schema) {
        return JSON.createObjectNode().put("schema", schema.toString()).toString();
    }

    @Override
    public byte[] fromConnectData(String topic, Schema schema, Object value) {
        org.apache.avro.Schema avroSchema = avroData.fromConnectSchema(schema);
        Object datum = avroData.fromConnectData(schema, value);
        // a value that is not a record comes wrapped, as Confluent's AvroData wraps it; the
        // serializer writes what the container holds
        if (datum instanceof NonRecordContainer) datum = ((NonRecordContainer) datum).getValue();
        if (datum == null) return null;
        Integer id = ids.get(avroSchema);
        if (id == null) {
            id = call("POST", "/subjects/" + subject(topic) + "/versions", schemaBody(avroSchema)).get("id").asInt();
            ids.put(avroSchema, id);
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(0);
            out.write(ByteBuffer.allocate(4).putInt(id).array());
            if (avroSchema.getType() == org.apache.avro.Schema.Type.BYTES) {
                if (datum instanceof ByteBuffer) {
                    ByteBuffer buf = ((ByteBuffer) datum).duplicate();
                    byte[] raw = new byte[buf.remaining()];
                    buf.get(raw);
                    out.write(raw);
                } else {
                    out.write((byte[]) datum);
                }
            } else {
                BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
                GenericDatumWriter<Object> writer = writers.computeIfAbsent(avroSchema, GenericDatumWriter::new);
                writer.write(datum, encoder);
                encoder.flush();
            }
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            throw new DataException("Failed to serialize Avro data from topic " + topic + " : " + e, e);
        }
    }

    @Override
    public SchemaAndValue toConnectData(String topic, byte[] value) {
        if (value == null) return SchemaAndValue.NULL;
        ByteBuffer buf = ByteBuffer.wrap(value);
        if (buf.get() != 0) throw new DataException("Unknown magic byte!");
        int id = buf.getInt();
        org.apache.avro.Schema schema = schemas.get(id);
        if (schema == null) {
            schema = new org.apache.avro.Schema.Parser().parse(call("GET", "/schemas/ids/" + id, null).get("schema").asText());
            schemas.put(id, schema);
        }
        Integer version = versions.get(id);
        if (version == null) {
            version = call("POST", "/subjects/" + subject(topic), schemaBody(schema)).get("version").asInt();
            versions.put(id, version);
        }
        Object datum;
        try {
            if (schema.getType() == org.apache.avro.Schema.Type.BYTES) {
                byte[] raw = new byte[value.length - 5];
                System.arraycopy(value, 5, raw, 0, raw.length);
                datum = raw;
            } else {
                GenericDatumReader<Object> reader = readers.computeIfAbsent(schema, s -> new GenericDatumReader<>(s, s));
                datum = reader.read(null, DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, null));
            }
        } catch (IOException | RuntimeException e) {
            throw new DataException("Failed to deserialize data for topic " + topic + " to Avro: ", e);
        }
        SchemaAndValue got = avroData.toConnectData(schema, datum);
        return withVersion(got, version);
    }

    /** The top-level schema with the subject's version when AvroData left none. */
    private static SchemaAndValue withVersion(SchemaAndValue got, int version) {
        Schema s = got.schema();
        if (s == null || s.version() != null) return got;
        ConnectSchema versioned = new ConnectSchema(s.type(), s.isOptional(), s.defaultValue(), s.name(), version,
                s.doc(), s.parameters(), s.type() == Schema.Type.STRUCT ? s.fields() : null,
                s.type() == Schema.Type.MAP ? s.keySchema() : null,
                s.type() == Schema.Type.MAP || s.type() == Schema.Type.ARRAY ? s.valueSchema() : null);
        Object v = got.value();
        if (v instanceof Struct) {
            Struct old = (Struct) v;
            Struct copy = new Struct(versioned);
            for (Field f : s.fields()) copy.put(f.name(), old.get(f));
            v = copy;
        }
        return new SchemaAndValue(versioned, v);
    }
}
