package dev.kconnect.host;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.TabularData;
import javax.management.openmbean.TabularType;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;

/**
 * The {@code metrics} op (protocol v4): what the host's plugins measure, for the worker's
 * {@code /metrics}.
 *
 * <ul>
 * <li>{@code plugin_metrics}: every KIP-877 metric of the host's {@code Metrics} registry
 * (group {@code plugins}, tagged as the worker said at start: {@code connector}, {@code task},
 * then the plugin's own), with its current value;</li>
 * <li>{@code mbeans}: every MBean of the platform MBean server outside the JVM's own domains,
 * its key properties in the order they were registered, the handle that registered it (see
 * {@link MBeanOwners}) and its readable attributes flattened as the Prometheus JMX exporter
 * flattens them without rules: numbers, booleans (1/0) and dates (seconds) are values; a
 * {@code CompositeData} adds its attribute's name to the path and gives one value per item; a
 * {@code TabularData} (an MXBean's {@code Map}) gives one value per row, labelled with the row's
 * index columns (a repeated label name gets {@code _} appended; a composite index becomes
 * {@code <index>_<item>} labels), its value columns named after the column unless the column is
 * {@code value}; an {@code Optional} is its content; strings, enums, arrays, nulls and other
 * objects are left out.</li>
 * </ul>
 *
 * <p>An attribute (or a bean) that cannot be read is left out; nothing here fails the op.
 * Thread-safe: reads only.
 */
final class MetricsOps {

    /** The KIP-877 group (Kafka's {@code PluginMetricsImpl}). */
    private static final String PLUGINS_GROUP = "plugins";

    /** The JVM's own MBean domains: the JMX exporter's JVM list, {@code jdk.*}, {@code com.sun.*}. */
    private static final Set<String> JVM_DOMAINS = Set.of(
            "JMImplementation", "java.lang", "java.nio", "java.util.logging", "javax.management",
            "javax.management.remote", "sun.management");

    private final MBeanServer server;
    private final MBeanOwners owners;
    private final Function<String, Map<String, String>> tagsOf;

    /** {@code tagsOf}: a handle's metric tags (null when unknown). */
    MetricsOps(Function<String, Map<String, String>> tagsOf) {
        this.server = ManagementFactory.getPlatformMBeanServer();
        this.owners = new MBeanOwners(server);
        this.tagsOf = tagsOf;
    }

    static boolean isJvmDomain(String domain) {
        return JVM_DOMAINS.contains(domain) || domain.startsWith("jdk.") || domain.startsWith("com.sun.");
    }

    Map<String, Object> snapshot() {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("plugin_metrics", pluginMetrics());
        result.put("mbeans", mbeans());
        return result;
    }

    // -- KIP-877 ---------------------------------------------------------------------------------

    private static List<Object> pluginMetrics() {
        List<Object> out = new ArrayList<>();
        for (Map.Entry<MetricName, KafkaMetric> e : RunningPlugin.sharedMetrics().metrics().entrySet()) {
            MetricName name = e.getKey();
            if (!PLUGINS_GROUP.equals(name.group())) {
                continue; // the registry's own kafka-metrics-count
            }
            Object value;
            try {
                value = e.getValue().metricValue();
            } catch (Throwable t) {
                value = Double.NaN; // a gauge that throws reads NaN, as in the worker's registry
            }
            Map<String, Object> metric = new LinkedHashMap<>();
            metric.put("name", name.name());
            metric.put("group", name.group());
            metric.put("description", name.description());
            metric.put("tags", pairs(name.tags()));
            if (!putValue(metric, value, true)) {
                continue;
            }
            out.add(metric);
        }
        return out;
    }

    // -- MBeans ----------------------------------------------------------------------------------

    private List<Object> mbeans() {
        List<Object> out = new ArrayList<>();
        for (ObjectName name : new TreeSet<>(server.queryNames(null, null))) {
            if (isJvmDomain(name.getDomain())) {
                continue;
            }
            try {
                Map<String, Object> bean = mbean(name);
                if (bean != null) {
                    out.add(bean);
                }
            } catch (Throwable t) {
                // a bean that went away meanwhile, or whose MBeanInfo throws: left out
            }
        }
        return out;
    }

