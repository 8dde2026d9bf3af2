package dev.kconnect.host;

import java.util.Map;

import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * A Java predicate configured under a handle (protocol v5): it guards a Java transformation in a
 * run ({@link StageRuns#transform}), or a worker's own transformation ({@code predicate_test}).
 */
final class RunningPredicate extends RunningStage {

    private final Predicate<?> predicate;

    RunningPredicate(String handle, Predicate<?> predicate, ClassLoader loader) {
        super(handle, predicate, loader, "predicate");
        this.predicate = predicate;
    }

    @Override
    void configure(Map<String, String> props) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            predicate.configure(props);
        }
    }

    /** {@code test(record)}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    boolean test(ConnectRecord<?> record) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            return ((Predicate) predicate).test((ConnectRecord) record);
        }
    }
}
