package dev.kconnect.host;

import java.util.Map;

/**
 * A transformation or predicate of a connector's transformation chain, configured under the
 * worker's {@code handle} (protocol v5), with the record codec of that handle: the schemas the
 * worker defined in the batches it sent under the handle ({@link BatchDecoder}) and those the host
 * defined in its answers ({@link BatchEncoder}). Calls into the plugin run with its loader as the
 * context class loader.
 *
 * <p>Thread-safe as far as the host goes: a batch op holds the codec's lock from decoding to
 * encoding ({@link #codecLock()}); the plugin itself is called by one batch op at a time per chain
 * (a task thread's), as Kafka's task thread does.
 */
abstract class RunningStage extends RunningPlugin {

    final BatchDecoder decoder = new BatchDecoder();
    final BatchEncoder encoder = new BatchEncoder();
    private final AutoCloseable plugin;
    private final String what;

    RunningStage(String handle, AutoCloseable plugin, ClassLoader loader, String what) {
        super(handle, loader);
        this.plugin = plugin;
        this.what = what;
    }

    /** Serialises the batch ops that use this handle's codec. */
    final Object codecLock() {
        return decoder;
    }

    /** {@code configure(props)} (the alias's settings, prefix stripped, as Kafka passes them). */
    abstract void configure(Map<String, String> props);

    /**
     * Forgets the instance after calling its {@code close()}; what that throws is thrown after
     * the rest is forgotten (the worker logs it, as Kafka's {@code closeQuietly} does).
     */
    @Override
    synchronized void close() {
        RuntimeException failure = null;
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            plugin.close();
        } catch (RuntimeException e) {
            failure = e;
        } catch (Exception e) {
            failure = new RuntimeException("Closing the " + what + " " + handle + " failed: " + e, e);
        } finally {
            super.close();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
