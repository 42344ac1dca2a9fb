package dev.sockstate.server.proxy;

import dev.sockstate.server.admission.AddressRange;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a TCP listener behind a load balancer (HAProxy, nginx's stream module, a cloud network load
 * balancer) reads the PROXY protocol header that the balancer sends before the client's bytes; immutable,
 * each {@code with} method returns a copy. The header is read first, below TLS and framing; the client's
 * address it carries becomes the connection's peer ({@link java.net.SocketAddress}), and the whole header,
 * with the balancer's own address and the version 2 TLVs, is the connection's {@link ProxyHeader}.
 * <p>
 * <b>Trust.</b> A listener on an IP port must name its trusted proxies: a peer inside one of their
 * ranges must send a header, and a peer outside them is served as a direct client under its own
 * address, but a header it sends is refused: the connection is closed, so that no client can claim
 * another's address. To believe every peer (a port only balancers reach), name {@code 0.0.0.0/0} and
 * {@code ::/0}. On a Unix domain socket, whose peers have no address, none are named and every peer
 * is taken for a balancer: the file's permissions say who connects.
 * <p>
 * A connection whose header is malformed, of another version than accepted, longer than
 * {@link #maxHeaderSize()}, not complete within {@link #headerTimeout()}, or refused as untrusted, is closed
 * before the handler hears of it; each is counted by reason and logged at most once a second.
 * <pre>{@code
 * ListenerSettings.tcp("echo").portNumber(7000)
 *         .proxyProtocol(ProxyProtocol.accept(ProxyProtocol.Version.ANY).withTrustedProxies(List.of("10.0.0.0/8")))
 *         .handler(handler).build();
 * }</pre>
 */
public final class ProxyProtocol {

    /** How long a connection may take to send its whole header unless told otherwise. */
    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(5);

    /** The longest version 2 header taken unless told otherwise, its 16 fixed bytes included: room for the usual TLVs. */
    public static final int DEFAULT_MAX_HEADER_SIZE = 4096;

    /** The longest version 1 header, its CRLF included, as the protocol fixes it. */
    public static final int V1_MAX_HEADER_SIZE = 107;

    /** The shortest version 2 header: its fixed part, with no address. */
    public static final int V2_FIXED_SIZE = 16;

    private final Version version;

    private final List<AddressRange> trustedProxies;

    private final Duration headerTimeout;

    private final int maxHeaderSize;

    private ProxyProtocol(Version version, List<AddressRange> trustedProxies, Duration headerTimeout, int maxHeaderSize) {
        this.version = version;
        this.trustedProxies = trustedProxies;
        this.headerTimeout = headerTimeout;
        this.maxHeaderSize = maxHeaderSize;
    }

    /**
     * @param version the header versions accepted
     * @return the PROXY protocol with no trusted proxies named yet (which a listener on an IP port refuses:
     * see {@link #withTrustedProxies}), a header timeout of 5 seconds and headers of up to 4 KiB
     */
    public static ProxyProtocol accept(Version version) {
        Objects.requireNonNull(version, "The PROXY protocol needs the versions it accepts");
        return new ProxyProtocol(version, List.of(), DEFAULT_HEADER_TIMEOUT, DEFAULT_MAX_HEADER_SIZE);
    }

    /**
     * @param ranges the balancers' addresses or ranges, such as {@code 10.0.0.0/8}, {@code 192.168.1.10}
     * or {@code fd00::/8}, literal addresses only ({@code 0.0.0.0/0} and {@code ::/0} for every peer);
     * {@code null} or none only on a Unix domain socket, where every peer is trusted
     * @return a copy trusting those
     * @throws IllegalArgumentException naming an entry that is not an address or range
     */
    public ProxyProtocol withTrustedProxies(@Nullable Collection<String> ranges) {
        List<AddressRange> parsed = new ArrayList<>();
        if (ranges != null) {
            for (String range : ranges) {
                parsed.add(AddressRange.parse(range));
            }
        }
        return new ProxyProtocol(this.version, List.copyOf(parsed), this.headerTimeout, this.maxHeaderSize);
    }

    /**
     * @param timeout how long a trusted peer may take from its accept to send its whole header; a
     * connection whose header is not complete then is closed
     * @return a copy with that limit
     * @throws IllegalArgumentException when the timeout is not positive
     */
    public ProxyProtocol withHeaderTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The PROXY protocol header timeout must be positive, not " + timeout);
        }
        return new ProxyProtocol(this.version, this.trustedProxies, timeout, this.maxHeaderSize);
    }

    /**
     * @param bytes the longest version 2 header taken, its fixed 16 bytes, addresses and TLVs included,
     * between 232 (the longest header without TLVs: two Unix paths) and 65,551; a longer one closes its
     * connection. Version 1 headers are at most 107 bytes, as the protocol says.
     * @return a copy with that limit
     * @throws IllegalArgumentException when the size is out of range
     */
    public ProxyProtocol withMaxHeaderSize(int bytes) {
        if (bytes < V2_FIXED_SIZE + 216 || bytes > V2_FIXED_SIZE + 65535) {
            throw new IllegalArgumentException("The PROXY protocol's max header size must be between " + (V2_FIXED_SIZE + 216) + " and "
                    + (V2_FIXED_SIZE + 65535) + " bytes, not " + bytes);
        }
        return new ProxyProtocol(this.version, this.trustedProxies, this.headerTimeout, bytes);
    }

    /** @return the header versions accepted */
    public Version version() {
        return this.version;
    }

    /** @return the trusted ranges as given, empty when every peer is trusted */
    public List<String> trustedProxies() {
        return this.trustedProxies.stream().map(AddressRange::text).toList();
    }

    /**
     * @param peer a connection's peer, as the socket sees it
     * @return whether it may (and then must) send a header: every peer when no range is given
     */
    public boolean trusts(InetAddress peer) {
        if (this.trustedProxies.isEmpty()) {
            return true;
        }
        for (AddressRange range : this.trustedProxies) {
            if (range.contains(peer)) {
                return true;
            }
        }
        return false;
    }

    /** @return how long a connection may take to send its header */
    public Duration headerTimeout() {
        return this.headerTimeout;
    }

    /** @return the longest version 2 header taken */
    public int maxHeaderSize() {
        return this.maxHeaderSize;
    }

    @Override
    public String toString() {
        return "PROXY protocol " + this.version + " (" + (this.trustedProxies.isEmpty() ? "every peer trusted"
                : "trusted " + this.trustedProxies) + ", header within " + this.headerTimeout + ", at most " + this.maxHeaderSize + " bytes)";
    }

    /** The versions of the header a listener accepts. */
    public enum Version {

        /** The text header: {@code PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n}. */
        V1,

        /** The binary header, with TLVs. */
        V2,

        /** Either, told apart by the first byte. */
        ANY
    }
}
