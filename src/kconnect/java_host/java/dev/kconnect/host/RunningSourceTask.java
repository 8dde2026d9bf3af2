package dev.kconnect.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A source task the worker runs under a handle. Each record a {@code poll()} returns gets the
 * task's next sequence number (0, 1, 2, ... across polls) and is kept, as returned (before any
 * transformation), until the worker acknowledges it ({@code source_task_commit_record}), when
 * {@code commitRecord(record, metadata)} is called with it and it is forgotten. Every call into
 * the task runs with its plugin loader as the context class loader.
 *
 * <p>Thread-safe: {@code stop()} runs while another pool thread's {@code poll()} blocks, as on
 * Kafka Connect (nothing here holds a lock around a call into the task); numbering and encoding
 * of polled records are serialised on the encoder.
 */
final class RunningSourceTask extends RunningPlugin {

    private final SourceTask task;
    private final HostSourceTaskContext context;
    private final Map<String, String> props;
    private final BatchEncoder encoder = new BatchEncoder();
    private final Map<Long, SourceRecord> unacknowledged = new ConcurrentHashMap<>();
    private final HostTransactionContext transactions;
    private long nextSeq; // guarded by encoder

    RunningSourceTask(String handle, SourceTask task, ClassLoader loader, Map<String, String> props, WorkerLink link,
                      boolean transactionContext) {
        super(handle, loader);
        this.task = task;
        this.props = props;
        this.transactions = transactionContext ? new HostTransactionContext() : null;
        this.context = new HostSourceTaskContext(this, props, link, transactions);
    }

    void start() {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            task.initialize(context);
            task.start(props);
        }
    }

    /** {@code {"count": n, "batch": base64}} of one {@code poll()}, or count 0 and a null batch. */
    Map<String, Object> poll() throws InterruptedException {
        Map<String, Object> result = new LinkedHashMap<>();
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            List<SourceRecord> records = task.poll();
            if (records == null || records.isEmpty()) {
                result.put("count", 0);
                result.put("batch", null);
                putTransactions(result);
                return result;
            }
            records = new ArrayList<>(records);
            byte[] batch;
            synchronized (encoder) {
                long first = nextSeq;
                batch = encoder.encode(records, first);
                for (int i = 0; i < records.size(); i++) {
                    unacknowledged.put(first + i, records.get(i));
                }
                nextSeq = first + records.size();
            }
            result.put("count", records.size());
            result.put("batch", batch); // a binary frame beside the reply
            putTransactions(result);
            return result;
        }
    }

    /**
     * The transaction requests made since the last poll, as {@code "transactions": [[op, seq or
     * null], ...]}: a request naming a record gets the seq of that record among those not yet
     * acknowledged (found by identity); one naming a record the task never returned (or one
     * already acknowledged) is dropped with a warning (Kafka's worker never meets it either).
     */
    private void putTransactions(Map<String, Object> result) {
        if (transactions == null) {
            return;
        }
        List<HostTransactionContext.Request> requests = transactions.drain();
        if (requests.isEmpty()) {
            return;
        }
        List<Object> out = new ArrayList<>();
        for (HostTransactionContext.Request request : requests) {
            Long seq = null;
            if (request.record != null) {
                for (Map.Entry<Long, SourceRecord> e : unacknowledged.entrySet()) {
                    if (e.getValue() == request.record) {
                        seq = e.getKey();
                        break;
                    }
                }
                if (seq == null) {
                    HostLog.warn("Ignoring a " + request.op + " transaction request of " + handle
                            + " for a record it did not return (or that was already acknowledged)");
                    continue;
                }
            }
            List<Object> entry = new ArrayList<>();
            entry.add(request.op);
            entry.add(seq);
            out.add(entry);
        }
        result.put("transactions", out);
    }

    /**
     * Acknowledges records: {@code [seq, topic or null, partition, offset, timestamp]} each. Every
     * ack is handled and its record forgotten even when a {@code commitRecord} throws (Kafka
     * logs and goes on); the first exception is then thrown, the others added as suppressed.
     */
    void commitRecords(List<?> acks) throws Throwable {
        Throwable failure = null;
        List<Object> unknown = new ArrayList<>();
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            for (Object raw : acks) {
                if (!(raw instanceof List) || ((List<?>) raw).size() != 5) {
                    throw new IllegalArgumentException(
                            "An ack must be [seq, topic or null, partition, offset, timestamp]: " + raw);
                }
                List<?> ack = (List<?>) raw;
                long seq = number(ack.get(0), "seq");
                SourceRecord record = unacknowledged.remove(seq);
                if (record == null) {
                    unknown.add(seq);
                    continue;
                }
                RecordMetadata metadata = null;
                if (ack.get(1) != null) {
                    TopicPartition tp = new TopicPartition(String.valueOf(ack.get(1)),
                            (int) number(ack.get(2), "partition"));
                    long timestamp = ack.get(4) == null ? -1L : number(ack.get(4), "timestamp");
                    metadata = new RecordMetadata(tp, number(ack.get(3), "offset"), 0, timestamp, -1, -1);
                }
                try {
                    task.commitRecord(record, metadata);
                } catch (Throwable t) {
                    HostLog.error("Exception thrown while calling task.commitRecord() of " + handle, t);
                    if (failure == null) {
                        failure = t;
                    } else {
                        failure.addSuppressed(t);
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("No unacknowledged records of " + handle + " with seq " + unknown);
        }
    }

    void commit() throws InterruptedException {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            task.commit();
        }
    }

    void stop() {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            task.stop();
        }
    }

    @Override
    synchronized void close() {
        unacknowledged.clear();
        super.close();
    }

    private static long number(Object value, String what) {
        if (!(value instanceof Number)) {
            throw new IllegalArgumentException("An ack's " + what + " must be a number: " + value);
        }
        return ((Number) value).longValue();
    }
}
