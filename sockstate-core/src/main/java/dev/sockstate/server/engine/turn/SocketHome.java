package dev.sockstate.server.engine.turn;

import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.server.observer.ListenerObserver;

/**
 * Where a new socket is served: what it shares with the other sockets of its listener, and the port
 * chosen for it.
 * @param port the port it registers with
 * @param sockets the backend's sockets
 * @param table the server's sockets by completion key
 * @param observer its listener's observer
 * @param rules how the backend takes registration changes
 */
public record SocketHome(NotificationPort port, NativeSockets sockets, SocketTurn.Table table, ListenerObserver observer, ChangeRules rules) {
}
