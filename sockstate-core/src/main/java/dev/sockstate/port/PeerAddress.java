package dev.sockstate.port;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A reusable, mutable socket address: the sender a datagram came from, or the destination of one;
 * an IP address and port, or the path of a Unix domain socket (empty for an unnamed one, which
 * cannot be answered). Receiving into it allocates nothing; {@link #toSocketAddress()} builds a JDK
 * address on demand.
 */
public final class PeerAddress {

    /** Address bytes: 4 or 16 of an IP address, or a Unix socket's path. */
    private final byte[] address = new byte[SocketAddressLayout.UNIX_PATH_MAX];

    /** How many bytes of {@link #address} count: 4 or 16, a path's length, or 0 when none is set. */
    private int addressLength;

    /** Whether the address is a Unix domain socket's path. */
    private boolean unix;

    private int port;

    private int scopeId;

    /** @return an empty address, to be filled by a receive */
    public static PeerAddress empty() {
        return new PeerAddress();
    }

    /**
     * @param address a resolved IP socket address, or a Unix domain socket's path
     * @return a peer address holding it
     */
    public static PeerAddress of(SocketAddress address) {
        PeerAddress peer = new PeerAddress();
        peer.set(address);
        return peer;
    }

    /**
     * Stores a resolved IP socket address, or a Unix domain socket's path.
     * @param socketAddress the address
     * @return this
     * @throws IllegalArgumentException when unresolved, a path too long, or another kind of address
     */
    public PeerAddress set(SocketAddress socketAddress) {
        if (socketAddress instanceof UnixDomainSocketAddress path) {
            byte[] raw = SocketAddressLayout.pathBytes(path);
            setUnix(raw, raw.length);
            return this;
        }
        if (!(socketAddress instanceof InetSocketAddress inet) || inet.isUnresolved()) {
            throw new IllegalArgumentException("Address " + socketAddress + " is unresolved, or neither an IP socket address"
                    + " nor a Unix domain socket's path");
        }
        byte[] raw = inet.getAddress().getAddress();
        set(raw, raw.length, inet.getPort(), (inet.getAddress() instanceof java.net.Inet6Address v6) ? v6.getScopeId() : 0);
        return this;
    }

    /**
     * Stores an IP address decoded by a backend.
     * @param raw 4 or 16 address bytes, copied
     * @param length how many bytes of {@code raw} count
     * @param port the port
     * @param scopeId the IPv6 scope, zero for IPv4
     */
    void set(byte[] raw, int length, int port, int scopeId) {
        System.arraycopy(raw, 0, this.address, 0, length);
        this.addressLength = length;
        this.unix = false;
        this.port = port;
        this.scopeId = scopeId;
    }

    /**
     * Stores a Unix domain socket's path decoded by a backend.
     * @param path the path's bytes, copied
     * @param length how many count, zero for an unnamed socket
     */
    void setUnix(byte[] path, int length) {
        System.arraycopy(path, 0, this.address, 0, length);
        this.addressLength = length;
        this.unix = true;
        this.port = 0;
        this.scopeId = 0;
    }

    /**
     * Stores another's address.
     * @param other the address to copy
     */
    void copyFrom(PeerAddress other) {
        System.arraycopy(other.address, 0, this.address, 0, other.addressLength);
        this.addressLength = other.addressLength;
        this.unix = other.unix;
        this.port = other.port;
        this.scopeId = other.scopeId;
    }

    /** @return whether the address is IPv6 */
    public boolean isIpv6() {
        return !this.unix && this.addressLength == 16;
    }

    /**
     * @return whether the address is a loopback address of this host, read without allocating: IPv4's
     * 127.0.0.0/8, IPv6's {@code ::1}, or an IPv4 loopback address mapped into IPv6 ({@code ::ffff:127.0.0.1})
     */
    public boolean isLoopback() {
        if (this.unix) {
            return false;
        }
        if (this.addressLength == 4) {
            return this.address[0] == 127;
        }
        if (this.addressLength != 16) {
            return false;
        }
        for (int i = 0; i < 10; i++) {
            if (this.address[i] != 0) {
                return false;
            }
        }
        if (this.address[10] == (byte) 0xff && this.address[11] == (byte) 0xff) {
            return this.address[12] == 127;
        }
        for (int i = 10; i < 15; i++) {
            if (this.address[i] != 0) {
                return false;
            }
        }
        return this.address[15] == 1;
    }

    /** @return whether the address is a Unix domain socket's path (possibly empty: an unnamed sender) */
    public boolean isUnix() {
        return this.unix;
    }

    /** @return whether an address is stored */
    public boolean isSet() {
        return this.unix || this.addressLength != 0;
    }

    /** @return the port, zero for a Unix domain socket */
    public int port() {
        return this.port;
    }

    /** @return the IPv6 scope id, zero for IPv4 */
    public int scopeId() {
        return this.scopeId;
    }

    /**
     * Copies the address bytes out.
     * @param target at least {@link SocketAddressLayout#UNIX_PATH_MAX} bytes
     * @return the number of bytes copied: 4 or 16, or a path's length
     */
    int copyAddress(byte[] target) {
        System.arraycopy(this.address, 0, target, 0, this.addressLength);
        return this.addressLength;
    }

    /**
     * @return a JDK socket address for this peer (allocates): an {@link InetSocketAddress}, or a
     * {@link UnixDomainSocketAddress} (its path empty for an unnamed sender)
     */
    public SocketAddress toSocketAddress() {
        if (this.unix) {
            return SocketAddressLayout.unixAddress(this.address, this.addressLength);
        }
        if (this.addressLength == 0) {
            throw new IllegalStateException("No address is stored");
        }
        try {
            byte[] raw = Arrays.copyOf(this.address, this.addressLength);
            InetAddress inet = (this.addressLength == 16 && this.scopeId != 0)
                    ? java.net.Inet6Address.getByAddress(null, raw, this.scopeId) : InetAddress.getByAddress(raw);
            return new InetSocketAddress(inet, this.port);
        }
        catch (UnknownHostException ex) {
            throw new IllegalStateException("Invalid stored address", ex);
        }
    }

    @Override
    public String toString() {
        if (this.unix) {
            return (this.addressLength == 0) ? "(unnamed Unix socket)" : "unix:" + toSocketAddress();
        }
        return isSet() ? toSocketAddress().toString() : "(no address)";
    }
}
