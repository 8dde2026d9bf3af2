package dev.kconnect.host;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;

/**
 * The class loader of one plugin location (an uber-jar, a directory of jars or a directory of
 * classes): child-first, as Kafka Connect's {@code PluginClassLoader}.
 *
 * <p>A class is looked for in the location's own URLs first when {@link IsolationRules} says it
 * may be isolated, and taken from the parent (the scan's {@link DelegatingLoader}: other
 * locations' plugin classes by name, else the host's class path — the JDK, connect-api,
 * kafka-clients, slf4j-api) when it may not, or when the location does not have it. Resources
 * are looked up the same way round: the location's own first, then the parent's.
 *
 * <p>Thread-safe and registered as parallel capable: tasks and ops on several threads may load
 * classes through one loader at once (loading is locked per class name).
 */
final class PluginClassLoader extends URLClassLoader {

    static {
        ClassLoader.registerAsParallelCapable();
    }

    private final Path location;

    PluginClassLoader(Path location, URL[] urls, ClassLoader parent) {
        super("plugin:" + location, urls, parent);
        this.location = Objects.requireNonNull(location);
    }

    /** The plugin location this loader serves (its plugin.path child). */
    Path location() {
        return location;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> klass = findLoadedClass(name);
            if (klass == null && IsolationRules.loadsInIsolation(name)) {
                try {
                    klass = findClass(name);
                } catch (ClassNotFoundException notHere) {
                    // not in this location: the parent may have it
                }
            }
            if (klass == null) {
                klass = super.loadClass(name, false);
            }
            if (resolve) {
                resolveClass(klass);
            }
            return klass;
        }
    }

    @Override
    public URL getResource(String name) {
        Objects.requireNonNull(name);
        URL own = findResource(name);
        return own != null ? own : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        Objects.requireNonNull(name);
        List<URL> all = new ArrayList<>();
        for (Enumeration<URL> own = findResources(name); own.hasMoreElements(); ) {
            all.add(own.nextElement());
        }
        ClassLoader parent = getParent();
        Enumeration<URL> inherited = parent != null
                ? parent.getResources(name)
                : ClassLoader.getSystemResources(name);
        while (inherited.hasMoreElements()) {
            all.add(inherited.nextElement());
        }
        return Collections.enumeration(all);
    }

    @Override
    public String toString() {
        return "PluginClassLoader{location=" + location + "}";
    }
}
