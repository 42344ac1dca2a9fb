package dev.sockstate.port;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Writes and reads {@code sockaddr_in} (16 bytes) and {@code sockaddr_in6} (28 bytes) in native
 * memory: family in host order, port in network order, then the address. Linux and Winsock lay
 * them out alike; only the value of {@code AF_INET6} differs, so each backend makes one layout with
 * its family numbers.
 */
public final class SocketAddressLayout {

    /** Room for any address: {@code sizeof(struct sockaddr_storage)}. */
    public static final int STORAGE_SIZE = 128;

    /** Where a {@code socklen_t} in/out length is kept, after the storage. */
    public static final int LENGTH_OFFSET = STORAGE_SIZE;

    private final int afInet;

    private final int afInet6;

    /**
     * @param afInet the system's {@code AF_INET}
     * @param afInet6 the system's {@code AF_INET6}
     */
    public SocketAddressLayout(int afInet, int afInet6) {
        this.afInet = afInet;
        this.afInet6 = afInet6;
    }

    /**
     * @param address a resolved address
     * @param target native memory
     * @return the encoded length
     */
    public int encode(InetSocketAddress address, ByteBuffer target) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("Address " + address + " is unresolved");
        }
        InetAddress inet = address.getAddress();
        byte[] raw = inet.getAddress();
        int scope = (inet instanceof Inet6Address v6) ? v6.getScopeId() : 0;
        return encode(raw, raw.length, address.getPort(), scope, target);
    }

    /**
     * @param peer an address
     * @param scratch 16 bytes to copy the address through
     * @param target native memory
     * @return the encoded length
     */
    public int encode(PeerAddress peer, byte[] scratch, ByteBuffer target) {
        int length = peer.copyAddress(scratch);
        return encode(scratch, length, peer.port(), peer.scopeId(), target);
    }

    private int encode(byte[] raw, int length, int port, int scope, ByteBuffer target) {
        for (int i = 0; i < 28; i++) {
            target.put(i, (byte) 0);
        }
        target.put(2, (byte) (port >>> 8));
        target.put(3, (byte) port);
        if (length == 4) {
            target.putShort(0, (short) this.afInet);
            target.put(4, raw, 0, 4);
            return 16;
        }
        target.putShort(0, (short) this.afInet6);
        target.put(8, raw, 0, 16);
        target.putInt(24, scope);
        return 28;
    }

    /**
     * @param source native memory holding an address
     * @param scratch 16 bytes to copy the address through
     * @param target where the address goes
     */
    public void decode(ByteBuffer source, byte[] scratch, PeerAddress target) {
        int family = source.getShort(0);
        int port = ((source.get(2) & 0xff) << 8) | (source.get(3) & 0xff);
        if (family == this.afInet) {
            source.get(4, scratch, 0, 4);
            target.set(scratch, 4, port, 0);
        }
        else {
            source.get(8, scratch, 0, 16);
            target.set(scratch, 16, port, source.getInt(24));
        }
    }

    /**
     * @param source native memory holding an address
     * @return the address (allocates)
     */
    public InetSocketAddress decode(ByteBuffer source) {
        PeerAddress peer = PeerAddress.empty();
        decode(source, new byte[16], peer);
        return peer.toSocketAddress();
    }
}