    private Map<String, Object> mbean(ObjectName name) throws Exception {
        MBeanAttributeInfo[] infos = server.getMBeanInfo(name).getAttributes();
        Map<String, MBeanAttributeInfo> readable = new LinkedHashMap<>();
        for (MBeanAttributeInfo info : infos) {
            if (info.isReadable()) {
                readable.put(info.getName(), info);
            }
        }
        if (readable.isEmpty()) {
            return null;
        }
        LinkedHashMap<String, String> keys = keyProperties(name);
        List<Object> attributes = new ArrayList<>();
        for (Attribute attribute : read(name, readable)) {
            MBeanAttributeInfo info = readable.get(attribute.getName());
            if (info != null) {
                flatten(attributes, keys, new LinkedHashMap<>(), List.of(), info.getName(),
                        info.getDescription(), attribute.getValue());
            }
        }
        Map<String, Object> bean = new LinkedHashMap<>();
        bean.put("name", name.toString());
        bean.put("domain", name.getDomain());
        bean.put("keys", pairs(keys));
        bean.put("owner", owner(name));
        bean.put("attributes", attributes);
        return bean;
    }

    /** All readable attributes at once; one by one (skipping those that throw) if that fails. */
    private List<Attribute> read(ObjectName name, Map<String, MBeanAttributeInfo> readable) {
        try {
            AttributeList all = server.getAttributes(name, readable.keySet().toArray(new String[0]));
            if (all != null) {
                return all.asList();
            }
        } catch (Throwable t) {
            // below
        }
        List<Attribute> one = new ArrayList<>();
        for (String attribute : readable.keySet()) {
            try {
                one.add(new Attribute(attribute, server.getAttribute(name, attribute)));
            } catch (Throwable t) {
                // left out
            }
        }
        return one;
    }

    private Map<String, Object> owner(ObjectName name) {
        String handle = owners.owner(name);
        if (handle == null) {
            return null;
        }
        Map<String, Object> owner = new LinkedHashMap<>();
        owner.put("handle", handle);
        Map<String, String> tags = tagsOf.apply(handle);
        owner.put("tags", tags == null ? null : pairs(tags));
        return owner;
    }

