package dev.kconnect.host;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Protocol v7's batch ops on converters and header converters: {@code from_connect} and
 * {@code to_connect} (one call per batch of one topic's keys or values, or of headers).
 *
 * <p>Items travel as the records of v5's source batch, which already carries schemas, values and
 * headers: an item's schema and value are its record's value schema and value, a header
 * converter's item names its header key in the record's (schemaless string) key, and a
 * converter's Kafka headers are the record's headers whose values are bytes (BYTES schema, or
 * schemaless {@code byte[]}, or null). Bytes the worker sends to {@code to_connect} are records'
 * values too (BYTES). Items are named by their record's seq.
 *
 * <p>A conversion that throws (an {@link Exception}) fails only its item: it is reported with the
 * item's seq, and the other items are converted. An {@link Error} fails the whole op. A
 * {@code to_connect} result that cannot be encoded (a value that does not fit its schema) is its
 * item's {@link DataException}.
 *
 * <p>Thread-safe: an op holds its handle's codec lock from decoding to encoding.
 */
final class ConverterRuns {

    private ConverterRuns() {
    }

    /**
     * {@code {"values": [base64 or null, ...], "headers": [[seq, [[key, base64 or null], ...]], ...],
     * "failures": [{"index", "error"}, ...]}}: each item of {@code batch} to bytes, in batch order
     * (null for a failed item); {@code headers} lists the Kafka headers of each item that had some
     * before or after a converter's call (a converter may add its own).
     */
    static Map<String, Object> fromConnect(RunningStage stage, String topic, byte[] batch) {
        List<Object> values = new ArrayList<>();
        List<Object> headers = new ArrayList<>();
        List<Object> failures = new ArrayList<>();
        synchronized (stage.codecLock()) {
            BatchDecoder.Decoded<SourceRecord> decoded = decode(stage, batch);
            for (int i = 0; i < decoded.records.size(); i++) {
                SourceRecord item = decoded.records.get(i);
                long seq = decoded.seqs[i];
                try {
                    byte[] out;
                    if (stage instanceof RunningConverter) {
                        RecordHeaders kafka = kafkaHeaders(item.headers());
                        out = ((RunningConverter) stage).fromConnect(topic, kafka, item.valueSchema(), item.value());
                        if (kafka.iterator().hasNext() || !item.headers().isEmpty()) {
                            headers.add(List.of(seq, headerList(kafka)));
                        }
                    } else {
                        out = ((RunningHeaderConverter) stage).fromConnect(topic, headerKey(item),
                                item.valueSchema(), item.value());
                    }
                    values.add(out == null ? null : Base64.getEncoder().encodeToString(out));
                } catch (Exception e) {
                    values.add(null);
                    failures.add(failure(seq, e));
                }
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("values", values);
        result.put("headers", headers);
        result.put("failures", failures);
        return result;
    }

    /**
     * {@code {"batch": base64, "failures": [{"index", "error"}, ...]}}: each item's bytes of
     * {@code batch} to Connect data; the answer's batch (v2's grammar) holds a record per item
     * converted, numbered by its seq, whose value schema and value are the result (and, for a
     * converter, whose headers are the item's Kafka headers after the call, as BYTES, when it
     * had some before or after).
     */
    static Map<String, Object> toConnect(RunningStage stage, String topic, byte[] batch) {
        List<Object> failures = new ArrayList<>();
        byte[] encoded;
        synchronized (stage.codecLock()) {
            BatchDecoder.Decoded<SourceRecord> decoded = decode(stage, batch);
            stage.encoder.begin();
            try {
                for (int i = 0; i < decoded.records.size(); i++) {
                    SourceRecord item = decoded.records.get(i);
                    long seq = decoded.seqs[i];
                    try {
                        byte[] raw = bytes(item.value(), "an item's bytes");
                        SchemaAndValue out;
                        ConnectHeaders after = null;
                        if (stage instanceof RunningConverter) {
                            RecordHeaders kafka = kafkaHeaders(item.headers());
                            out = ((RunningConverter) stage).toConnect(topic, kafka, raw);
                            if (kafka.iterator().hasNext() || !item.headers().isEmpty()) {
                                after = connectHeaders(kafka);
                            }
                        } else {
                            out = ((RunningHeaderConverter) stage).toConnect(topic, headerKey(item), raw);
                        }
                        Schema schema = out == null ? null : out.schema();
                        Object value = out == null ? null : out.value();
                        stage.encoder.add(seq, new SourceRecord(null, null, topic, null, null, null, schema, value,
                                null, after));
                    } catch (Exception e) {
                        failures.add(failure(seq, e));
                    }
                }
                encoded = stage.encoder.finish();
            } finally {
                stage.encoder.abort();
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("batch", encoded); // a binary frame beside the reply
        result.put("failures", failures);
        return result;
    }

    private static BatchDecoder.Decoded<SourceRecord> decode(RunningStage stage, byte[] batch) {
        try (LoaderSwap swap = LoaderSwap.to(stage.loader)) { // logical values, structs
            return stage.decoder.decodeSource(batch);
        }
    }

    /** The Kafka headers an item's Connect headers stand for: each value bytes or null. */
    private static RecordHeaders kafkaHeaders(Iterable<Header> headers) {
        RecordHeaders kafka = new RecordHeaders();
        for (Header header : headers) {
            kafka.add(header.key(), bytes(header.value(), "header " + header.key()));
        }
        return kafka;
    }

    private static ConnectHeaders connectHeaders(RecordHeaders kafka) {
        ConnectHeaders headers = new ConnectHeaders();
        for (org.apache.kafka.common.header.Header header : kafka) {
            headers.add(header.key(), header.value(), Schema.OPTIONAL_BYTES_SCHEMA);
        }
        return headers;
    }

    private static List<Object> headerList(RecordHeaders kafka) {
        List<Object> out = new ArrayList<>();
        for (org.apache.kafka.common.header.Header header : kafka) {
            List<Object> pair = new ArrayList<>(2);
            pair.add(header.key());
            pair.add(header.value() == null ? null : Base64.getEncoder().encodeToString(header.value()));
            out.add(pair);
        }
        return out;
    }

    private static String headerKey(SourceRecord item) {
        if (!(item.key() instanceof String)) {
            throw new DataException("A header converter's item must name its header key");
        }
        return (String) item.key();
    }

    private static byte[] bytes(Object value, String what) {
        if (value != null && !(value instanceof byte[])) {
            throw new DataException("Not bytes for " + what + ": " + value.getClass().getName());
        }
        return (byte[]) value;
    }

    private static Map<String, Object> failure(long seq, Exception e) {
        Map<String, Object> reported = new LinkedHashMap<>();
        reported.put("index", seq);
        reported.put("error", PluginHost.error(e));
        return reported;
    }
}
