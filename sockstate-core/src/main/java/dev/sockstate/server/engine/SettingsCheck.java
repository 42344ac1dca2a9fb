package dev.sockstate.server.engine;

import dev.sockstate.port.Backend;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.Trigger;
import dev.sockstate.server.AcceptMode;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import dev.sockstate.server.ReceiveMode;
import dev.sockstate.server.Setting.Scope;
import dev.sockstate.server.Setting;
import dev.sockstate.server.SocketOptions;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.engine.tls.TlsSupport;
import dev.sockstate.server.engine.turn.Worker;
import java.net.Inet4Address;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Checks that a server's settings fit together: each alone was checked when it was built. */
final class SettingsCheck {

    private SettingsCheck() {
    }

    /**
     * @param groups the worker groups
     * @param listeners the listeners
     * @throws InvalidSettingException naming the listener or group and the setting that does not fit
     */
    static void check(List<WorkerGroupSettings> groups, List<ListenerSettings> listeners) {
        Map<String, WorkerGroupSettings> byName = new LinkedHashMap<>();
        for (WorkerGroupSettings group : groups) {
            if (byName.put(group.name(), group) != null) {
                throw new InvalidSettingException(group.name(), Setting.GROUP_NAME, group.name(), "Each group needs a name of its own.",
                        "Worker group '" + group.name() + "' is defined twice");
            }
        }
        Set<String> names = new HashSet<>();
        for (ListenerSettings listener : listeners) {
            if (!names.add(listener.name())) {
                throw new InvalidSettingException(listener.name(), Setting.LISTENER_NAME, listener.name(),
                        "Each listener needs a name of its own.", "Listener '" + listener.name() + "' is defined twice");
            }
            WorkerGroupSettings group = byName.get(listener.connection().group());
            if (group == null) {
                String reason = "No such worker group; the groups are " + byName.keySet() + ".";
                throw new InvalidSettingException(listener.name(), Setting.GROUP, listener.connection().group(), reason, "Listener '"
                        + listener.name() + "' names worker group '" + listener.connection().group() + "', which is not defined; the groups are "
                        + byName.keySet());
            }
            // A persistent registration on a shared port may notify several workers at once; the
            // exclusive edge mode's claim word, or a port per worker, keeps each socket on one thread.
            Trigger trigger = listener.triggerOn(group);
            if (!trigger.isOneShot() && group.workers() > 1 && !group.portPerWorker() && !listener.exclusiveEdge()) {
                String advice = "Give the listener a worker group of its own with one worker, give the group a port per worker"
                        + " (portPerWorker), use a one-shot trigger (LEVEL_ONESHOT) to share the group's port, or, for TCP,"
                        + " the exclusive edge mode (exclusiveEdge), whose per-connection claim keeps a socket on one worker at"
                        + " a time";
                String why = "a persistent registration may notify several workers at once, so two threads could handle one"
                        + " socket together. " + advice;
                throw new InvalidSettingException(listener.name(), Setting.TRIGGER, trigger, "Worker group '"
                        + group.name() + "' has " + group.workers() + " workers sharing one port: " + why + ".", "Listener '"
                        + listener.name() + "' uses a persistent trigger (" + trigger + ") on worker group '"
                        + group.name() + "', which has " + group.workers() + " workers sharing one port: " + why);
            }
            if (listener.accept() == AcceptMode.PER_WORKER && group.workers() > 1 && !group.portPerWorker()) {
                // A socket per worker on the port the workers share would spread the accepts over
                // sockets any worker takes: no worker has connections of its own, only more descriptors.
                String why = "accept per worker gives each worker's own port a listening socket, and the " + group.workers()
                        + " workers of worker group '" + group.name() + "' share one port. Give the group a port per worker"
                        + " (portPerWorker), or accept SHARED";
                throw new InvalidSettingException(listener.name(), Setting.ACCEPT, listener.accept(), why + ".",
                        "Listener '" + listener.name() + "' accepts PER_WORKER on worker group '" + group.name()
                                + "', whose workers share one port: " + why);
            }
            if (listener.receive() == ReceiveMode.PER_WORKER && group.workers() > 1 && !group.portPerWorker()) {
                // As with accept per worker: sockets that any worker takes receive no faster than one.
                String why = "receive per worker gives each worker's own port a UDP socket, and the " + group.workers()
                        + " workers of worker group '" + group.name() + "' share one port. Give the group a port per worker"
                        + " (portPerWorker), or receive SHARED";
                throw new InvalidSettingException(listener.name(), Setting.RECEIVE, listener.receive(), why + ".",
                        "Listener '" + listener.name() + "' receives PER_WORKER on worker group '" + group.name()
                                + "', whose workers share one port: " + why);
            }
            if (listener.connection().tls() != null) {
                TlsSupport.check(listener.name(), listener.connection().tls());
            }
        }
    }

