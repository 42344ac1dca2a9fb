package dev.sockstate.server.engine;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.Multicast;
import dev.sockstate.server.Setting;
import dev.sockstate.server.Setting.Scope;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;

/**
 * A UDP listener's multicast settings applied to its socket: how its multicast datagrams go out, set
 * before it binds, and its groups, joined once it is bound (each leaves with the socket's close).
 */
final class MulticastMembership {

    private MulticastMembership() {
    }

    /**
     * @param listener a listener with multicast settings
     * @return the index of its interface, 0 for the system's choice
     * @throws InvalidSettingException when the system has no interface of that name, or it has no multicast
     */
    static int interfaceIndex(ListenerSettings listener) {
        Multicast multicast = listener.multicast();
        String name = multicast.networkInterface();
        if (name == null) {
            return 0;
        }
        try {
            NetworkInterface found = NetworkInterface.getByName(name);
            if (found == null) {
                throw refused(listener, "the system has no network interface named '" + name + "'");
            }
            if (!found.supportsMulticast()) {
                throw refused(listener, "network interface '" + name + "' has no multicast");
            }
            return found.getIndex();
        }
        catch (SocketException ex) {
            throw refused(listener, "network interface '" + name + "' could not be read: " + ex.getMessage());
        }
    }

    private static InvalidSettingException refused(ListenerSettings listener, String why) {
        return new InvalidSettingException(Scope.LISTENER, listener.name(), Setting.MULTICAST, listener.multicast().networkInterface(),
                why + ".", "Listener '" + listener.name() + "' sets " + Setting.MULTICAST + " on an interface that does not serve: " + why);
    }

    /**
     * Sets how the socket's multicast datagrams go out, before it binds.
     * @param sockets the backend's sockets
     * @param handle the listener's socket
     * @param family its family
     * @param interfaceIndex its interface's index ({@link #interfaceIndex}), 0 for the system's choice
     * @param multicast the listener's multicast settings
     * @throws NativeIoException when the system refuses
     */
    static void configure(NativeSockets sockets, long handle, StandardProtocolFamily family, int interfaceIndex, Multicast multicast)
            throws NativeIoException {
        sockets.sendMulticast(handle, family, interfaceIndex, multicast.hops(), multicast.loopback());
    }

    /**
     * Joins the listener's groups, once its socket is bound.
     * @param sockets the backend's sockets
     * @param handle the listener's socket
     * @param interfaceIndex its interface's index, 0 for the system's choice
     * @param multicast the listener's multicast settings
     * @throws NativeIoException when the system refuses a group (the message names it)
     */
    static void join(NativeSockets sockets, long handle, int interfaceIndex, Multicast multicast) throws NativeIoException {
        for (Multicast.Group group : multicast.groups()) {
            sockets.joinGroup(handle, group.address(), interfaceIndex, group.source());
        }
    }
}
