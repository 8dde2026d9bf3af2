// Test check for kconnect's Java plugin host: its own rules against Kafka Connect 4.1.2's.
//
// - IsolationRules.loadsInIsolation against PluginUtils.shouldLoadInIsolation, for every class
//   name in the jars given on the command line (plus a few made-up edge names);
// - PluginVersion's order against Maven's DefaultArtifactVersion (what Kafka's PluginDesc sorts
//   by), for every pair of a list of version strings.
//
// It lives in the host's package to reach its package-private classes. Usage:
//   java -cp <host classes>:<this>:<connect-runtime classpath> dev.kconnect.host.HostRulesCheck JAR...
// Prints "OK <names> <pairs>" or one "MISMATCH ..." line per disagreement (exit status 1).
package dev.kconnect.host;

import org.apache.kafka.connect.runtime.isolation.PluginUtils;
import org.apache.maven.artifact.versioning.DefaultArtifactVersion;

import java.io.File;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

public class HostRulesCheck {

    private static final List<String> EDGE_NAMES = List.of(
            "java.lang.String", "javax.xml.bind.Foo", "javax.xmlfoo.Bar", "jakarta.ws.rs.Path",
            "org.slf4j.Logger", "org.slf4jx.Logger", "org.apache.kafka.connect.transforms.Transformation",
            "org.apache.kafka.connect.transforms.TransformationChain", "org.apache.kafka.connect.transforms.Cast",
            "org.apache.kafka.connect.transforms.predicates.Predicate",
            "org.apache.kafka.connect.transforms.predicates.PredicateX",
            "org.apache.kafka.connect.storage.StringConverter", "org.apache.kafka.connect.storage.StringConverterConfig",
            "org.apache.kafka.connect.connector.policy.ConnectorClientConfigRequest$ClientType",
            "org.apache.kafka.connect.connector.policy.AllConnectorClientConfigOverridePolicy",
            "org.apache.kafka.common.config.provider.ConfigProvider",
            "org.apache.kafka.common.config.provider.FileConfigProvider",
            "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
            "org.omg.CORBA.ORB", "org.w3c.dom.Node", "org.xml.sax.Parser", "io.debezium.Foo", "Foo");

    private static final List<String> VERSIONS = List.of(
            "1.0", "1.0.0", "1", "1.0-SNAPSHOT", "1.0-alpha1", "1.0-a1", "1.0-alpha-1", "1.0-beta", "1.0-b2",
            "1.0-rc1", "1.0-cr1", "1.0-RC2", "1.0.Final", "1.0-ga", "1.0-release", "1.0-sp1", "1.0-foo",
            "1.0-bar", "1.0.1", "1.10", "1.9", "2.0-b", "1.0-a", "3.6.1.Final", "3.6.1.Beta1", "3.6.1.CR1",
            "3.6.0.Final", "4.1.2", "4.1.10", "undefined", "null", "0.1", "2.0.0-M1", "2.0.0-m2", "0.9",
            "1-1", "1.0.0.0.0", "1a", "1.2.3-rc.1", "11.0.1-jre", "2.0-a", "1.0-a"); // "1.0-a" twice: equal

    public static void main(String[] args) throws Exception {
        List<String> names = new ArrayList<>(EDGE_NAMES);
        for (String jar : args) {
            try (JarFile file = new JarFile(new File(jar))) {
                for (Enumeration<JarEntry> e = file.entries(); e.hasMoreElements(); ) {
                    String entry = e.nextElement().getName();
                    if (entry.endsWith(".class") && !entry.startsWith("META-INF/")) {
                        names.add(entry.substring(0, entry.length() - 6).replace('/', '.'));
                    }
                }
            }
        }
        int mismatches = 0;
        for (String name : names) {
            boolean kafka = PluginUtils.shouldLoadInIsolation(name);
            boolean host = IsolationRules.loadsInIsolation(name);
            if (kafka != host) {
                System.out.println("MISMATCH isolation " + name + " kafka=" + kafka + " host=" + host);
                mismatches++;
            }
        }
        int pairs = 0;
        for (String a : VERSIONS) {
            for (String b : VERSIONS) {
                int kafka = Integer.signum(new DefaultArtifactVersion(a).compareTo(new DefaultArtifactVersion(b)));
                int host = Integer.signum(new PluginVersion(a).compareTo(new PluginVersion(b)));
                pairs++;
                if (kafka != host) {
                    System.out.println("MISMATCH version " + a + " vs " + b + " kafka=" + kafka + " host=" + host);
                    mismatches++;
                }
            }
        }
        if (mismatches > 0) {
            System.exit(1);
        }
        System.out.println("OK " + names.size() + " " + pairs);
    }
}
