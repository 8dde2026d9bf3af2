package dev.kconnect.host;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * A sink task the worker runs under a handle (protocol v3): {@code open}, {@code put} of decoded
 * batches, {@code preCommit}, {@code close}, {@code stop}. Every call into the task runs with its
 * plugin loader as the context class loader; every successful sink op's reply carries the
 * {@code "context"} the task's {@link HostSinkTaskContext} collected since the last one (a failed
 * op leaves it for the next reply).
 *
 * <p>The worker calls one sink task op at a time (as Kafka's {@code WorkerSinkTask} thread does);
 * {@code stop()} may come beside another op, and nothing here holds a lock around a call into the
 * task. Decoding is serialised on the decoder.
 */
final class RunningSinkTask extends RunningPlugin {

    private final SinkTask task;
    private final HostSinkTaskContext context;
    private final Map<String, String> props;
    private final BatchDecoder decoder = new BatchDecoder();

    RunningSinkTask(String handle, SinkTask task, ClassLoader loader, Map<String, String> props, WorkerLink link) {
        super(handle, loader);
        this.task = task;
        this.props = props;
        this.context = new HostSinkTaskContext(this, props, link);
    }

    void start() {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            task.initialize(context);
            task.start(props);
        }
    }

    Map<String, Object> open(List<TopicPartition> partitions) {
        context.assigned(partitions);
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            task.open(new ArrayList<>(partitions));
        }
        return withContext(new LinkedHashMap<>());
    }

    Map<String, Object> put(byte[] batch) {
        BatchDecoder.Decoded<SinkRecord> decoded;
        try (LoaderSwap swap = LoaderSwap.to(loader)) { // logical values, structs: plugin loader around
            synchronized (decoder) {
                decoded = decoder.decode(batch);
            }
            context.batch(decoded.records, decoded.seqs);
            task.put(decoded.records);
        }
        return withContext(new LinkedHashMap<>());
    }

    Map<String, Object> preCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            committed = task.preCommit(offsets);
        }
        List<Object> answer = new ArrayList<>();
        if (committed != null) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
                if (e.getKey() == null || e.getValue() == null) {
                    continue;
                }
                answer.add(List.of(e.getKey().topic(), e.getKey().partition(), e.getValue().offset()));
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("offsets", answer);
        return withContext(result);
    }

    Map<String, Object> close(List<TopicPartition> partitions) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            task.close(new ArrayList<>(partitions));
        } finally {
            context.revoked(partitions);
        }
        return withContext(new LinkedHashMap<>());
    }

    void stop() {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            task.stop();
        }
    }

    private Map<String, Object> withContext(Map<String, Object> result) {
        result.put("context", context.drain());
        return result;
    }

    // ------------------------------------------------------------------ request fields

    static byte[] batch(Object value) {
        if (!(value instanceof String)) {
            throw new IllegalArgumentException("Request field 'batch' must be a base64 string");
        }
        return Base64.getDecoder().decode((String) value);
    }

    /** {@code [[topic, partition], ...]}. */
    static List<TopicPartition> partitions(Object value) {
        if (!(value instanceof List)) {
            throw new IllegalArgumentException("Request field 'partitions' must be a list of [topic, partition]");
        }
        List<TopicPartition> out = new ArrayList<>();
        for (Object raw : (List<?>) value) {
            if (!(raw instanceof List) || ((List<?>) raw).size() != 2
                    || !(((List<?>) raw).get(0) instanceof String) || !(((List<?>) raw).get(1) instanceof Long)) {
                throw new IllegalArgumentException("A partition must be [topic, partition]: " + raw);
            }
            List<?> tp = (List<?>) raw;
            out.add(new TopicPartition((String) tp.get(0), (int) (long) (Long) tp.get(1)));
        }
        return out;
    }

    /** {@code [[topic, partition, offset], ...]} as the map {@code preCommit} takes. */
    static Map<TopicPartition, OffsetAndMetadata> offsets(Object value) {
        if (!(value instanceof List)) {
            throw new IllegalArgumentException("Request field 'offsets' must be a list of [topic, partition, offset]");
        }
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (Object raw : (List<?>) value) {
            if (!(raw instanceof List) || ((List<?>) raw).size() != 3
                    || !(((List<?>) raw).get(0) instanceof String) || !(((List<?>) raw).get(1) instanceof Long)
                    || !(((List<?>) raw).get(2) instanceof Long)) {
                throw new IllegalArgumentException("An offset must be [topic, partition, offset]: " + raw);
            }
            List<?> o = (List<?>) raw;
            out.put(new TopicPartition((String) o.get(0), (int) (long) (Long) o.get(1)),
                    new OffsetAndMetadata((Long) o.get(2)));
        }
        return out;
    }
}
