package dev.sockstate.port.nio;

import dev.sockstate.port.PeerAddress;
import dev.sockstate.port.SocketAddressLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * A datagram socket's peer addresses in the two forms its calls need: the JDK's
 * {@link InetSocketAddress}, and the portable {@link PeerAddress} the runtime reuses. The last
 * sender and the last target are kept on the socket, so that a peer that sends and is answered
 * again and again costs no new address (the JDK makes one for every other peer).
 */
final class DatagramAddresses {

    private static final SocketAddressLayout LAYOUT = new SocketAddressLayout(2, 10, 1);

    private DatagramAddresses() {
    }

    /**
     * Fills {@code sender} from the JDK's address, which the JDK reuses for a sender seen last time.
     * @param scratch the calling thread's scratch bytes
     */
    static void storeSender(NioSocket socket, InetSocketAddress from, PeerAddress sender, byte[] scratch) {
        NioSocket.CachedAddress cached = socket.lastSender;
        if (cached == null || cached.address() != from) {
            ByteBuffer encoded = ByteBuffer.allocate(SocketAddressLayout.STORAGE_SIZE);
            int length = LAYOUT.encode(from, encoded);
            cached = new NioSocket.CachedAddress(from, encoded, length);
            socket.lastSender = cached;
        }
        LAYOUT.decode(cached.encoded(), scratch, sender);
    }

    /**
     * @param scratch the calling thread's scratch bytes
     * @param encoded the calling thread's room for an encoded address
     * @return the JDK's form of {@code target}: the one made last time when it is the same address
     */
    static InetSocketAddress targetAddress(NioSocket socket, PeerAddress target, byte[] scratch, ByteBuffer encoded) {
        int length = LAYOUT.encode(target, scratch, encoded);
        NioSocket.CachedAddress cached = socket.lastTarget;
        if (cached != null && cached.length() == length && sameBytes(cached.encoded(), encoded, length)) {
            return cached.address();
        }
        ByteBuffer copy = ByteBuffer.allocate(length);
        for (int i = 0; i < length; i++) {
            copy.put(i, encoded.get(i));
        }
        if (target.isUnix()) {
            throw new IllegalArgumentException("A Unix domain socket's path " + target + " is no address for a UDP socket");
        }
        InetSocketAddress address = (InetSocketAddress) target.toSocketAddress();
        socket.lastTarget = new NioSocket.CachedAddress(address, copy, length);
        return address;
    }

    private static boolean sameBytes(ByteBuffer one, ByteBuffer other, int length) {
        for (int i = 0; i < length; i++) {
            if (one.get(i) != other.get(i)) {
                return false;
            }
        }
        return true;
    }
}
