package dev.kconnect.host;

import org.apache.kafka.common.config.provider.ConfigProvider;
import org.apache.kafka.connect.connector.policy.ConnectorClientConfigOverridePolicy;
import org.apache.kafka.connect.rest.ConnectRestExtension;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * The kinds of Kafka Connect plugin, each with the API type a plugin class extends and the name
 * the protocol (and Kafka's {@code GET /connector-plugins}) uses for it.
 *
 * <p>Plugins of the first six kinds are found both by their {@code ServiceLoader} manifests and
 * by scanning class files; the last three only by manifests, as in Kafka Connect's default
 * {@code plugin.discovery=hybrid_warn}. The declaration order is Kafka's, which breaks ties
 * when sorting.
 */
enum PluginType {
    SOURCE("source", SourceConnector.class, true),
    SINK("sink", SinkConnector.class, true),
    CONVERTER("converter", Converter.class, true),
    HEADER_CONVERTER("header_converter", HeaderConverter.class, true),
    TRANSFORMATION("transformation", Transformation.class, true),
    PREDICATE("predicate", Predicate.class, true),
    CONFIG_PROVIDER("config_provider", ConfigProvider.class, false),
    REST_EXTENSION("rest_extension", ConnectRestExtension.class, false),
    CONNECTOR_CLIENT_CONFIG_OVERRIDE_POLICY("connector_client_config_override_policy",
            ConnectorClientConfigOverridePolicy.class, false);

    private final String wireName;
    private final Class<?> apiType;
    private final boolean foundByClassScan;

    PluginType(String wireName, Class<?> apiType, boolean foundByClassScan) {
        this.wireName = wireName;
        this.apiType = apiType;
        this.foundByClassScan = foundByClassScan;
    }

    /** The name in the protocol: {@code source}, {@code sink}, {@code converter}, ... */
    String wireName() {
        return wireName;
    }

    /** The Connect API class or interface a plugin of this kind extends. */
    Class<?> apiType() {
        return apiType;
    }

    /** True when class-file scanning finds this kind too (not only ServiceLoader manifests). */
    boolean foundByClassScan() {
        return foundByClassScan;
    }
}