    /**
     * Refuses a socket option the backend has not, before anything is bound: the message names the
     * option, the backend and why (the system or the JDK has no such option).
     * @param backend the backend, checked only where it runs (an unavailable one fails the start on its own)
     * @param listeners the listeners
     * @param clients the clients
     * @throws InvalidSettingException naming the listener or client and the setting
     */
    static void checkSocketOptions(Backend backend, List<ListenerSettings> listeners, List<ClientSettings> clients) {
        if (!backend.availability().available()) {
            return;
        }
        NativeSockets sockets = backend.sockets();
        for (ListenerSettings listener : listeners) {
            // Every interface is an IPv6 socket's (dual stack), unless the system has no IPv6.
            SocketOptionList options = SocketOptionList.of(listener.connection().socketOptions(), listener.protocol(),
                    !(listener.address() instanceof Inet4Address), listener.isUnix());
            refuseUnsupported(backend, sockets, Scope.LISTENER, listener.name(), options, listener.connection().socketOptions());
            if (listener.fastOpenQueue() > 0) {
                refuse(backend, sockets, Scope.LISTENER, listener.name(), NativeSocketOption.FAST_OPEN, listener.fastOpenQueue(),
                        listener.fastOpenQueue());
            }
            checkMulticast(backend, sockets, listener);
        }
        for (ClientSettings client : clients) {
            refuseUnsupported(backend, sockets, Scope.CLIENT, client.name(),
                    SocketOptionList.of(client.connection().socketOptions(), Protocol.TCP, true, false), client.connection().socketOptions());
        }
    }

    /** Refuses multicast where the backend has none (its interface is looked for as the listener binds). */
    static void checkMulticast(Backend backend, NativeSockets sockets, ListenerSettings listener) {
        Multicast multicast = listener.multicast();
        if (!multicast.isSet()) {
            return;
        }
        String why = sockets.multicastUnsupported();
        if (why != null) {
            throw new InvalidSettingException(Scope.LISTENER, listener.name(), Setting.MULTICAST, multicast, "The " + backend.name()
                    + " backend cannot do multicast: " + why + ".", "Listener '" + listener.name() + "' sets " + Setting.MULTICAST
                    + ", which the " + backend.name() + " backend cannot do: " + why);
        }
        if (!multicast.groups().isEmpty() && multicast.networkInterface() == null && !sockets.joinsOnAnyInterface()) {
            throw new InvalidSettingException(Scope.LISTENER, listener.name(), Setting.MULTICAST, multicast, "The " + backend.name()
                    + " backend joins groups on a named network interface only: name the listener's interface.", "Listener '"
                    + listener.name() + "' joins multicast groups on no named interface, which the " + backend.name()
                    + " backend needs (the JDK joins on a named interface only)");
        }
    }

