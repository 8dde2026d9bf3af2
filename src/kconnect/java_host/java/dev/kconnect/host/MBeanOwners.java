package dev.kconnect.host;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.MBeanServerDelegate;
import javax.management.MBeanServerNotification;
import javax.management.Notification;
import javax.management.ObjectName;

/**
 * Which running plugin instance registered each MBean, so the worker can show a plugin's MBeans
 * with its connector (protocol v4, {@code metrics}).
 *
 * <p>A request on a handle runs inside {@link #enter(String)}: the handle is the calling
 * thread's current owner, and so of every thread the plugin starts meanwhile (an inheritable
 * thread-local, copied when a thread is created: Debezium registers its metrics from
 * {@code start()} and from threads it starts there). The MBean server's delegate announces each
 * registration in the thread that registers the bean (its notifications are sent synchronously),
 * so the listener here reads that thread's owner. A bean registered outside any handle's call
 * (by a static initialiser on a pool thread, say) has no owner; an unregistered bean is
 * forgotten.
 *
 * <p>Thread-safe.
 */
final class MBeanOwners {

    private static final InheritableThreadLocal<String> CURRENT = new InheritableThreadLocal<>();

    private final Map<ObjectName, String> owners = new ConcurrentHashMap<>();

    /** Starts listening to {@code server}'s registrations. */
    MBeanOwners(MBeanServer server) {
        try {
            server.addNotificationListener(MBeanServerDelegate.DELEGATE_NAME, this::onNotification, null, null);
        } catch (InstanceNotFoundException e) {
            throw new IllegalStateException("The MBean server has no delegate", e);
        }
    }

    /** The scope of one request on a handle; {@link #close()} restores the previous owner. */
    static final class Scope implements AutoCloseable {
        private final String previous;

        private Scope(String previous) {
            this.previous = previous;
        }

        @Override
        public void close() {
            CURRENT.set(previous);
        }
    }

    /** Makes {@code handle} the current thread's owner until the scope closes. */
    static Scope enter(String handle) {
        Scope scope = new Scope(CURRENT.get());
        CURRENT.set(handle);
        return scope;
    }

    /** The handle whose call registered {@code name}, or null. */
    String owner(ObjectName name) {
        return owners.get(name);
    }

    private void onNotification(Notification notification, Object handback) {
        if (!(notification instanceof MBeanServerNotification)) {
            return;
        }
        ObjectName name = ((MBeanServerNotification) notification).getMBeanName();
        if (MBeanServerNotification.REGISTRATION_NOTIFICATION.equals(notification.getType())) {
            String handle = CURRENT.get();
            if (handle != null) {
                owners.put(name, handle);
            } else {
                owners.remove(name);
            }
        } else if (MBeanServerNotification.UNREGISTRATION_NOTIFICATION.equals(notification.getType())) {
            owners.remove(name);
        }
    }
}
