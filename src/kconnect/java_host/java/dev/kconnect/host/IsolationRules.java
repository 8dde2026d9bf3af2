package dev.kconnect.host;

import java.util.List;
import java.util.Set;

/**
 * Which class names a plugin's class loader loads itself and which it must take from the host,
 * with the same outcome as Kafka Connect's rule (its {@code PluginUtils.shouldLoadInIsolation}).
 *
 * <p>Shared with the host: the JDK's own packages ({@code java.*}, and the {@code javax.*},
 * {@code org.omg.*}, {@code org.w3c.dom}, {@code org.xml.sax} and {@code org.ietf.jgss}
 * packages Java SE / EE define), SLF4J, and Kafka ({@code org.apache.kafka.*}) — so a plugin and
 * the host agree on what a {@code SourceConnector} or a {@code ConfigDef} is. Among Kafka's
 * names, the plugins Kafka itself ships stay isolated, so that a plugin location may carry its
 * own copy: the converters, file and mirror connectors, JSON converter, SMTs and predicates
 * (but not the {@code Transformation*} and {@code predicates.Predicate} API types), config
 * providers (not {@code ConfigProvider}), client config override policies (not their API types),
 * {@code StringConverter}, {@code SimpleHeaderConverter} and the basic-auth REST extension.
 *
 * <p>Stateless and thread-safe.
 */
final class IsolationRules {

    private IsolationRules() {
    }

    /** Package prefixes (each followed by a dot in a class name) taken from the host. */
    private static final List<String> SHARED_PACKAGES = List.of(
            "java",
            "javax.accessibility", "javax.activation", "javax.activity", "javax.annotation",
            "javax.batch.api", "javax.batch.operations", "javax.batch.runtime", "javax.crypto",
            "javax.decorator", "javax.ejb", "javax.el", "javax.enterprise.concurrent",
            "javax.enterprise.context", "javax.enterprise.deploy.model",
            "javax.enterprise.deploy.shared", "javax.enterprise.deploy.spi", "javax.enterprise.event",
            "javax.enterprise.inject", "javax.enterprise.util", "javax.faces", "javax.imageio",
            "javax.inject", "javax.interceptor", "javax.jms", "javax.json", "javax.jws",
            "javax.lang.model", "javax.mail", "javax.management", "javax.naming", "javax.net",
            "javax.persistence", "javax.print", "javax.resource", "javax.rmi", "javax.script",
            "javax.security.auth", "javax.security.cert", "javax.security.jacc",
            "javax.security.sasl", "javax.servlet", "javax.sound.midi", "javax.sound.sampled",
            "javax.sql", "javax.swing", "javax.tools", "javax.transaction", "javax.validation",
            "javax.websocket", "javax.ws.rs", "javax.xml",
            "org.ietf.jgss",
            "org.omg.CORBA", "org.omg.CosNaming", "org.omg.Dynamic", "org.omg.DynamicAny",
            "org.omg.IOP", "org.omg.Messaging", "org.omg.PortableInterceptor",
            "org.omg.PortableServer", "org.omg.SendingContext", "org.omg.stub.java.rmi",
            "org.w3c.dom", "org.xml.sax",
            "org.apache.kafka",
            "org.slf4j");

    private static final String CONNECT = "org.apache.kafka.connect.";

    /** Packages under {@code org.apache.kafka.connect.} whose every class is a plugin's own. */
    private static final List<String> ISOLATED_CONNECT_PACKAGES =
            List.of("json.", "file.", "mirror.", "mirror-client.", "converters.");

    /** Single classes under {@code org.apache.kafka.connect.} that are plugins' own. */
    private static final Set<String> ISOLATED_CONNECT_CLASSES = Set.of(
            "storage.StringConverter",
            "storage.SimpleHeaderConverter",
            "rest.basic.auth.extension.BasicAuthSecurityRestExtension");

    private static final String TRANSFORMS = "transforms.";
    private static final String POLICIES = "connector.policy.";
    private static final Set<String> POLICY_API = Set.of(
            "ConnectorClientConfigOverridePolicy",
            "ConnectorClientConfigRequest",
            "ConnectorClientConfigRequest$ClientType");
    private static final String CONFIG_PROVIDERS = "org.apache.kafka.common.config.provider.";

    /** True when a plugin's loader should define the class itself (if it has it). */
    static boolean loadsInIsolation(String className) {
        return !isShared(className) || isKafkaPluginClass(className);
    }

    private static boolean isShared(String className) {
        for (String pkg : SHARED_PACKAGES) {
            if (className.length() > pkg.length() + 1
                    && className.startsWith(pkg)
                    && className.charAt(pkg.length()) == '.') {
                return true;
            }
        }
        return false;
    }

    private static boolean isKafkaPluginClass(String className) {
        if (className.startsWith(CONFIG_PROVIDERS)) {
            String rest = className.substring(CONFIG_PROVIDERS.length());
            return !rest.isEmpty() && !rest.equals("ConfigProvider");
        }
        if (!className.startsWith(CONNECT)) {
            return false;
        }
        String rest = className.substring(CONNECT.length());
        if (rest.startsWith(TRANSFORMS)) {
            String name = rest.substring(TRANSFORMS.length());
            // every name starting with "Transformation" is API (the interface and its kin)
            return !name.startsWith("Transformation") && !name.equals("predicates.Predicate");
        }
        if (rest.startsWith(POLICIES)) {
            return !POLICY_API.contains(rest.substring(POLICIES.length()));
        }
        for (String pkg : ISOLATED_CONNECT_PACKAGES) {
            if (rest.startsWith(pkg)) {
                return true;
            }
        }
        return ISOLATED_CONNECT_CLASSES.contains(rest);
    }
}