    private static void refuseUnsupported(Backend backend, NativeSockets sockets, Scope owner, String name, SocketOptionList options,
            SocketOptions settings) {
        for (int i = 0; i < options.size(); i++) {
            refuse(backend, sockets, owner, name, options.option(i), options.value(i), asSet(settings, options.option(i), options.value(i)));
        }
    }

    /** @return the setting's value as it was set (a Duration, the keep-alive whole), rather than the option's native number */
    private static Object asSet(SocketOptions settings, NativeSocketOption option, int value) {
        return switch (option) {
            case KEEP_ALIVE, KEEP_ALIVE_IDLE, KEEP_ALIVE_INTERVAL, KEEP_ALIVE_COUNT -> settings.keepAlive();
            case USER_TIMEOUT -> settings.userTimeout();
            case LINGER -> settings.linger();
            default -> value;
        };
    }

    private static void refuse(Backend backend, NativeSockets sockets, Scope owner, String name, NativeSocketOption option, int value,
            Object shown) {
        String why = sockets.unsupported(option, value);
        if (why == null) {
            return;
        }
        Setting setting = setting(option);
        String reason = "The " + backend.name() + " backend cannot set " + option.nativeName() + ": " + why + ".";
        throw new InvalidSettingException(owner, name, setting, shown, reason, ((owner == Scope.CLIENT) ? "Client '" : "Listener '")
                + name + "' sets " + setting + ", which the " + backend.name() + " backend cannot set (" + option.nativeName() + "): " + why);
    }

    /** @return the setting that asks for a native option */
    private static Setting setting(NativeSocketOption option) {
        return switch (option) {
            case RECEIVE_BUFFER -> Setting.RECEIVE_BUFFER_SIZE;
            case SEND_BUFFER -> Setting.SEND_BUFFER_SIZE;
            case KEEP_ALIVE, KEEP_ALIVE_IDLE, KEEP_ALIVE_INTERVAL, KEEP_ALIVE_COUNT -> Setting.KEEP_ALIVE;
            case USER_TIMEOUT -> Setting.USER_TIMEOUT;
            case LINGER -> Setting.LINGER;
            case NOT_SENT_LOW_WATERMARK -> Setting.NOT_SENT_LOW_WATERMARK;
            case FAST_OPEN -> Setting.FAST_OPEN_QUEUE;
            case TYPE_OF_SERVICE, IPV6_TRAFFIC_CLASS -> Setting.TRAFFIC_CLASS;
            case TCP_NODELAY, REUSE_ADDRESS, REUSE_PORT, IPV6_ONLY, RECEIVE_QUEUE_OVERFLOWS, SEGMENT_SIZE, RECEIVE_COALESCED -> throw new IllegalArgumentException(option
                    + " is set by the engine");
        };
    }

    /**
     * @param groups the worker groups
     * @param clients the clients
     * @throws InvalidSettingException naming the client and the setting that does not fit
     */
    static void checkClients(List<WorkerGroupSettings> groups, List<ClientSettings> clients) {
        Set<String> groupNames = new LinkedHashSet<>();
        groups.forEach((group) -> groupNames.add(group.name()));
        Set<String> names = new HashSet<>();
        for (ClientSettings client : clients) {
            if (!names.add(client.name())) {
                throw new InvalidSettingException(Scope.CLIENT, client.name(), Setting.CLIENT_NAME, client.name(),
                        "Each client needs a name of its own.", "Client '" + client.name() + "' is defined twice");
            }
            if (client.connection().tls() != null) {
                TlsSupport.check(Setting.Scope.CLIENT, client.name(), client.connection().tls());
            }
            if (!groupNames.contains(client.connection().group())) {
                throw new InvalidSettingException(Scope.CLIENT, client.name(), Setting.GROUP, client.connection().group(), "No such worker group;"
                        + " the groups are " + groupNames + ".", "Client '" + client.name() + "' names worker group '" + client.connection().group()
                        + "', which is not defined; the groups are " + groupNames);
            }
        }
    }
}
