package dev.kconnect.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * The {@code config_def} and {@code validate} ops: a fresh plugin instance's {@code config()}
 * and a fresh connector's {@code validate(config)}, called with the plugin's loader as context
 * loader, turned into JSON with the same string forms Kafka Connect's herder gives its REST
 * answers ({@code ConfigDef.convertToString}).
 *
 * <p>Thread-safe: holds no state besides the way to the current {@link PluginRegistry}.
 */
final class ConfigOps {

    static final String HIDDEN = "[hidden]";

    private final Supplier<PluginRegistry> registry;

    ConfigOps(Supplier<PluginRegistry> registry) {
        this.registry = registry;
    }

    Map<String, Object> configDef(String className) throws Throwable {
        PluginRegistry current = registry.get();
        Object plugin = current.newInstance(className);
        ConfigDef def;
        try (LoaderSwap swap = LoaderSwap.to(current.plugin(className).loader)) {
            def = configOf(plugin);
        }
        if (def == null) {
            throw new IllegalStateException(className + ".config() must return a ConfigDef that is not null.");
        }
        List<Object> keys = new ArrayList<>();
        for (ConfigDef.ConfigKey key : def.configKeys().values()) {
            keys.add(keyJson(key));
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("keys", keys);
        return result;
    }

    Map<String, Object> validate(String className, Map<String, String> config) throws Throwable {
        PluginRegistry current = registry.get();
        Object plugin = current.newInstance(className);
        if (!(plugin instanceof Connector)) {
            throw new IllegalArgumentException("Plugin class " + className + " is not a connector");
        }
        Connector connector = (Connector) plugin;
        ConfigDef def;
        Config validated;
        List<Object> values = new ArrayList<>();
        try (LoaderSwap swap = LoaderSwap.to(current.plugin(className).loader)) {
            // the herder asks for the ConfigDef first, then validates, on the same instance
            def = connector.config();
            validated = connector.validate(config);
            if (validated == null) {
                throw new IllegalStateException(className + ".validate() returned null");
            }
            Map<String, ConfigDef.ConfigKey> keys = def == null ? Map.of() : def.configKeys();
            for (ConfigValue value : validated.configValues()) {
                ConfigDef.ConfigKey key = keys.get(value.name());
                values.add(valueJson(value, key == null ? null : key.type));
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("values", values);
        return result;
    }

    private static ConfigDef configOf(Object plugin) {
        if (plugin instanceof Connector) {
            return ((Connector) plugin).config();
        } else if (plugin instanceof Converter) {
            return ((Converter) plugin).config();
        } else if (plugin instanceof HeaderConverter) {
            return ((HeaderConverter) plugin).config();
        } else if (plugin instanceof Transformation) {
            return ((Transformation<?>) plugin).config();
        } else if (plugin instanceof Predicate) {
            return ((Predicate<?>) plugin).config();
        }
        throw new IllegalArgumentException("Plugin class " + plugin.getClass().getName() + " has no ConfigDef");
    }

    private static Map<String, Object> keyJson(ConfigDef.ConfigKey key) {
        Map<String, Object> json = new LinkedHashMap<>();
        boolean hasDefault = key.hasDefault();
        json.put("name", key.name);
        json.put("type", key.type.name());
        json.put("default", hasDefault ? ConfigDef.convertToString(key.defaultValue, key.type) : null);
        json.put("has_default", hasDefault);
        json.put("importance", key.importance == null ? null : key.importance.name());
        json.put("documentation", key.documentation);
        json.put("group", key.group);
        json.put("order_in_group", key.orderInGroup);
        json.put("width", key.width == null ? null : key.width.name());
        json.put("display_name", key.displayName);
        json.put("dependents", key.dependents == null ? List.of() : key.dependents);
        json.put("internal", key.internalConfig);
        return json;
    }

    private static Map<String, Object> valueJson(ConfigValue value, ConfigDef.Type type) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", value.name());
        String text = ConfigDef.convertToString(value.value(), type);
        // a password is never sent back, even when a plugin left it as a plain string
        json.put("value", type == ConfigDef.Type.PASSWORD && text != null ? HIDDEN : text);
        List<String> recommended = new ArrayList<>();
        ConfigDef.Type recommendedType = type == ConfigDef.Type.LIST ? ConfigDef.Type.STRING : type;
        for (Object r : value.recommendedValues()) {
            recommended.add(ConfigDef.convertToString(r, recommendedType));
        }
        json.put("recommended_values", recommended);
        json.put("errors", new ArrayList<>(value.errorMessages()));
        json.put("visible", value.visible());
        return json;
    }
}
