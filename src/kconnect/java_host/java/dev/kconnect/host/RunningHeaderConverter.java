package dev.kconnect.host;

import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.storage.HeaderConverter;

/**
 * A Java header converter configured under a handle (protocol v7); {@link ConverterRuns}
 * converts the headers of a batch with it.
 */
final class RunningHeaderConverter extends RunningStage {

    private final HeaderConverter converter;

    RunningHeaderConverter(String handle, HeaderConverter converter, ClassLoader loader) {
        super(handle, converter, loader, "header converter");
        this.converter = converter;
    }

    @Override
    void configure(Map<String, String> props) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            converter.configure(props);
        }
    }

    /** {@code fromConnectHeader(topic, key, schema, value)}. */
    byte[] fromConnect(String topic, String key, Schema schema, Object value) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            return converter.fromConnectHeader(topic, key, schema, value);
        }
    }

    /** {@code toConnectHeader(topic, key, bytes)}. */
    SchemaAndValue toConnect(String topic, String key, byte[] value) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            return converter.toConnectHeader(topic, key, value);
        }
    }
}
