package dev.kconnect.host;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One plugin found by a scan: its class, kind, version and the location (and loader) it came
 * from. A class implementing two kinds (a converter that is also a header converter) gives two
 * descriptors.
 *
 * <p>Descriptors sort as Kafka Connect's {@code PluginDesc}: by class name, then version
 * ({@link PluginVersion}), then location, then kind — so among copies of one class, the last is
 * the one Kafka runs. Immutable and thread-safe.
 */
final class PluginDescriptor implements Comparable<PluginDescriptor> {

    /** The version of a plugin that is not {@code Versioned}, or whose version() failed. */
    static final String UNDEFINED_VERSION = "undefined";

    private static final Comparator<PluginDescriptor> ORDER = Comparator
            .comparing((PluginDescriptor d) -> d.className)
            .thenComparing(d -> d.sortableVersion)
            .thenComparing(d -> d.locationUri)
            .thenComparing(d -> d.type);

    final String className;
    final PluginType type;
    final String version;
    final Class<?> pluginClass;
    final PluginClassLoader loader;
    private final PluginVersion sortableVersion;
    private final String locationUri;

    PluginDescriptor(Class<?> pluginClass, PluginType type, String version, PluginClassLoader loader) {
        this.className = pluginClass.getName();
        this.type = type;
        this.version = version == null ? "null" : version;
        this.pluginClass = pluginClass;
        this.loader = loader;
        this.sortableVersion = new PluginVersion(this.version);
        this.locationUri = loader.location().toUri().toString();
    }

    Path location() {
        return loader.location();
    }

    /** The descriptor as the {@code scan} op reports it. */
    Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("class", className);
        json.put("type", type.wireName());
        json.put("version", version);
        json.put("location", location().toString());
        return json;
    }

    @Override
    public int compareTo(PluginDescriptor other) {
        return ORDER.compare(this, other);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PluginDescriptor && compareTo((PluginDescriptor) o) == 0;
    }

    @Override
    public int hashCode() {
        return className.hashCode() * 31 + type.hashCode();
    }

    @Override
    public String toString() {
        return className + " (" + type.wireName() + " " + version + " from " + location() + ")";
    }
}
