package dev.kconnect.host;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the last {@code scan} found, kept for the ops that follow it: for each plugin class name,
 * the copy Kafka Connect would run.
 *
 * <p>When one class is found in several locations, Kafka keeps every copy in its plugin list and
 * loads the greatest by {@link PluginDescriptor}'s order — the highest version, then the last
 * location. The registry does the same, and reports each other copy as an error of the scan.
 *
 * <p>Immutable once built, so ops on any thread may read it while a new scan builds its
 * successor; the host swaps registries atomically.
 */
final class PluginRegistry {

    static final PluginRegistry EMPTY = new PluginRegistry(List.of(), List.of());

    private final List<PluginDescriptor> plugins;
    private final Map<String, PluginDescriptor> chosen;
    private final List<Map<String, Object>> errors;

    private PluginRegistry(List<PluginDescriptor> sortedPlugins, List<Map<String, Object>> scanErrors) {
        this.plugins = List.copyOf(sortedPlugins);
        Map<String, PluginDescriptor> byClass = new HashMap<>();
        for (PluginDescriptor d : sortedPlugins) {
            byClass.put(d.className, d); // sorted ascending: the last copy of a class wins
        }
        List<Map<String, Object>> allErrors = new ArrayList<>(scanErrors);
        for (PluginDescriptor d : sortedPlugins) {
            PluginDescriptor winner = byClass.get(d.className);
            if (!winner.location().equals(d.location()) && d.type == firstTypeOf(sortedPlugins, d)) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("location", d.location().toString());
                e.put("class", d.className);
                e.put("message", "Plugin class " + d.className + " (version " + d.version + ") in "
                        + d.location() + " is also in " + winner.location() + " (version " + winner.version
                        + "), which is the copy used: Kafka Connect runs the highest version");
                allErrors.add(e);
            }
        }
        this.chosen = Collections.unmodifiableMap(byClass);
        this.errors = List.copyOf(allErrors);
    }

    /** Builds the registry of a scan's result. */
    static PluginRegistry of(PluginScanner.Result result) {
        return new PluginRegistry(result.plugins(), result.errors());
    }

    /** The loader of the copy that runs, for each plugin class name. */
    Map<String, PluginClassLoader> chosenLoaders() {
        Map<String, PluginClassLoader> loaders = new HashMap<>();
        chosen.forEach((name, d) -> loaders.put(name, d.loader));
        return loaders;
    }

    /** Every plugin found, every copy, in Kafka's order. */
    List<PluginDescriptor> plugins() {
        return plugins;
    }

    /** The scan's problems, shadowed copies included. */
    List<Map<String, Object>> errors() {
        return errors;
    }

    /**
     * The copy of a plugin class that runs.
     *
     * @throws IllegalArgumentException when the last scan did not find the class
     */
    PluginDescriptor plugin(String className) {
        PluginDescriptor d = className == null ? null : chosen.get(className);
        if (d == null) {
            throw new IllegalArgumentException("Unknown plugin class: " + className
                    + " (not found by the last scan of plugin.path)");
        }
        return d;
    }

    /**
     * A fresh instance of a plugin class, constructed with its loader as the context loader.
     * A constructor's exception is rethrown as itself, not wrapped.
     */
    Object newInstance(String className) throws Throwable {
        PluginDescriptor d = plugin(className);
        try (LoaderSwap swap = LoaderSwap.to(d.loader)) {
            return d.pluginClass.getDeclaredConstructor().newInstance();
        } catch (InvocationTargetException e) {
            throw e.getCause() != null ? e.getCause() : e;
        }
    }

    private static PluginType firstTypeOf(List<PluginDescriptor> sorted, PluginDescriptor d) {
        // a class found as two kinds in one location is reported once, under its first kind
        for (PluginDescriptor other : sorted) {
            if (other.className.equals(d.className) && other.location().equals(d.location())) {
                return other.type;
            }
        }
        return d.type;
    }
}
