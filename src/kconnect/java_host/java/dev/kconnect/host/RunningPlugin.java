package dev.kconnect.host;

import java.util.Map;

import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;

/**
 * A connector or task instance the worker created under its {@code handle}, with the loader
 * that is made the context class loader around every call into it.
 *
 * <p>Thread-safe: the worker may call into one instance from several pool threads at once
 * (a task's {@code stop()} while its {@code poll()} blocks), as Kafka Connect does.
 */
abstract class RunningPlugin {

    /** One metrics registry for the host's plugins; nothing reports it (yet). */
    private static final class SharedMetrics {
        static final Metrics METRICS = new Metrics();
    }

    final String handle;
    final ClassLoader loader;
    private PluginMetricsImpl metrics;

    RunningPlugin(String handle, ClassLoader loader) {
        this.handle = handle;
        this.loader = loader;
    }

    /** The instance's {@code pluginMetrics()}: tagged with its handle, kept in the host's registry. */
    synchronized PluginMetrics pluginMetrics() {
        if (metrics == null) {
            metrics = new PluginMetricsImpl(SharedMetrics.METRICS, Map.of("handle", handle));
        }
        return metrics;
    }

    /** Forgets the instance's metrics (on {@code close}). */
    synchronized void close() {
        if (metrics != null) {
            try {
                metrics.close();
            } catch (Exception e) {
                HostLog.error("Cannot remove the plugin metrics of " + handle, e);
            }
            metrics = null;
        }
    }
}
