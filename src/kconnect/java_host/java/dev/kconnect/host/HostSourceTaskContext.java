package dev.kconnect.host;

import java.util.Map;

import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * The context of a running source task: its config, an {@link OffsetStorageReader} answered by
 * the worker ({@code offsets} callbacks), a {@link HostTransactionContext} when the worker runs
 * the task exactly once with connector-defined transaction boundaries (else null, as Kafka
 * gives), and plugin metrics kept in the host.
 *
 * <p>Thread-safe.
 */
final class HostSourceTaskContext implements SourceTaskContext {

    private final RunningPlugin owner;
    private final Map<String, String> configs;
    private final OffsetStorageReader offsets;
    private final HostTransactionContext transactions;

    HostSourceTaskContext(RunningPlugin owner, Map<String, String> configs, WorkerLink link,
                          HostTransactionContext transactions) {
        this.owner = owner;
        this.configs = configs;
        this.offsets = new WorkerOffsetReader(link, owner.handle);
        this.transactions = transactions;
    }

    @Override
    public Map<String, String> configs() {
        return configs;
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
        return offsets;
    }

    @Override
    public TransactionContext transactionContext() {
        return transactions;
    }

    @Override
    public PluginMetrics pluginMetrics() {
        return owner.pluginMetrics();
    }
}
