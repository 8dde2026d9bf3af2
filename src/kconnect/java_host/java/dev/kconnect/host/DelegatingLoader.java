package dev.kconnect.host;

import java.util.Map;

/**
 * The parent of every {@link PluginClassLoader} of one scan, as Kafka Connect's
 * {@code DelegatingClassLoader}: a class that a plugin location does not have itself is looked
 * up here, and when its name is that of a plugin found by the scan (and a name that may be
 * isolated), it comes from that plugin's chosen location; any other name comes from the host's
 * class path. So a plugin may use another location's plugin classes by name (a connector
 * instantiating another location's converter, say), as on Kafka Connect.
 *
 * <p>The routes are installed once the scan is over, as Kafka does: during the scan itself,
 * locations see only the host's classes. Thread-safe and parallel capable; the routes are an
 * immutable map published through a volatile field.
 */
final class DelegatingLoader extends ClassLoader {

    static {
        ClassLoader.registerAsParallelCapable();
    }

    private volatile Map<String, PluginClassLoader> routes = Map.of();

    DelegatingLoader(ClassLoader hostLoader) {
        super("kconnect-plugins", hostLoader);
    }

    /** Routes each plugin class name to the loader of the copy that runs. */
    void install(Map<String, PluginClassLoader> pluginLoaders) {
        routes = Map.copyOf(pluginLoaders);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        PluginClassLoader owner = routes.get(name);
        if (owner != null && IsolationRules.loadsInIsolation(name)) {
            return owner.loadClass(name);
        }
        return super.loadClass(name, resolve);
    }
}
