package dev.kconnect.host;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Driver;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.apache.kafka.connect.components.Versioned;

/**
 * Finds the plugins of a {@code plugin.path}, with Kafka Connect's default discovery
 * ({@code plugin.discovery=hybrid_warn}): one {@link PluginClassLoader} per location, and in it
 * every plugin named by a {@code META-INF/services} manifest plus every public concrete class
 * that extends a connector, converter, header converter, transformation or predicate API type
 * (found by reading class-file headers, see {@link ClassFileHeader}).
 *
 * <p>A class counts as a plugin of a location only when that location's loader defines it (a
 * class the loader takes from the host is not the location's). Each plugin is instantiated once,
 * with the context class loader set to its loader, to ask its {@code version()}. A plugin that is
 * not {@code Versioned} has version {@code "undefined"}; so has one whose {@code version()}
 * throws, and it is still listed, the failure reported as an error (Kafka logs it). A class that
 * cannot be loaded or instantiated is reported and not listed. Like Kafka, the scan also lets
 * each location's JDBC drivers register with {@code DriverManager}.
 *
 * <p>A {@code PluginScanner} is used for one scan by one thread; plugin code it runs may start
 * threads of its own.
 */
final class PluginScanner {

    private static final int MAX_SERVICE_ERRORS = 100;

    private final ClassLoader parentLoader;
    private final List<PluginDescriptor> found = new ArrayList<>();
    private final List<Map<String, Object>> errors = new ArrayList<>();

    /** @param parentLoader the parent of every location's loader (a {@link DelegatingLoader}) */
    PluginScanner(ClassLoader parentLoader) {
        this.parentLoader = parentLoader;
    }

    /** What a scan found: every descriptor (sorted) and every problem met. */
    record Result(List<PluginDescriptor> plugins, List<Map<String, Object>> errors) {
    }

    /** Scans the locations of the {@code plugin.path} entries. */
    Result scan(List<String> pluginPath) {
        List<PluginLocations.Problem> problems = new ArrayList<>();
        for (Path location : PluginLocations.locations(pluginPath, problems)) {
            try {
                scanLocation(PluginLocations.classPath(location, problems));
            } catch (IOException | RuntimeException e) {
                error(location, null, "Could not read plugin location " + location + ": " + e);
            }
        }
        for (PluginLocations.Problem p : problems) {
            error(p.location(), null, p.message());
        }
        return new Result(new ArrayList<>(new TreeSet<>(found)), errors);
    }

    private void scanLocation(PluginLocations.Location location) throws MalformedURLException {
        URL[] urls = new URL[location.classPath().size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = location.classPath().get(i).toUri().toURL();
        }
        PluginClassLoader loader = new PluginClassLoader(location.path(), urls, parentLoader);
        HostLog.info("Scanning plugin location " + location.path() + " (" + location.kind()
                + ", " + urls.length + " URL(s))");
        Set<String> byManifest = new HashSet<>();
        for (PluginType type : PluginType.values()) {
            discoverByManifest(type, loader, byManifest);
        }
        List<PluginDescriptor> byClassScan = discoverByClassScan(location, loader, byManifest);
        if (!byClassScan.isEmpty()) {
            HostLog.warn("Plugins without ServiceLoader manifests in " + location.path()
                    + " (found by class scanning only): " + byClassScan);
        }
        registerJdbcDrivers(loader);
    }

    // ----------------------------------------------------------------------------- manifests

    /**
     * Plugins of one kind named by the location's {@code META-INF/services} manifests (and the
     * host's, whose classes are then skipped: they are not the location's). {@code handled}
     * collects every class/kind met here, loaded or not, so class scanning does not retry it.
     */
    private void discoverByManifest(PluginType type, PluginClassLoader loader, Set<String> handled) {
        Iterator<? extends ServiceLoader.Provider<?>> providers =
                ServiceLoader.load(type.apiType(), loader).stream().iterator();
        int failures = 0;
        while (true) {
            ServiceLoader.Provider<?> provider;
            Class<?> klass;
            try (LoaderSwap swap = LoaderSwap.to(loader)) {
                if (!providers.hasNext()) {
                    return;
                }
                provider = providers.next();
                klass = provider.type();
            } catch (ServiceConfigurationError | LinkageError e) {
                // a manifest names a class that is missing, broken or of another type
                String named = manifestEntryIn(String.valueOf(e.getMessage()), loader, type);
                if (named != null) {
                    handled.add(key(named, type));
                }
                error(loader.location(), named, "Failed to discover " + type.apiType().getSimpleName()
                        + " in " + loader.location() + ": " + e.getMessage()
                        + (e.getCause() instanceof LinkageError ? describe(e.getCause()) : ""));
                if (++failures >= MAX_SERVICE_ERRORS) {
                    return; // the iterator cannot get past a broken entry
                }
                continue;
            }
            if (klass.getClassLoader() != loader) {
                continue; // the host's own (e.g. connect-api's StringConverter), seen through the parent
            }
            handled.add(key(klass.getName(), type));
            Object plugin;
            try (LoaderSwap swap = LoaderSwap.to(loader)) {
                plugin = provider.get();
            } catch (Throwable t) {
                Throwable cause = t instanceof ServiceConfigurationError && t.getCause() != null ? t.getCause() : t;
                error(loader.location(), klass.getName(), "Failed to discover " + type.apiType().getSimpleName()
                        + " in " + loader.location() + ": Unable to instantiate " + klass.getSimpleName()
                        + describe(cause) + ": " + cause);
                continue;
            }
            found.add(describePlugin(plugin, type, loader));
        }
    }

