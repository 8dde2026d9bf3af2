// Test oracle for kconnect's Java plugin host: Apache Kafka Connect's own plugin scanning
// (connect-runtime's PluginUtils, ServiceLoaderScanner and ReflectionScanner, merged as
// plugin.discovery=hybrid_warn does) and the herder's REST forms of a ConfigDef and of a
// connector's validate() (AbstractHerder.convertConfigKey / generateResult), so that the host's
// answers can be compared with Java's on the same plugin.path.
//
// Usage: java -cp <classes>:<connect-runtime classpath> PluginScanOracle '<request JSON>'
// request: {"plugin_path": [dir, ...], "config_def": [class, ...],
//           "validate": [{"class": ..., "config": {...}}, ...]}
// answer (stdout, one JSON document): {"plugins": [{"class", "type", "version", "location"}],
//          "config_def": {class: [ConfigKeyInfo]}, "validate": [ConfigInfos]}
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.runtime.AbstractHerder;
import org.apache.kafka.connect.runtime.isolation.ClassLoaderFactory;
import org.apache.kafka.connect.runtime.isolation.DelegatingClassLoader;
import org.apache.kafka.connect.runtime.isolation.PluginDesc;
import org.apache.kafka.connect.runtime.isolation.PluginScanResult;
import org.apache.kafka.connect.runtime.isolation.PluginSource;
import org.apache.kafka.connect.runtime.isolation.PluginUtils;
import org.apache.kafka.connect.runtime.isolation.ReflectionScanner;
import org.apache.kafka.connect.runtime.isolation.ServiceLoaderScanner;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

public class PluginScanOracle {

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode request = mapper.readTree(args[0]);
        List<String> entries = new ArrayList<>();
        request.get("plugin_path").forEach(n -> entries.add(n.asText()));

        Set<Path> locations = PluginUtils.pluginLocations(String.join(",", entries), false);
        ClassLoaderFactory factory = new ClassLoaderFactory();
        DelegatingClassLoader delegating = factory.newDelegatingClassLoader(PluginScanOracle.class.getClassLoader());
        Set<PluginSource> sources = new LinkedHashSet<>();
        for (Path location : locations) {
            sources.add(PluginUtils.isolatedPluginSource(location, delegating, factory));
        }
        PluginScanResult byManifest = new ServiceLoaderScanner().discoverPlugins(sources);
        PluginScanResult byClasses = new ReflectionScanner().discoverPlugins(sources);
        PluginScanResult all = new PluginScanResult(List.of(byClasses, byManifest));
        delegating.installDiscoveredPlugins(all);

        List<Map<String, Object>> plugins = new ArrayList<>();
        Map<String, TreeSet<PluginDesc<?>>> byName = new LinkedHashMap<>();
        all.forEach(desc -> {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("class", desc.className());
            p.put("type", desc.typeName());
            p.put("version", desc.version());
            p.put("location", desc.location());
            plugins.add(p);
            byName.computeIfAbsent(desc.className(), k -> new TreeSet<>()).add(desc);
        });

        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("plugins", plugins);

        Map<String, Object> configDefs = new LinkedHashMap<>();
        if (request.has("config_def")) {
            for (JsonNode cls : request.get("config_def")) {
                PluginDesc<?> desc = byName.get(cls.asText()).last();
                Connector connector = newConnector(desc);
                List<Object> keys = new ArrayList<>();
                ClassLoader saved = Thread.currentThread().getContextClassLoader();
                Thread.currentThread().setContextClassLoader(desc.loader()); // as the herder does
                try {
                    for (ConfigDef.ConfigKey key : connector.config().configKeys().values()) {
                        keys.add(AbstractHerder.convertConfigKey(key));
                    }
                } finally {
                    Thread.currentThread().setContextClassLoader(saved);
                }
                configDefs.put(cls.asText(), keys);
            }
        }
        answer.put("config_def", configDefs);

        List<Object> validations = new ArrayList<>();
        if (request.has("validate")) {
            for (JsonNode v : request.get("validate")) {
                PluginDesc<?> desc = byName.get(v.get("class").asText()).last();
                Connector connector = newConnector(desc);
                Map<String, String> config = new LinkedHashMap<>();
                v.get("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
                ClassLoader saved = Thread.currentThread().getContextClassLoader();
                Thread.currentThread().setContextClassLoader(desc.loader());
                try {
                    ConfigDef def = connector.config();
                    Config result = connector.validate(config);
                    validations.add(AbstractHerder.generateResult(desc.className(), def.configKeys(),
                            result.configValues(), def.groups()));
                } finally {
                    Thread.currentThread().setContextClassLoader(saved);
                }
            }
        }
        answer.put("validate", validations);
        System.out.println(); // a plugin may have left a partial line on stdout
        System.out.println(mapper.writeValueAsString(answer));
        System.out.flush();
        System.exit(0); // plugins may have left non-daemon threads behind
    }

    private static Connector newConnector(PluginDesc<?> desc) throws Exception {
        ClassLoader saved = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(desc.loader());
        try {
            return (Connector) desc.pluginClass().getDeclaredConstructor().newInstance();
        } finally {
            Thread.currentThread().setContextClassLoader(saved);
        }
    }
}
