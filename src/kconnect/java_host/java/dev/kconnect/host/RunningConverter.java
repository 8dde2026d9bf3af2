package dev.kconnect.host;

import java.util.Map;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.storage.Converter;

/**
 * A Java key or value converter configured under a handle (protocol v7); {@link ConverterRuns}
 * converts the items of a batch with it. {@code isKey} is the start op's, passed to
 * {@code configure(props, isKey)} as Kafka's {@code Plugins.newConverter} does.
 */
final class RunningConverter extends RunningStage {

    private final Converter converter;
    private final boolean isKey;

    RunningConverter(String handle, Converter converter, ClassLoader loader, boolean isKey) {
        super(handle, closeable(converter), loader, "converter");
        this.converter = converter;
        this.isKey = isKey;
    }

    @Override
    void configure(Map<String, String> props) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            converter.configure(props, isKey);
        }
    }

    /** {@code fromConnectData(topic, headers, schema, value)}, as Kafka's source worker calls it. */
    byte[] fromConnect(String topic, Headers headers, Schema schema, Object value) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            return converter.fromConnectData(topic, headers, schema, value);
        }
    }

    /** {@code toConnectData(topic, headers, bytes)}, as Kafka's sink worker calls it. */
    SchemaAndValue toConnect(String topic, Headers headers, byte[] value) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            return converter.toConnectData(topic, headers, value);
        }
    }

    /** The instance's {@code close()} when it has one (Kafka's converters are Closeable). */
    static AutoCloseable closeable(Object plugin) {
        return plugin instanceof AutoCloseable ? (AutoCloseable) plugin : () -> { };
    }
}