    /** The class named by the location's own manifests that an error message is about, if any. */
    private static String manifestEntryIn(String message, PluginClassLoader loader, PluginType type) {
        String best = null;
        try {
            Enumeration<URL> manifests = loader.findResources("META-INF/services/" + type.apiType().getName());
            while (manifests.hasMoreElements()) {
                try (InputStream in = manifests.nextElement().openStream()) {
                    for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\\R")) {
                        int hash = line.indexOf('#');
                        String name = (hash >= 0 ? line.substring(0, hash) : line).trim();
                        if (!name.isEmpty() && message.contains(name)
                                && (best == null || name.length() > best.length())) {
                            best = name;
                        }
                    }
                }
            }
        } catch (IOException e) {
            // unreadable manifest: the error stays without a class name
        }
        return best;
    }

    // ----------------------------------------------------------------------------- class files

    private List<PluginDescriptor> discoverByClassScan(
            PluginLocations.Location location, PluginClassLoader loader, Set<String> byManifest) {
        Map<String, ClassFileHeader> headers = readHeaders(location);
        Map<PluginType, Map<String, Boolean>> memo = new HashMap<>();
        List<PluginDescriptor> result = new ArrayList<>();
        for (ClassFileHeader header : headers.values()) {
            if (!header.isPublicConcreteClass()) {
                continue;
            }
            for (PluginType type : PluginType.values()) {
                if (!type.foundByClassScan()
                        || byManifest.contains(key(header.name, type))
                        || !extendsApi(header.name, type, headers, loader,
                                memo.computeIfAbsent(type, t -> new HashMap<>()))) {
                    continue;
                }
                PluginDescriptor descriptor = instantiate(header.name, type, loader);
                if (descriptor != null) {
                    found.add(descriptor);
                    result.add(descriptor);
                }
            }
        }
        return result;
    }

    /** True when the named class (or one of its ancestors) is the plugin type's API type. */
    private boolean extendsApi(String className, PluginType type, Map<String, ClassFileHeader> headers,
                               ClassLoader loader, Map<String, Boolean> memo) {
        Boolean known = memo.get(className);
        if (known != null) {
            return known;
        }
        memo.put(className, Boolean.FALSE); // guards against (impossible) cycles
        boolean result;
        ClassFileHeader header = headers.get(className);
        if (className.equals(type.apiType().getName())) {
            result = true;
        } else if (header != null) {
            result = header.superName != null && extendsApi(header.superName, type, headers, loader, memo);
            for (int i = 0; !result && i < header.interfaceNames.size(); i++) {
                result = extendsApi(header.interfaceNames.get(i), type, headers, loader, memo);
            }
        } else if (className.startsWith("java.")) {
            result = false; // no JDK class is a Connect plugin type
        } else {
            // an ancestor outside the location: ask the class as the plugin's loader sees it
            try {
                result = type.apiType().isAssignableFrom(Class.forName(className, false, loader));
            } catch (Throwable t) {
                result = false;
            }
        }
        memo.put(className, result);
        return result;
    }

    private PluginDescriptor instantiate(String className, PluginType type, PluginClassLoader loader) {
        Class<?> klass;
        try {
            klass = Class.forName(className, false, loader);
        } catch (Throwable t) {
            return null; // as Kafka's scanner, classes that do not load are passed over
        }
        if (klass.getClassLoader() != loader || !type.apiType().isAssignableFrom(klass)
                || Modifier.isAbstract(klass.getModifiers())) {
            return null;
        }
        Object plugin;
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            plugin = klass.getDeclaredConstructor().newInstance();
        } catch (Throwable t) {
            Throwable cause = t instanceof InvocationTargetException && t.getCause() != null ? t.getCause() : t;
            error(loader.location(), className, "Failed to discover " + type.apiType().getSimpleName()
                    + " in " + loader.location() + ": Unable to instantiate " + klass.getSimpleName()
                    + describe(cause) + ": " + cause);
            return null;
        }
        return describePlugin(plugin, type, loader);
    }

    /** Reads the headers of every class file of a location, keyed by class name. */
    private Map<String, ClassFileHeader> readHeaders(PluginLocations.Location location) {
        Map<String, ClassFileHeader> headers = new LinkedHashMap<>();
        for (Path entry : location.classPath()) {
            try {
                if (Files.isDirectory(entry)) {
                    readDirectory(entry, headers);
                } else {
                    readJar(entry, headers);
                }
            } catch (IOException | RuntimeException e) {
                error(location.path(), null, "Could not read " + entry + ": " + e);
            }
        }
        return headers;
    }

    private static void readJar(Path jar, Map<String, ClassFileHeader> headers) throws IOException {
        try (JarFile file = new JarFile(jar.toFile(), false)) {
            for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                if (!isScannableClassFile(entry.getName())) {
                    continue;
                }
                try (InputStream in = file.getInputStream(entry)) {
                    addHeader(in.readAllBytes(), headers);
                }
            }
        }
    }

    private static void readDirectory(Path root, Map<String, ClassFileHeader> headers) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                if (isScannableClassFile(root.relativize(file).toString()) && Files.isRegularFile(file)) {
                    addHeader(Files.readAllBytes(file), headers);
                }
            }
        }
    }

    private static boolean isScannableClassFile(String relativeName) {
        return relativeName.endsWith(".class")
                && !relativeName.startsWith("META-INF/") // multi-release variants of base classes
                && !relativeName.endsWith("module-info.class")
                && !relativeName.endsWith("package-info.class");
    }

    private static void addHeader(byte[] bytes, Map<String, ClassFileHeader> headers) {
        try {
            ClassFileHeader header = ClassFileHeader.read(bytes);
            headers.putIfAbsent(header.name, header); // the first copy on the class path wins
        } catch (IOException | RuntimeException e) {
            // not a readable class file: no plugin here
        }
    }

    // ----------------------------------------------------------------------------- helpers

    private PluginDescriptor describePlugin(Object plugin, PluginType type, PluginClassLoader loader) {
        String version = PluginDescriptor.UNDEFINED_VERSION;
        if (plugin instanceof Versioned) {
            try (LoaderSwap swap = LoaderSwap.to(loader)) {
                version = ((Versioned) plugin).version();
            } catch (Throwable t) {
                HostLog.error("Failed to get plugin version for " + plugin.getClass(), t);
                error(loader.location(), plugin.getClass().getName(), "Failed to get plugin version for "
                        + plugin.getClass() + ": " + t + " (listed with version 'undefined')");
            }
        }
        return new PluginDescriptor(plugin.getClass(), type, version, loader);
    }

    private static void registerJdbcDrivers(PluginClassLoader loader) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            for (Iterator<Driver> drivers = ServiceLoader.load(Driver.class, loader).iterator(); drivers.hasNext(); ) {
                drivers.next(); // a driver registers itself with DriverManager when initialised
            }
        } catch (Throwable t) {
            // drivers named in a manifest but missing from the location: ignored, as Kafka does
        }
    }

    /** Why reflective instantiation failed, in Kafka's words for each kind of failure. */
    private static String describe(Throwable t) {
        if (t instanceof InvocationTargetException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof NoSuchMethodException) {
            return " (the plugin class needs a public no-argument constructor and must not be a non-static inner class)";
        } else if (t instanceof IllegalAccessException) {
            return " (the plugin class's no-argument constructor must be public)";
        } else if (t instanceof ExceptionInInitializerError) {
            return " (the plugin class's static initialisation failed)";
        } else if (t instanceof LinkageError) {
            return " (the plugin class has a dependency which is missing or invalid)";
        } else if (t != null) {
            return " (the plugin's constructor threw)";
        }
        return "";
    }

    private static String key(String className, PluginType type) {
        return className + "\u0000" + type;
    }

    private void error(Object location, String className, String message) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("location", location == null ? null : location.toString());
        entry.put("class", className);
        entry.put("message", message);
        errors.add(entry);
        HostLog.warn(message);
    }
}
