package dev.kconnect.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.errors.DataException;

/**
 * Protocol v5's record ops on transformations and predicates: {@code transform} applies a run of
 * consecutive stages of a connector's chain to a batch, {@code predicate_test} tests a batch with
 * one predicate.
 *
 * <p>A run is {@code [[transformation handle, predicate handle or null, negate], ...]}; from the
 * stage {@code first} on, each record goes through the stages in order, as Kafka's
 * {@code TransformationChain} runs its {@code TransformationStage}s: a stage applies its
 * transformation when it has no predicate or when {@code negate ^ predicate.test(record)}, and a
 * null result drops the record (the stages after it never see it). Unlike Kafka's chain, a stage
 * that throws (an {@link Exception}) fails only its record: the failure is reported with the index
 * of the record and of the stage, and the record as that stage received it is in the answer, so
 * that the worker can give it to its error handler and go on from the next stage. An
 * {@link Error} fails the whole op, as it fails the task on Kafka.
 *
 * <p>Records are named by their seq in the request's batch ({@code index}). The answer's batch
 * holds the records that come out as another object than the one decoded, numbered by that seq;
 * those that come out as the very record decoded are only listed ({@code unchanged}): the worker
 * keeps its own. A record that cannot be encoded
 * (a value that does not fit its schema) is a {@link DataException} of the stage that made it, which
 * then counts as the failing stage, with its input record.
 *
 * <p>Thread-safe: an op holds the codec lock of the handle whose schemas it uses from decoding to
 * encoding.
 */
final class StageRuns {

    private StageRuns() {
    }

    /** One stage of a run. */
    static final class Stage {
        final RunningTransformation transformation;
        final RunningPredicate predicate;
        final boolean negate;

        Stage(RunningTransformation transformation, RunningPredicate predicate, boolean negate) {
            this.transformation = transformation;
            this.predicate = predicate;
            this.negate = negate;
        }
    }

    /**
     * {@code {"batch": base64, "unchanged": [index, ...], "failures": [{"index", "stage", "error"}, ...]}}
     * of a run from its stage {@code first}, for the records of {@code batch} (a sink batch, or with
     * {@code source} a source batch), with {@code codec}'s schemas.
     */
    static Map<String, Object> transform(RunningStage codec, List<Stage> stages, int first, boolean source,
            byte[] batch) {
        if (first < 0 || first >= stages.size()) {
            throw new IllegalArgumentException("Request field 'first' must be a stage of the run (0.."
                    + (stages.size() - 1) + "): " + first);
        }
        List<Object> failures = new ArrayList<>();
        List<Object> unchanged = new ArrayList<>();
        byte[] encoded;
        synchronized (codec.codecLock()) {
            BatchDecoder.Decoded<?> decoded = decode(codec, source, batch);
            codec.encoder.begin();
            try {
                for (int i = 0; i < decoded.records.size(); i++) {
                    run(codec.encoder, decoded.seqs[i], decoded.records.get(i), stages, first, failures, unchanged);
                }
                encoded = codec.encoder.finish();
            } finally {
                codec.encoder.abort();
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("batch", encoded); // a binary frame beside the reply
        result.put("unchanged", unchanged);
        result.put("failures", failures);
        return result;
    }

    /** One record through the run; what comes out is added to the encoder, or listed. */
    private static void run(BatchEncoder encoder, long index, ConnectRecord<?> input, List<Stage> stages, int first,
            List<Object> failures, List<Object> unchanged) {
        // the transformations applied to the record: their stage and the record each received
        int applied = 0;
        int[] appliedStages = new int[stages.size()];
        ConnectRecord<?>[] appliedInputs = new ConnectRecord<?>[stages.size()];
        ConnectRecord<?> current = input;
        int failedStage = -1;
        Throwable failure = null;
        for (int j = first; j < stages.size(); j++) {
            Stage stage = stages.get(j);
            ConnectRecord<?> received = current;
            try {
                if (stage.predicate == null || stage.negate ^ stage.predicate.test(received)) {
                    current = stage.transformation.apply(received);
                    appliedStages[applied] = j;
                    appliedInputs[applied] = received;
                    applied++;
                }
            } catch (Exception e) {
                failedStage = j;
                failure = e;
                current = received;
                break;
            }
            if (current == null) {
                return; // dropped
            }
        }
        while (true) {
            if (current == input) {
                unchanged.add(index);
                break;
            }
            try {
                encoder.add(index, current);
                break;
            } catch (RuntimeException e) {
                // the last transformation applied made it: that stage failed, on its input
                applied--;
                failedStage = appliedStages[applied];
                failure = new DataException("The record that " + className(stages.get(failedStage))
                        + " returned cannot be sent to the worker: " + e.getMessage(), e);
                current = appliedInputs[applied];
            }
        }
        if (failure != null) {
            Map<String, Object> reported = new LinkedHashMap<>();
            reported.put("index", index);
            reported.put("stage", failedStage);
            reported.put("error", PluginHost.error(failure));
            failures.add(reported);
        }
    }

    /**
     * {@code {"results": [true, false, null, ...], "failures": [{"index", "error"}, ...]}}: the
     * predicate's {@code test} of each record of {@code batch}, in batch order (null where it
     * threw; the failure names the record's seq).
     */
    static Map<String, Object> test(RunningPredicate predicate, boolean source, byte[] batch) {
        List<Object> results = new ArrayList<>();
        List<Object> failures = new ArrayList<>();
        synchronized (predicate.codecLock()) {
            BatchDecoder.Decoded<?> decoded = decode(predicate, source, batch);
            for (int i = 0; i < decoded.records.size(); i++) {
                try {
                    results.add(predicate.test(decoded.records.get(i)));
                } catch (Exception e) {
                    results.add(null);
                    Map<String, Object> reported = new LinkedHashMap<>();
                    reported.put("index", decoded.seqs[i]);
                    reported.put("error", PluginHost.error(e));
                    failures.add(reported);
                }
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("results", results);
        result.put("failures", failures);
        return result;
    }

    private static BatchDecoder.Decoded<?> decode(RunningStage codec, boolean source, byte[] batch) {
        try (LoaderSwap swap = LoaderSwap.to(codec.loader)) { // logical values, structs
            return source ? codec.decoder.decodeSource(batch) : codec.decoder.decode(batch);
        }
    }

    private static String className(Stage stage) {
        return stage.transformation.className();
    }
}
