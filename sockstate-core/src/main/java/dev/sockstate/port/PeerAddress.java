package dev.sockstate.port;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A reusable, mutable socket address: the sender a datagram came from, or the destination of one.
 * Receiving into it allocates nothing; {@link #toSocketAddress()} builds a JDK address on demand.
 */
public final class PeerAddress {

    private final byte[] address = new byte[16];

    private int addressLength;

    private int port;

    private int scopeId;

    /** @return an empty address, to be filled by a receive */
    public static PeerAddress empty() {
        return new PeerAddress();
    }

    /**
     * @param address a resolved socket address
     * @return a peer address holding it
     */
    public static PeerAddress of(InetSocketAddress address) {
        PeerAddress peer = new PeerAddress();
        peer.set(address);
        return peer;
    }

    /**
     * Stores a resolved socket address.
     * @param socketAddress the address
     * @return this
     */
    public PeerAddress set(InetSocketAddress socketAddress) {
        if (socketAddress.isUnresolved()) {
            throw new IllegalArgumentException("Address " + socketAddress + " is unresolved");
        }
        byte[] raw = socketAddress.getAddress().getAddress();
        System.arraycopy(raw, 0, this.address, 0, raw.length);
        this.addressLength = raw.length;
        this.port = socketAddress.getPort();
        this.scopeId = (socketAddress.getAddress() instanceof java.net.Inet6Address v6) ? v6.getScopeId() : 0;
        return this;
    }

    /**
     * Stores an address decoded by a backend.
     * @param raw 4 or 16 address bytes, copied
     * @param length how many bytes of {@code raw} count
     * @param port the port
     * @param scopeId the IPv6 scope, zero for IPv4
     */
    void set(byte[] raw, int length, int port, int scopeId) {
        System.arraycopy(raw, 0, this.address, 0, length);
        this.addressLength = length;
        this.port = port;
        this.scopeId = scopeId;
    }

    /** @return whether the address is IPv6 */
    public boolean isIpv6() {
        return this.addressLength == 16;
    }

    /** @return whether an address is stored */
    public boolean isSet() {
        return this.addressLength != 0;
    }

    /** @return the port */
    public int port() {
        return this.port;
    }

    /** @return the IPv6 scope id, zero for IPv4 */
    public int scopeId() {
        return this.scopeId;
    }

    /**
     * Copies the address bytes out.
     * @param target at least 16 bytes
     * @return the number of bytes copied, 4 or 16
     */
    int copyAddress(byte[] target) {
        System.arraycopy(this.address, 0, target, 0, this.addressLength);
        return this.addressLength;
    }

    /** @return a JDK socket address for this peer (allocates) */
    public InetSocketAddress toSocketAddress() {
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
        return isSet() ? toSocketAddress().toString() : "(no address)";
    }
}
