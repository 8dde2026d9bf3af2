package dev.kconnect.host;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/**
 * A task's (or source connector's) {@link OffsetStorageReader}, answered by the worker through
 * the {@code offsets} callback: {@link #offset} asks for one partition, {@link #offsets} for all
 * of them in one callback, and the answers are mapped back to the caller's own partition
 * objects (a partition without an offset maps to {@code null}, as Kafka's reader gives it).
 *
 * <p>Offsets come back as Kafka's JSON-backed reader gives them: integral numbers as
 * {@link Long}, others as {@link Double}, objects as maps, arrays as lists.
 *
 * <p>Thread-safe: each call is its own callback.
 */
final class WorkerOffsetReader implements OffsetStorageReader {

    private final WorkerLink link;
    private final String handle;

    WorkerOffsetReader(WorkerLink link, String handle) {
        this.link = link;
        this.handle = handle;
    }

    @Override
    public <T> Map<String, Object> offset(Map<String, T> partition) {
        return ask(List.of(partition == null ? new HashMap<>() : partition)).get(0);
    }

    @Override
    public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
        List<Map<String, T>> asked = new ArrayList<>(partitions);
        List<Map<String, Object>> answers = ask(asked);
        Map<Map<String, T>, Map<String, Object>> result = new HashMap<>();
        for (int i = 0; i < asked.size(); i++) {
            result.put(asked.get(i), answers.get(i));
        }
        return result;
    }

    private List<Map<String, Object>> ask(List<? extends Map<String, ?>> partitions) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("partitions", partitions);
        Object raw = link.call("offsets", handle, fields).get("offsets");
        if (!(raw instanceof List) || ((List<?>) raw).size() != partitions.size()) {
            throw new ConnectException("The worker's answer to the offsets callback of " + handle
                    + " must be a list of " + partitions.size() + " offsets");
        }
        List<Map<String, Object>> offsets = new ArrayList<>();
        for (Object offset : (List<?>) raw) {
            if (offset != null && !(offset instanceof Map)) {
                throw new ConnectException("An offset from the worker is not an object: " + offset);
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> map = (Map<String, Object>) asKafkaGivesIt(offset);
            offsets.add(map);
        }
        return offsets;
    }

    /** JSON as Kafka's JsonConverter reads schemaless data: integral numbers Long, others Double. */
    static Object asKafkaGivesIt(Object json) {
        if (json instanceof BigInteger) {
            return ((BigInteger) json).longValue();
        } else if (json instanceof BigDecimal) {
            return ((BigDecimal) json).doubleValue();
        } else if (json instanceof Map) {
            Map<String, Object> map = new HashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) json).entrySet()) {
                map.put(String.valueOf(e.getKey()), asKafkaGivesIt(e.getValue()));
            }
            return map;
        } else if (json instanceof List) {
            List<Object> list = new ArrayList<>();
            for (Object item : (List<?>) json) {
                list.add(asKafkaGivesIt(item));
            }
            return list;
        }
        return json;
    }
}
