package dev.kconnect.host;

/**
 * Sets the calling thread's context class loader for the length of a try-with-resources block
 * and puts the previous one back on close, as Kafka Connect's {@code LoaderSwap}: plugin code
 * (and the libraries it uses: JDBC drivers, ServiceLoader lookups, Jackson modules) finds its
 * own classes through the context loader.
 *
 * <p>Confined to the thread that opened it.
 */
final class LoaderSwap implements AutoCloseable {

    private final Thread thread;
    private final ClassLoader previous;

    private LoaderSwap(ClassLoader loader) {
        this.thread = Thread.currentThread();
        this.previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
    }

    /** Makes {@code loader} the current thread's context class loader until {@link #close()}. */
    static LoaderSwap to(ClassLoader loader) {
        return new LoaderSwap(loader);
    }

    @Override
    public void close() {
        thread.setContextClassLoader(previous);
    }
}