    /**
     * The key properties in the order they were given when the bean was registered
     * ({@code ObjectName.getKeyPropertyList()} is a hash map), values as written: a quoted value
     * keeps its quotes, as the JMX exporter shows it.
     */
    static LinkedHashMap<String, String> keyProperties(ObjectName name) {
        LinkedHashMap<String, String> keys = new LinkedHashMap<>();
        String text = name.getKeyPropertyListString();
        int i = 0;
        while (i < text.length()) {
            int equals = text.indexOf('=', i);
            if (equals < 0) {
                break;
            }
            String key = text.substring(i, equals);
            int end = equals + 1;
            if (end < text.length() && text.charAt(end) == '"') {
                end++;
                while (end < text.length() && text.charAt(end) != '"') {
                    end += text.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(end + 1, text.length());
            } else {
                while (end < text.length() && text.charAt(end) != ',') {
                    end++;
                }
            }
            keys.put(key, text.substring(equals + 1, end));
            i = end + 1; // past the comma
        }
        return keys;
    }

    /**
     * Adds the values of one attribute (or of a part of one) to {@code out}, as the JMX exporter
     * walks it: {@code path} is the names of the enclosing composite attributes, {@code labels}
     * the row labels of enclosing tables (beyond the bean's {@code keys}).
     */
    private static void flatten(List<Object> out, LinkedHashMap<String, String> keys,
            LinkedHashMap<String, String> labels, List<String> path, String name, String description,
            Object value) {
        if (value == null) {
            return;
        }
        if (value instanceof Number || value instanceof Boolean || value instanceof Date) {
            Map<String, Object> sample = new LinkedHashMap<>();
            sample.put("path", path);
            sample.put("name", name);
            sample.put("labels", pairs(labels));
            sample.put("description", description);
            Object v = value instanceof Date ? ((Date) value).getTime() / 1000.0 : value;
            putValue(sample, v, false);
            out.add(sample);
        } else if (value instanceof CompositeData) {
            CompositeData composite = (CompositeData) value;
            CompositeType type = composite.getCompositeType();
            List<String> inner = append(path, name);
            for (String item : type.keySet()) {
                flatten(out, keys, labels, inner, item, type.getDescription(), composite.get(item));
            }
        } else if (value instanceof TabularData) {
            table(out, keys, labels, path, name, (TabularData) value);
        } else if (value instanceof Optional) {
            Optional<?> optional = (Optional<?>) value;
            if (optional.isPresent()) {
                flatten(out, keys, labels, path, name, description, optional.get());
            }
        }
        // strings, enums, arrays and other objects: not values (the exporter drops them too)
    }

    private static void table(List<Object> out, LinkedHashMap<String, String> keys,
            LinkedHashMap<String, String> labels, List<String> path, String name, TabularData table) {
        TabularType type = table.getTabularType();
        List<String> indexes = type.getIndexNames();
        CompositeType rowType = type.getRowType();
        Set<String> columns = new TreeSet<>(rowType.keySet());
        columns.removeAll(indexes);
        List<String> inner = append(path, name);
        for (Object row : table.values()) {
            if (!(row instanceof CompositeData)) {
                continue;
            }
            CompositeData composite = (CompositeData) row;
            LinkedHashMap<String, String> rowLabels = new LinkedHashMap<>(labels);
            for (String index : indexes) {
                Object indexValue = composite.get(index);
                if (indexValue == null) {
                    continue;
                }
                String label = index;
                while (keys.containsKey(label) || rowLabels.containsKey(label)) {
                    label = label + "_"; // a nested table repeats its parent's index name
                }
                if (indexValue instanceof CompositeData) {
                    CompositeData compositeIndex = (CompositeData) indexValue;
                    for (String item : compositeIndex.getCompositeType().keySet()) {
                        rowLabels.put(label + "_" + item, String.valueOf(compositeIndex.get(item)));
                    }
                } else {
                    rowLabels.put(label, indexValue.toString());
                }
            }
            for (String column : columns) {
                boolean isValue = column.equalsIgnoreCase("value");
                flatten(out, keys, rowLabels, isValue ? path : inner, isValue ? name : column,
                        rowType.getDescription(), composite.get(column));
            }
        }
    }

    // -- helpers ---------------------------------------------------------------------------------

    /**
     * Puts {@code value} as {@code "value"}; a NaN or infinite double as {@code "value": null} and
     * {@code "nonfinite": "NaN" | "Infinity" | "-Infinity"} (JSON has none). Strings only when
     * {@code strings}. False when the value is of no kind sent.
     */
    private static boolean putValue(Map<String, Object> out, Object value, boolean strings) {
        if (value instanceof Boolean || (strings && value instanceof String)) {
            out.put("value", value);
            return true;
        }
        if (!(value instanceof Number)) {
            return false;
        }
        Number number = (Number) value;
        double d = number.doubleValue();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            out.put("value", null);
            out.put("nonfinite", Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        } else if (number instanceof Double || number instanceof Float) {
            out.put("value", d);
        } else if (number instanceof Long || number instanceof Integer || number instanceof Short
                || number instanceof Byte) {
            out.put("value", number.longValue());
        } else {
            out.put("value", d); // BigDecimal, AtomicLong...: as the exporter, their double value
        }
        return true;
    }

    private static List<Object> pairs(Map<String, String> map) {
        List<Object> pairs = new ArrayList<>();
        for (Map.Entry<String, String> e : map.entrySet()) {
            pairs.add(Arrays.asList(e.getKey(), e.getValue()));
        }
        return pairs;
    }

    private static List<String> append(List<String> path, String name) {
        List<String> longer = new ArrayList<>(path);
        longer.add(name);
        return longer;
    }
}
