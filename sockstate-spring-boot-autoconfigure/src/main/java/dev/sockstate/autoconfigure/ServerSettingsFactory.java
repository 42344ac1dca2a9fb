package dev.sockstate.autoconfigure;

import dev.sockstate.autoconfigure.SockstateProperties.Listener;
import dev.sockstate.autoconfigure.SockstateProperties.ListenerEvent;
import dev.sockstate.autoconfigure.SockstateProperties.Workers;
import dev.sockstate.autoconfigure.handler.SocketHandlers;
import dev.sockstate.port.Events;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.WorkerGroupSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Turns {@link SockstateProperties} into the runtime's settings. Every value is checked here, so a
 * wrong one fails start-up with the property's name, its value and the reason.
 */
final class ServerSettingsFactory {

    private static final String PREFIX = "sockstate.";

    private final SockstateProperties properties;

    ServerSettingsFactory(SockstateProperties properties) {
        this.properties = properties;
    }

    /** @return the listeners' protocols by name */
    Map<String, Protocol> protocols() {
        Map<String, Protocol> protocols = new LinkedHashMap<>();
        this.properties.getListeners().forEach((name, listener) -> protocols.put(name, listener.getProtocol()));
        return protocols;
    }

    List<WorkerGroupSettings> groups(List<WorkerGroupCustomizer> customizers) {
        int batchSize = this.properties.getBatchSize();
        require(batchSize >= 1 && batchSize <= 65_536, "batch-size", batchSize, "It must be between 1 and 65536.");
        Duration timeout = this.properties.getDequeueTimeout();
        require(timeout != null && !timeout.isNegative() && !timeout.isZero(), "dequeue-timeout", timeout, "It must be positive.");
        List<WorkerGroupSettings> groups = new ArrayList<>();
        groups.add(group(ListenerSettings.DEFAULT_GROUP, "workers", this.properties.getWorkers(), customizers));
        this.properties.getGroups().forEach((name, workers) -> {
            require(!ListenerSettings.DEFAULT_GROUP.equals(name), "groups." + name, name,
                    "The default group is configured under sockstate.workers.");
            groups.add(group(name, "groups." + name, workers, customizers));
        });
        return groups;
    }

    private WorkerGroupSettings group(String name, String path, Workers workers, List<WorkerGroupCustomizer> customizers) {
        int threads = (workers.getThreads() != null) ? workers.getThreads() : Runtime.getRuntime().availableProcessors();
        require(threads >= 1 && threads <= 1024, path + ".threads", threads, "It must be between 1 and 1024.");
        DataSize readBuffer = workers.getReadBufferSize();
        require(readBuffer != null && readBuffer.toBytes() >= 64 && readBuffer.toBytes() <= 16 * 1024 * 1024,
                path + ".read-buffer-size", readBuffer, "It must be between 64B and 16MB.");
        require(workers.getThreadNamePrefix() != null, path + ".thread-name-prefix", null, "It must be set.");
        WorkerGroupSettings group = new WorkerGroupSettings(name, threads, this.properties.getBatchSize(),
                this.properties.getDequeueTimeout(), (int) readBuffer.toBytes(), workers.getThreadNamePrefix());
        for (WorkerGroupCustomizer customizer : customizers) {
            group = customizer.customize(group);
        }
        return group;
    }

    List<ListenerSettings> listeners(List<WorkerGroupSettings> groups, SocketHandlers handlers, BeanFactory beans,
            List<ListenerCustomizer> customizers) {
        Map<String, WorkerGroupSettings> groupsByName = new LinkedHashMap<>();
        groups.forEach((group) -> groupsByName.put(group.name(), group));
        List<ListenerSettings> listeners = new ArrayList<>();
        this.properties.getListeners().forEach((name, listener) -> {
            ListenerSettings.Builder builder = builder(name, listener, groupsByName, beans);
            if (listener.getProtocol() == Protocol.TCP) {
                builder.handler(handlers.connectionHandler(name));
            }
            else {
                builder.handler(handlers.datagramHandler(name));
            }
            customizers.forEach((customizer) -> customizer.customize(name, builder));
            listeners.add(builder.build());
        });
        return listeners;
    }

