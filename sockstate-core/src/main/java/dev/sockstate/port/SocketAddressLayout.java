package dev.sockstate.port;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;

/**
 * Writes and reads {@code sockaddr_in} (16 bytes), {@code sockaddr_in6} (28 bytes) and
 * {@code sockaddr_un} (the family, then a path of at most {@value #UNIX_PATH_MAX} bytes ending in a
 * zero byte) in native memory: family in host order, port in network order, then the address.
 * Linux and Winsock lay them out alike; only the family numbers differ, so each backend makes one
 * layout with its own.
 */
public final class SocketAddressLayout {

    /** Room for any address: {@code sizeof(struct sockaddr_storage)}. */
    public static final int STORAGE_SIZE = 128;

    /** Where a {@code socklen_t} in/out length is kept, after the storage. */
    public static final int LENGTH_OFFSET = STORAGE_SIZE;

    /** The room for a path in {@code sockaddr_un} (108 bytes on Linux and Windows), its ending zero byte included. */
    public static final int UNIX_PATH_MAX = 108;

    /** Where the path starts in {@code sockaddr_un}, after the family. */
    private static final int UNIX_PATH_OFFSET = 2;

    /** How the JDK writes a socket's path as bytes (the file system's encoding; UTF-8 on Windows), so that it means the same file. */
    private static final Charset PATH_CHARSET = pathCharset();

    private final int afInet;

    private final int afInet6;

    private final int afUnix;

    /**
     * @param afInet the system's {@code AF_INET}
     * @param afInet6 the system's {@code AF_INET6}
     * @param afUnix the system's {@code AF_UNIX}
     */
    public SocketAddressLayout(int afInet, int afInet6, int afUnix) {
        this.afInet = afInet;
        this.afInet6 = afInet6;
        this.afUnix = afUnix;
    }

    /**
     * @param path a Unix domain socket's path
     * @return its bytes as the system reads them (allocates)
     * @throws IllegalArgumentException when it does not fit in {@code sockaddr_un}
     */
    public static byte[] pathBytes(UnixDomainSocketAddress path) {
        byte[] bytes = path.getPath().toString().getBytes(PATH_CHARSET);
        if (bytes.length >= UNIX_PATH_MAX) {
            throw new IllegalArgumentException("Unix socket path " + path.getPath() + " is " + bytes.length
                    + " bytes long; sockaddr_un holds at most " + (UNIX_PATH_MAX - 1));
        }
        return bytes;
    }

    /**
     * @param address a resolved address or a Unix domain socket's path
     * @param target native memory
     * @return the encoded length
     * @throws IllegalArgumentException when the address is unresolved, or a path too long
     */
    public int encode(SocketAddress address, ByteBuffer target) {
        if (address instanceof UnixDomainSocketAddress unix) {
            byte[] path = pathBytes(unix);
            return encodeUnix(path, path.length, target);
        }
        InetSocketAddress inet = (InetSocketAddress) address;
        if (inet.isUnresolved()) {
            throw new IllegalArgumentException("Address " + address + " is unresolved");
        }
        byte[] raw = inet.getAddress().getAddress();
        int scope = (inet.getAddress() instanceof Inet6Address v6) ? v6.getScopeId() : 0;
        return encode(raw, raw.length, inet.getPort(), scope, target);
    }

    /**
     * @param peer an address
     * @param scratch at least {@value #UNIX_PATH_MAX} bytes to copy the address through
     * @param target native memory
     * @return the encoded length
     */
    public int encode(PeerAddress peer, byte[] scratch, ByteBuffer target) {
        int length = peer.copyAddress(scratch);
        if (peer.isUnix()) {
            return encodeUnix(scratch, length, target);
        }
        return encode(scratch, length, peer.port(), peer.scopeId(), target);
    }

    private int encodeUnix(byte[] path, int length, ByteBuffer target) {
        target.putShort(0, (short) this.afUnix);
        target.put(UNIX_PATH_OFFSET, path, 0, length);
        target.put(UNIX_PATH_OFFSET + length, (byte) 0);
        // An unnamed address (no path) is the family alone.
        return (length == 0) ? UNIX_PATH_OFFSET : UNIX_PATH_OFFSET + length + 1;
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
     * @param source native memory holding an address, its length (as a call filled it in) at {@link #LENGTH_OFFSET}
     * @param scratch at least {@value #UNIX_PATH_MAX} bytes to copy the address through
     * @param target where the address goes
     */
    public void decode(ByteBuffer source, byte[] scratch, PeerAddress target) {
        int family = source.getShort(0);
        if (family == this.afUnix) {
            int length = unixPathLength(source);
            source.get(UNIX_PATH_OFFSET, scratch, 0, length);
            target.setUnix(scratch, length);
            return;
        }
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

    /** @return the path's length in a {@code sockaddr_un}: up to its zero byte, within the length the call gave */
    private static int unixPathLength(ByteBuffer source) {
        int end = Math.min(source.getInt(LENGTH_OFFSET), UNIX_PATH_OFFSET + UNIX_PATH_MAX) - UNIX_PATH_OFFSET;
        int length = 0;
        while (length < end && source.get(UNIX_PATH_OFFSET + length) != 0) {
            length++;
        }
        return length;
    }

    /**
     * @param source native memory holding an address, its length at {@link #LENGTH_OFFSET}
     * @return the address (allocates): an {@link InetSocketAddress}, or a {@link UnixDomainSocketAddress}
     * (with an empty path for an unnamed socket)
     */
    public SocketAddress decode(ByteBuffer source) {
        PeerAddress peer = PeerAddress.empty();
        decode(source, new byte[UNIX_PATH_MAX], peer);
        return peer.toSocketAddress();
    }

    /**
     * @param bytes a path's bytes as the system gave them
     * @param length how many count
     * @return the path
     */
    static UnixDomainSocketAddress unixAddress(byte[] bytes, int length) {
        return UnixDomainSocketAddress.of(new String(bytes, 0, length, PATH_CHARSET));
    }

    private static Charset pathCharset() {
        if (System.getProperty("os.name", "").startsWith("Windows")) {
            // afunix.h's sun_path is UTF-8 there, as the JDK writes it.
            return java.nio.charset.StandardCharsets.UTF_8;
        }
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        }
        catch (RuntimeException ex) {
            return Charset.defaultCharset();
        }
    }
}
