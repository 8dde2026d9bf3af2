package dev.kconnect.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.connector.Connector;
import org.apache.kafka.connect.connector.Task;

/**
 * A connector the worker runs under a handle: {@code connector_start} (initialize with a
 * {@link HostConnectorContext}, then start), {@code connector_task_class},
 * {@code connector_task_configs}, {@code connector_stop}. Every call runs with the connector's
 * plugin loader as the context class loader.
 *
 * <p>Thread-safe as far as the connector is: calls are not serialised here (the worker does).
 */
final class RunningConnector extends RunningPlugin {

    private final Connector connector;
    private final HostConnectorContext context;

    RunningConnector(String handle, Connector connector, ClassLoader loader, WorkerLink link) {
        super(handle, loader);
        this.connector = connector;
        this.context = new HostConnectorContext(this, link);
    }

    void start(Map<String, String> props) {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            connector.initialize(context);
            connector.start(props);
        }
    }

    Map<String, Object> taskClass() {
        Class<? extends Task> taskClass;
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            taskClass = connector.taskClass();
        }
        if (taskClass == null) {
            throw new IllegalStateException(connector.getClass().getName() + ".taskClass() returned null");
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("class", taskClass.getName());
        return result;
    }

    Map<String, Object> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs;
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            configs = connector.taskConfigs(maxTasks);
        }
        if (configs == null) {
            throw new IllegalStateException(connector.getClass().getName() + ".taskConfigs() returned null");
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("configs", new ArrayList<>(configs));
        return result;
    }

    void stop() {
        try (LoaderSwap swap = LoaderSwap.to(loader)) {
            connector.stop();
        }
    }
}
