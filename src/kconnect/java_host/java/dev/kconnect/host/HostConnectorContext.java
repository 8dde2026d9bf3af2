package dev.kconnect.host;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.SinkConnectorContext;
import org.apache.kafka.connect.source.SourceConnectorContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * The context of a running connector: {@code requestTaskReconfiguration()} and
 * {@code raiseError(e)} become events to the worker (the connector may call them from any of
 * its own threads); a source connector's {@code offsetStorageReader()} asks the worker through
 * the {@code offsets} callback under the connector's handle.
 *
 * <p>Thread-safe.
 */
final class HostConnectorContext implements SourceConnectorContext, SinkConnectorContext {

    private final RunningPlugin owner;
    private final WorkerLink link;
    private final OffsetStorageReader offsets;

    HostConnectorContext(RunningPlugin owner, WorkerLink link) {
        this.owner = owner;
        this.link = link;
        this.offsets = new WorkerOffsetReader(link, owner.handle);
    }

    @Override
    public void requestTaskReconfiguration() {
        link.event("request_task_reconfiguration", owner.handle, Map.of());
    }

    @Override
    public void raiseError(Exception e) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("error", errorJson(e));
        link.event("raise_error", owner.handle, fields);
    }

    @Override
    public PluginMetrics pluginMetrics() {
        return owner.pluginMetrics();
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
        return offsets;
    }

    /** {@code {"class", "message", "trace"}} of a throwable, as in error replies. */
    static Map<String, Object> errorJson(Throwable t) {
        Map<String, Object> error = new LinkedHashMap<>();
        if (t == null) {
            error.put("class", null);
            error.put("message", null);
            error.put("trace", null);
            return error;
        }
        error.put("class", t.getClass().getName());
        String message;
        try {
            message = t.getMessage();
        } catch (Throwable broken) {
            message = "(getMessage() threw " + broken.getClass().getName() + ")";
        }
        error.put("message", message);
        String trace;
        try {
            trace = HostLog.trace(t);
        } catch (Throwable broken) {
            trace = t.getClass().getName() + " (its stack trace could not be printed: " + broken + ")";
        }
        error.put("trace", trace);
        return error;
    }
}
