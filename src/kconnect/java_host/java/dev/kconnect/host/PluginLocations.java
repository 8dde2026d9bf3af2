package dev.kconnect.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns {@code plugin.path} into plugin locations and a location into the URLs of its class
 * loader, by Kafka Connect's rules (its {@code PluginUtils.pluginLocations} and
 * {@code pluginUrls}):
 *
 * <ul>
 *   <li>each {@code plugin.path} entry is a directory whose children (directories, {@code .jar}
 *       / {@code .zip} archives, and — uselessly — {@code .class} files) are the locations; an
 *       entry that is itself an archive is one location; a missing entry is reported and
 *       skipped;</li>
 *   <li>an archive location is an uber-jar: its loader has just that archive;</li>
 *   <li>a directory location is searched depth-first, following symbolic links (broken ones
 *       are skipped, each real path visited once): its loader gets every archive found, in path
 *       order; when it holds class files and no archive, the directory itself is the one URL (a
 *       class hierarchy); when it holds both, only the archives count.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe; problems are collected into the caller's list rather than
 * thrown, as Kafka logs them and goes on.
 */
final class PluginLocations {

    private PluginLocations() {
    }

    /** How a location's classes are laid out. */
    enum Kind { SINGLE_JAR, MULTI_JAR, CLASS_HIERARCHY }

    /** One location with its loader's class path. */
    record Location(Path path, Kind kind, List<Path> classPath) {
    }

    /** A problem met while reading the plugin path, for the scan's {@code errors}. */
    record Problem(String location, String message) {
    }

    /** The locations of every {@code plugin.path} entry, in entry order then name order. */
    static List<Path> locations(List<String> pluginPath, List<Problem> problems) {
        Set<Path> locations = new LinkedHashSet<>();
        for (String entry : pluginPath) {
            String trimmed = entry.trim();
            try {
                Path element = Paths.get(trimmed).toAbsolutePath();
                if (!Files.exists(element)) {
                    problems.add(new Problem(element.toString(),
                            "plugin.path entry does not exist: " + element));
                } else if (Files.isDirectory(element)) {
                    locations.addAll(children(element));
                } else if (isArchive(element)) {
                    locations.add(element);
                }
            } catch (InvalidPathException | IOException e) {
                problems.add(new Problem(trimmed, "Could not list plugin.path entry " + trimmed + ": " + e));
            }
        }
        return new ArrayList<>(locations);
    }

    /**
     * The class path of one location.
     *
     * @throws IOException when the location cannot be listed (for instance a lone class file)
     */
    static Location classPath(Path location, List<Problem> problems) throws IOException {
        if (isArchive(location)) {
            return new Location(location, Kind.SINGLE_JAR, List.of(location));
        }
        Set<Path> archives = new TreeSet<>();
        boolean hasClassFiles = false;
        Set<Path> visited = new HashSet<>();
        visited.add(location);
        Deque<Iterator<Path>> pending = new ArrayDeque<>();
        pending.push(children(location).iterator());
        while (!pending.isEmpty()) {
            Iterator<Path> siblings = pending.peek();
            if (!siblings.hasNext()) {
                pending.pop();
                continue;
            }
            Path next = siblings.next();
            if (Files.isSymbolicLink(next)) {
                try {
                    Path target = next.getParent().resolve(Files.readSymbolicLink(next)).toRealPath();
                    if (!Files.exists(target)) {
                        continue;
                    }
                    next = target;
                } catch (IOException e) {
                    problems.add(new Problem(location.toString(),
                            "Ignoring " + next + ": its symbolic link cannot be resolved: " + e));
                    continue;
                }
            }
            if (!visited.add(next)) {
                continue;
            }
            if (isArchive(next)) {
                archives.add(next);
            } else if (isClassFile(next)) {
                hasClassFiles = true;
            } else {
                pending.push(children(next).iterator());
            }
        }
        if (hasClassFiles && archives.isEmpty()) {
            return new Location(location, Kind.CLASS_HIERARCHY, List.of(location));
        }
        if (hasClassFiles) {
            HostLog.warn("Plugin location " + location
                    + " holds both archives and class files; only the archives are used");
        }
        return new Location(location, Kind.MULTI_JAR, new ArrayList<>(archives));
    }

    static boolean isArchive(Path path) {
        String name = path.toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".jar") || name.endsWith(".zip");
    }

    static boolean isClassFile(Path path) {
        return path.toString().toLowerCase(Locale.ROOT).endsWith(".class");
    }

    /** A directory's plugin-relevant children (directories, archives, class files), sorted. */
    private static List<Path> children(Path dir) throws IOException {
        List<Path> result = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(dir,
                p -> Files.isDirectory(p) || isArchive(p) || isClassFile(p))) {
            for (Path p : listing) {
                result.add(p);
            }
        }
        result.sort(null);
        return result;
    }
}
