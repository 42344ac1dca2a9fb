package dev.sockstate.server.proxy;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The PROXY protocol header a connection began with, as its balancer sent it: the client's and the
 * original destination's addresses, the balancer's own address (the socket's peer), and the version 2
 * TLVs. The connection's peer address is the {@link #source()}; with the {@link Command#LOCAL LOCAL}
 * command (the balancer's own health check) or an unknown or unspecified transport, the connection
 * keeps the balancer's address as its peer.
 *
 * @param version 1 or 2
 * @param command whether the balancer relays a client or speaks for itself
 * @param transport the transport of the relayed connection, as the header names it
 * @param source the client's address: an {@link InetSocketAddress}, a {@link java.net.UnixDomainSocketAddress}
 * for a relayed Unix socket, or {@code null} for an unknown or unspecified transport
 * @param destination the address the client connected to, as {@code source}
 * @param proxyAddress the balancer's address: the socket's peer (an {@link InetSocketAddress}, or a
 * {@link java.net.UnixDomainSocketAddress} on a Unix domain socket)
 * @param tlvs the version 2 TLVs in the order they came, empty for version 1
 */
public record ProxyHeader(int version, Command command, Transport transport, @Nullable SocketAddress source,
        @Nullable SocketAddress destination, SocketAddress proxyAddress, List<Tlv> tlvs) {

    /** TLV type of the application protocol the client negotiated (TLS's ALPN), such as {@code h2}. */
    public static final int PP2_TYPE_ALPN = 0x01;

    /** TLV type of the authority: the host name the client asked for. */
    public static final int PP2_TYPE_AUTHORITY = 0x02;

    /** TLV type of the header's CRC32C checksum, checked when present. */
    public static final int PP2_TYPE_CRC32C = 0x03;

    /** TLV type of padding, ignored. */
    public static final int PP2_TYPE_NOOP = 0x04;

    /** TLV type of an opaque connection identifier the balancer made. */
    public static final int PP2_TYPE_UNIQUE_ID = 0x05;

    /** TLV type of the client's TLS details, with sub-TLVs of its own. */
    public static final int PP2_TYPE_SSL = 0x20;

    /** TLV type of the network namespace the balancer accepted the connection in. */
    public static final int PP2_TYPE_NETNS = 0x30;

    /** The TLVs are copied. */
    public ProxyHeader {
        tlvs = List.copyOf(tlvs);
    }

    /**
     * @param type a TLV type, such as {@link #PP2_TYPE_AUTHORITY}
     * @return the value of the first TLV of that type (a copy), {@code null} when there is none
     */
    public byte @Nullable [] tlv(int type) {
        for (Tlv tlv : this.tlvs) {
            if (tlv.type() == type) {
                return tlv.value();
            }
        }
        return null;
    }

    /** @return the authority TLV as text (the host name the client asked for), {@code null} when absent */
    public @Nullable String authority() {
        byte[] value = tlv(PP2_TYPE_AUTHORITY);
        return (value != null) ? new String(value, StandardCharsets.UTF_8) : null;
    }

    /** @return whether the header relays a client whose address the connection takes as its peer */
    public boolean relaysClient() {
        return this.command == Command.PROXY && this.source != null;
    }

    @Override
    public String toString() {
        return "PROXY v" + this.version + " " + this.command + " " + this.transport + " " + this.source + " -> " + this.destination
                + " via " + this.proxyAddress + (this.tlvs.isEmpty() ? "" : " " + this.tlvs);
    }

    /** What the balancer says the connection is. */
    public enum Command {

        /** A relayed client: the addresses are the client's and its destination's. */
        PROXY,

        /** The balancer speaks for itself (a health check): no client, the addresses are to be ignored. */
        LOCAL
    }

    /** The transport of the relayed connection, as the header names it. */
    public enum Transport {

        /** TCP over IPv4. */
        TCP4,

        /** TCP over IPv6. */
        TCP6,

        /** UDP over IPv4 (version 2 only). */
        UDP4,

        /** UDP over IPv6 (version 2 only). */
        UDP6,

        /** A Unix stream socket (version 2 only). */
        UNIX_STREAM,

        /** A Unix datagram socket (version 2 only). */
        UNIX_DGRAM,

        /** Not said: version 1's {@code UNKNOWN}, version 2's {@code UNSPEC}, and the {@code LOCAL} command's. */
        UNKNOWN
    }

    /**
     * One version 2 TLV: a type and its bytes.
     * @param type the type, 0 to 255
     * @param value the value
     */
    public record Tlv(int type, byte[] value) {

        /** The value is copied. */
        public Tlv {
            value = value.clone();
        }

        /** @return the value (a copy) */
        @Override
        public byte[] value() {
            return this.value.clone();
        }

        @Override
        public boolean equals(@Nullable Object other) {
            return other instanceof Tlv tlv && tlv.type == this.type && Arrays.equals(tlv.value, this.value);
        }

        @Override
        public int hashCode() {
            return 31 * this.type + Arrays.hashCode(this.value);
        }

        @Override
        public String toString() {
            return "TLV 0x" + Integer.toHexString(this.type) + " (" + this.value.length + " bytes)";
        }
    }
}
