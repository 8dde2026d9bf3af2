package dev.kconnect.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;

/**
 * The {@link TransactionContext} of a source task on a worker with exactly-once source support
 * and {@code transaction.boundary=connector} (KIP-618). Requests are queued here and drained
 * into the reply of the next {@code source_task_poll} (so a request made inside {@code poll()}
 * names records of the batch it returns); the worker applies them to its own transaction
 * context, which decides what is committed or aborted, as Kafka's
 * {@code WorkerTransactionContext} does.
 *
 * <p>Thread-safe.
 */
final class HostTransactionContext implements TransactionContext {

    /** One request: {@code commit} or {@code abort}, after {@code record} (null: the batch). */
    static final class Request {
        final String op;
        final SourceRecord record;

        Request(String op, SourceRecord record) {
            this.op = op;
            this.record = record;
        }
    }

    private final List<Request> requests = new ArrayList<>(); // guarded by this

    @Override
    public synchronized void commitTransaction() {
        requests.add(new Request("commit", null));
    }

    @Override
    public synchronized void commitTransaction(SourceRecord record) {
        Objects.requireNonNull(record, "Source record used to define transaction boundaries may not be null");
        requests.add(new Request("commit", record));
    }

    @Override
    public synchronized void abortTransaction() {
        requests.add(new Request("abort", null));
    }

    @Override
    public synchronized void abortTransaction(SourceRecord record) {
        Objects.requireNonNull(record, "Source record used to define transaction boundaries may not be null");
        requests.add(new Request("abort", record));
    }

    /** The requests made since the last drain, in order. */
    synchronized List<Request> drain() {
        List<Request> drained = new ArrayList<>(requests);
        requests.clear();
        return drained;
    }
}
