package dev.sockstate.port.winsock;

import dev.sockstate.port.PeerAddress;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Writes and reads Winsock {@code SOCKADDR_IN} (16 bytes) and {@code SOCKADDR_IN6} (28 bytes) in
 * native memory: family in host order, port in network order, then the address; the layouts are
 * Linux's, only {@code AF_INET6} differs (23).
 */
final class SocketAddressCodec {

    /** Room for any address: {@code sizeof(SOCKADDR_STORAGE)}. */
    static final int STORAGE_SIZE = 128;

    /** Where an {@code int} in/out length is kept, after the storage. */
    static final int LENGTH_OFFSET = STORAGE_SIZE;

    private SocketAddressCodec() {
    }

    /** @return the encoded length */
    static int encode(InetSocketAddress address, ByteBuffer target) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("Address " + address + " is unresolved");
        }
        InetAddress inet = address.getAddress();
        byte[] raw = inet.getAddress();
        int scope = (inet instanceof Inet6Address v6) ? v6.getScopeId() : 0;
        return encode(raw, raw.length, address.getPort(), scope, target);
    }

    /** @return the encoded length */
    static int encode(PeerAddress peer, byte[] scratch, ByteBuffer target) {
        int length = peer.copyAddress(scratch);
        return encode(scratch, length, peer.port(), peer.scopeId(), target);
    }

    private static int encode(byte[] raw, int length, int port, int scope, ByteBuffer target) {
        for (int i = 0; i < 28; i++) {
            target.put(i, (byte) 0);
        }
        target.put(2, (byte) (port >>> 8));
        target.put(3, (byte) port);
        if (length == 4) {
            target.putShort(0, (short) WinsockNative.AF_INET);
            target.put(4, raw, 0, 4);
            return 16;
        }
        target.putShort(0, (short) WinsockNative.AF_INET6);
        target.put(8, raw, 0, 16);
        target.putInt(24, scope);
        return 28;
    }

    static void decode(ByteBuffer source, byte[] scratch, PeerAddress target) {
        int family = source.getShort(0);
        int port = ((source.get(2) & 0xff) << 8) | (source.get(3) & 0xff);
        if (family == WinsockNative.AF_INET) {
            source.get(4, scratch, 0, 4);
            target.set(scratch, 4, port, 0);
        }
        else {
            source.get(8, scratch, 0, 16);
            target.set(scratch, 16, port, source.getInt(24));
        }
    }

    static InetSocketAddress decode(ByteBuffer source) {
        PeerAddress peer = PeerAddress.empty();
        decode(source, new byte[16], peer);
        return peer.toSocketAddress();
    }
}
