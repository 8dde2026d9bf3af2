// The Java oracle of kconnect's AvroData (tests/integration/test_avro_data_java.py).
//
// One JSON request per input line, one answer line out:
//   {"op":"from","config":{...},"envelope":<JsonConverter envelope>}
//     -> {"schema":"<AvroData.fromConnectSchema(schema).toString()>","data":"<base64 binary>"|null}
//   {"op":"to","config":{...},"schema":"<Avro schema text>","data":"<base64>","version":n|null}
//     -> {"envelope":<JsonConverter envelope of toConnectData>}
//   {"op":"parse","schema":"<Avro schema text>"} -> {"schema":"<Schema.Parser().parse(..).toString()>"}
// Errors answer {"error":"<exception class>: <message>"}.
// AvroData is Apicurio's fork (io.apicurio.registry.utils.converter.avro, 2.6.13.Final) of
// Confluent's io.confluent.connect.avro.AvroData (Apache-2.0), an older Confluent release.

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apicurio.registry.serde.avro.NonRecordContainer;
import io.apicurio.registry.utils.converter.avro.AvroData;
import io.apicurio.registry.utils.converter.avro.AvroDataConfig;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;

public class AvroDataHarness {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    JsonConverter json = new JsonConverter();
    Map<String, Object> jc = new HashMap<>();
    jc.put("schemas.enable", "true");
    jc.put("converter.type", "value");
    jc.put("schemas.cache.size", "0");
    json.configure(jc, false);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      ObjectNode out = MAPPER.createObjectNode();
      try {
        JsonNode req = MAPPER.readTree(line);
        Map<String, Object> props = new HashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = req.has("config")
            ? req.get("config").fields() : MAPPER.createObjectNode().fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          props.put(e.getKey(), e.getValue().asText());
        }
        AvroData avroData = new AvroData(new AvroDataConfig(props));
        if (req.get("op").asText().equals("parse")) {
          out.put("schema",
              new org.apache.avro.Schema.Parser().parse(req.get("schema").asText()).toString());
        } else if (req.get("op").asText().equals("from")) {
          byte[] env = MAPPER.writeValueAsBytes(req.get("envelope"));
          SchemaAndValue sv = json.toConnectData("t", env);
          org.apache.avro.Schema avroSchema = avroData.fromConnectSchema(sv.schema());
          out.put("schema", avroSchema.toString());
          Object datum = avroData.fromConnectData(sv.schema(), sv.value());
          if (datum instanceof NonRecordContainer) {
            datum = ((NonRecordContainer) datum).getValue();
          }
          if (datum == null && avroSchema.getType() != org.apache.avro.Schema.Type.UNION) {
            out.putNull("data");
          } else {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            BinaryEncoder enc = EncoderFactory.get().directBinaryEncoder(bytes, null);
            new GenericDatumWriter<Object>(avroSchema).write(datum, enc);
            enc.flush();
            out.put("data", Base64.getEncoder().encodeToString(bytes.toByteArray()));
          }
        } else {
          org.apache.avro.Schema avroSchema =
              new org.apache.avro.Schema.Parser().parse(req.get("schema").asText());
          byte[] data = Base64.getDecoder().decode(req.get("data").asText());
          Object datum = new GenericDatumReader<Object>(avroSchema)
              .read(null, DecoderFactory.get().binaryDecoder(data, null));
          JsonNode v = req.get("version");
          Integer version = v == null || v.isNull() ? null : v.asInt();
          SchemaAndValue sv = avroData.toConnectData(avroSchema, datum, version);
          byte[] env = sv == null ? json.fromConnectData("t", null, null)
              : json.fromConnectData("t", sv.schema(), sv.value());
          if (env == null) {
            out.putNull("envelope");
          } else {
            out.set("envelope", MAPPER.readTree(env));
          }
        }
      } catch (Throwable e) {
        out = MAPPER.createObjectNode();
        out.put("error", e.getClass().getName() + ": " + e.getMessage());
      }
      System.out.println(MAPPER.writeValueAsString(out));
      System.out.flush();
    }
  }
}