    private ListenerSettings.Builder builder(String name, Listener listener, Map<String, WorkerGroupSettings> groups,
            BeanFactory beans) {
        String path = "listeners." + name + ".";
        require(listener.getPort() >= 0 && listener.getPort() <= 65535, path + "port", listener.getPort(),
                "It must be between 0 and 65535 (0 for an ephemeral port).");
        require(listener.getBacklog() > 0, path + "backlog", listener.getBacklog(), "It must be positive.");
        require(listener.getMaxConnections() > 0, path + "max-connections", listener.getMaxConnections(), "It must be positive.");
        DataSize receiveBuffer = listener.getReceiveBufferSize();
        require(receiveBuffer == null || (receiveBuffer.toBytes() > 0 && receiveBuffer.toBytes() <= Integer.MAX_VALUE),
                path + "receive-buffer-size", receiveBuffer, "It must be positive and below 2GB.");
        DataSize pending = listener.getMaxPendingWriteBytes();
        require(pending != null && pending.toBytes() > 0, path + "max-pending-write-bytes", pending, "It must be positive.");
        Duration idle = listener.getIdleTimeout();
        require(idle == null || !idle.isNegative(), path + "idle-timeout", idle, "It must not be negative.");
        Trigger trigger = listener.getTrigger();
        if (listener.isExclusiveEdge()) {
            require(listener.getProtocol() == Protocol.TCP, path + "exclusive-edge", true, "It is a mode of TCP listeners.");
            require(trigger == null || trigger == Trigger.EDGE_PERSISTENT, path + "trigger", trigger,
                    "The exclusive edge mode registers connections edge-persistent; leave the trigger unset.");
        }
        Trigger effective = listener.isExclusiveEdge() ? Trigger.EDGE_PERSISTENT : (trigger != null) ? trigger : Trigger.LEVEL_ONESHOT;
        WorkerGroupSettings group = groups.get(listener.getGroup());
        require(group != null, path + "group", listener.getGroup(), "No such worker group; the groups are " + groups.keySet()
                + " (define more under sockstate.groups).");
        require(effective.isOneShot() || listener.isExclusiveEdge() || group.workers() == 1, path + "trigger", effective,
                "A persistent trigger may notify several workers at once, and worker group '" + group.name() + "' has "
                        + group.workers() + " threads. Serve the listener from a group with one thread (sockstate.groups.NAME.threads=1"
                        + " and " + PREFIX + path + "group=NAME), or use level-oneshot or exclusive-edge.");
        int events = 0;
        if (listener.getEvents() != null && !listener.getEvents().isEmpty()) {
            require(listener.getEvents().contains(ListenerEvent.IN), path + "events", listener.getEvents(),
                    "It must contain in (a listener reads its sockets).");
            events = Events.IN | (listener.getEvents().contains(ListenerEvent.HANGUP) ? Events.HANGUP : 0);
        }
        ListenerSettings.Builder builder = (listener.getProtocol() == Protocol.UDP) ? ListenerSettings.udp(name)
                : ListenerSettings.tcp(name);
        builder.address(listener.getAddress()).port(listener.getPort()).backlog(listener.getBacklog())
                .trigger(listener.isExclusiveEdge() ? null : effective).exclusiveEdge(listener.isExclusiveEdge())
                .reuseAddress(listener.isReuseAddress()).reusePort(listener.isReusePort())
                .tcpNoDelay(listener.isTcpNoDelay()).maxConnections(listener.getMaxConnections()).idleTimeout(idle)
                .maxPendingWriteBytes(pending.toBytes()).group(group.name())
                .handlerExecutor(executor(path + "handler-executor", listener.getHandlerExecutor(), beans));
        if (events != 0) {
            builder.events(events);
        }
        if (receiveBuffer != null) {
            builder.receiveBufferSize((int) receiveBuffer.toBytes());
        }
        return builder;
    }

    private static Executor executor(String path, String name, BeanFactory beans) {
        if (name == null || name.isBlank() || "none".equals(name)) {
            return null;
        }
        String beanName = "application".equals(name) ? TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME : name;
        try {
            return beans.getBean(beanName, Executor.class);
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + path, name, "No Executor bean named '" + beanName
                    + "' exists; use none, application (the application task executor) or the name of a TaskExecutor bean.");
        }
    }

    private static void require(boolean valid, String property, Object value, String reason) {
        if (!valid) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
        }
    }
}
