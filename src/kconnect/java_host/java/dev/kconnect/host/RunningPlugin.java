package dev.kconnect.host;

import java.util.LinkedHashMap;
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

    /** One metrics registry for the host's plugins, read by the {@code metrics} op. */
    private static final class SharedMetrics {
        static final Metrics METRICS = new Metrics();
    }

    final String handle;
    final ClassLoader loader;
    private PluginMetricsImpl metrics;
    /** The tags of the instance's plugin metrics (the start op's {@code metric_tags}). */
    private Map<String, String> metricTags;

    RunningPlugin(String handle, ClassLoader loader) {
        this.handle = handle;
        this.loader = loader;
    }

    /** The registry of every instance's {@code pluginMetrics()}. */
    static Metrics sharedMetrics() {
        return SharedMetrics.METRICS;
    }

    /**
     * Sets the tags of the instance's plugin metrics, in order (Kafka's: {@code connector}, then
     * {@code task}); before {@code initialize}. Without them the tag is {@code handle}.
     */
    synchronized void metricTags(Map<String, String> tags) {
        metricTags = tags == null || tags.isEmpty() ? null : new LinkedHashMap<>(tags);
    }

    /** The tags given by {@link #metricTags(Map)}, or null. */
    synchronized Map<String, String> metricTags() {
        return metricTags == null ? null : new LinkedHashMap<>(metricTags);
    }

    /** The instance's {@code pluginMetrics()}: tagged as the worker said, kept in the host's registry. */
    synchronized PluginMetrics pluginMetrics() {
        if (metrics == null) {
            Map<String, String> tags = metricTags != null ? metricTags : Map.of("handle", handle);
            metrics = new PluginMetricsImpl(SharedMetrics.METRICS, tags);
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
