package dev.kconnect.host;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.IllegalWorkerStateException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The context of a running sink task. What the task asks of it ({@code offset}, {@code timeout},
 * {@code pause}, {@code resume}, {@code requestCommit}) is collected and drained into the
 * {@code "context"} of the next sink reply ({@link #drain()}); the worker applies it. A later
 * {@code offset} for a partition replaces an earlier one, and the last {@code timeout} counts
 * (as in Kafka's {@code WorkerSinkTaskContext}); pausing a partition takes it out of the pending
 * resumes and the other way round, so the two lists give the net effect. Pausing or resuming a
 * partition not assigned fails with {@link IllegalWorkerStateException}, as on Kafka (its
 * consumer refuses it). {@code assignment()} is the partitions opened and not closed since.
 * {@code errantRecordReporter()} sends {@code report} callbacks ({@link WorkerLink#ask}).
 *
 * <p>Thread-safe: a task may use its context from threads of its own.
 */
final class HostSinkTaskContext implements SinkTaskContext {

    private final RunningPlugin owner;
    private final Map<String, String> configs;
    private final WorkerLink link;
    private final ErrantRecordReporter reporter = this::report;

    private final Set<TopicPartition> assignment = new LinkedHashSet<>();
    private final Map<TopicPartition, Long> rewinds = new LinkedHashMap<>();
    private final Set<TopicPartition> pause = new LinkedHashSet<>();
    private final Set<TopicPartition> resume = new LinkedHashSet<>();
    private Long timeoutMs;
    private boolean requestCommit;

    /** The last batch put: each record's seq, by identity, and by its original coordinates. */
    private Map<SinkRecord, Long> seqByRecord = new IdentityHashMap<>();
    private Map<List<Object>, Long> seqByOrigin = new LinkedHashMap<>();

    HostSinkTaskContext(RunningPlugin owner, Map<String, String> configs, WorkerLink link) {
        this.owner = owner;
        this.configs = configs;
        this.link = link;
    }

    // ------------------------------------------------------------------ the task's side

    @Override
    public Map<String, String> configs() {
        return configs;
    }

    @Override
    public synchronized void offset(Map<TopicPartition, Long> offsets) {
        rewinds.putAll(offsets);
    }

    @Override
    public synchronized void offset(TopicPartition tp, long offset) {
        rewinds.put(tp, offset);
    }

    @Override
    public synchronized void timeout(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    @Override
    public synchronized Set<TopicPartition> assignment() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(assignment));
    }

    @Override
    public synchronized void pause(TopicPartition... partitions) {
        checkAssigned(partitions, "pause");
        for (TopicPartition tp : partitions) {
            resume.remove(tp);
            pause.add(tp);
        }
    }

    @Override
    public synchronized void resume(TopicPartition... partitions) {
        checkAssigned(partitions, "resume");
        for (TopicPartition tp : partitions) {
            pause.remove(tp);
            resume.add(tp);
        }
    }

    private void checkAssigned(TopicPartition[] partitions, String what) {
        for (TopicPartition tp : partitions) {
            if (!assignment.contains(tp)) {
                throw new IllegalWorkerStateException("SinkTasks may not " + what
                        + " partitions that are not currently assigned to them.");
            }
        }
    }

    @Override
    public synchronized void requestCommit() {
        requestCommit = true;
    }

    @Override
    public ErrantRecordReporter errantRecordReporter() {
        return reporter;
    }

    @Override
    public PluginMetrics pluginMetrics() {
        return owner.pluginMetrics();
    }

    /**
     * Sends {@code report {handle, seq, error}}; the future completes when the worker answers
     * (exceptionally with a {@link ConnectException} of its message when it answers ok:false).
     * The seq is the record's in the last batch put (by identity, else by its original topic,
     * partition and offset); null when it is none of them.
     */
    private Future<Void> report(SinkRecord record, Throwable error) {
        Long seq;
        synchronized (this) {
            seq = seqByRecord.get(record);
            if (seq == null && record != null) {
                seq = seqByOrigin.get(origin(record));
            }
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("seq", seq);
        fields.put("error", HostConnectorContext.errorJson(error));
        CompletableFuture<Map<String, Object>> answer = link.ask("report", owner.handle, fields);
        return answer.thenApply(result -> (Void) null);
    }

    private static List<Object> origin(SinkRecord record) {
        return List.of(String.valueOf(record.originalTopic()), record.originalKafkaPartition() == null
                ? -1 : record.originalKafkaPartition(), record.originalKafkaOffset());
    }

    // ------------------------------------------------------------------ the host's side

    synchronized void assigned(Collection<TopicPartition> partitions) {
        assignment.addAll(partitions);
    }

    synchronized void revoked(Collection<TopicPartition> partitions) {
        assignment.removeAll(partitions);
    }

    /** Remembers the batch about to be put, for the seqs of reported records. */
    synchronized void batch(List<SinkRecord> records, long[] seqs) {
        seqByRecord = new IdentityHashMap<>();
        seqByOrigin = new LinkedHashMap<>();
        for (int i = 0; i < records.size(); i++) {
            seqByRecord.put(records.get(i), seqs[i]);
            seqByOrigin.putIfAbsent(origin(records.get(i)), seqs[i]);
        }
    }

    /** What the task asked since the last drain, as a reply's {@code "context"}; then forgets it. */
    synchronized Map<String, Object> drain() {
        Map<String, Object> context = new LinkedHashMap<>();
        List<Object> offsets = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> e : rewinds.entrySet()) {
            offsets.add(List.of(e.getKey().topic(), e.getKey().partition(), e.getValue()));
        }
        context.put("rewinds", offsets);
        context.put("timeout_ms", timeoutMs);
        context.put("pause", partitions(pause));
        context.put("resume", partitions(resume));
        context.put("request_commit", requestCommit);
        rewinds.clear();
        pause.clear();
        resume.clear();
        timeoutMs = null;
        requestCommit = false;
        return context;
    }

    static List<Object> partitions(Collection<TopicPartition> partitions) {
        List<Object> out = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            out.add(List.of(tp.topic(), tp.partition()));
        }
        return out;
    }
}
