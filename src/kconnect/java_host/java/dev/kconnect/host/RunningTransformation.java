package dev.kconnect.host;

import java.util.Map;

import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A Java transformation (SMT) configured under a handle (protocol v5); {@link StageRuns} applies
 * it to the records of a batch.
 */
final class RunningTransformation extends RunningStage {

    private final Transformation<?> transformation;

    RunningTransformation(String handle, Transformation<?> transformation, ClassLoader loader) {
        super(handle, transformation, loader, "transformation");
        this.transformation = transformation;
    }

    @Override
    void configure(Map<String, String> props) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            transformation.configure(props);
        }
    }

    String className() {
        return transformation.getClass().getName();
    }

    /** {@code apply(record)}: the transformed record, the same one, or null (dropped). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    ConnectRecord<?> apply(ConnectRecord<?> record) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            return (ConnectRecord<?>) ((Transformation) transformation).apply((ConnectRecord) record);
        }
    }
}
