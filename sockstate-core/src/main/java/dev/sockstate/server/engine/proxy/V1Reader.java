package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.engine.proxy.HeaderReader.Result;
import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.server.proxy.ProxyHeader.Command;
import dev.sockstate.server.proxy.ProxyHeader.Transport;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The version 1 header: one line of ASCII, {@code PROXY TCP4 <src> <dst> <sport> <dport>\r\n}, at most 107
 * bytes; {@code PROXY UNKNOWN ...\r\n} says nothing of the client, and the rest of its line is ignored.
 * Addresses are literals in their family's usual form, ports decimal without leading zeros.
 */
final class V1Reader {

    private V1Reader() {
    }

    static Result read(ByteBuffer data, SocketAddress proxy) {
        if (!HeaderReader.startsLike(data, HeaderReader.V1_SIGNATURE)) {
            return Result.refused("malformed", "bytes that are no PROXY protocol header (they begin as no version 1 header does)");
        }
        int start = data.position();
        int available = Math.min(data.remaining(), ProxyProtocol.V1_MAX_HEADER_SIZE);
        int end = -1;
        for (int i = 0; i < available; i++) {
            byte b = data.get(start + i);
            if (b == '\n') {
                if (i == 0 || data.get(start + i - 1) != '\r') {
                    return Result.refused("malformed", "a version 1 header whose line ends without CRLF");
                }
                end = i + 1;
                break;
            }
            // A CR only before the LF: one inside the line would go into the log lines that quote it.
            if (b < 0x20 && b != '\r' || b == 0x7f || b == '\r' && i + 1 < available && data.get(start + i + 1) != '\n') {
                return Result.refused("malformed", "a version 1 header with a control character (0x" + Integer.toHexString(b & 0xff) + ")");
            }
        }
        if (end < 0) {
            return (data.remaining() >= ProxyProtocol.V1_MAX_HEADER_SIZE)
                    ? Result.refused("oversized", "a version 1 header longer than the protocol's 107 bytes") : Result.MORE;
        }
        byte[] raw = new byte[end - 2];
        data.get(start, raw);
        String line = new String(raw, StandardCharsets.US_ASCII);
        Result result = parse(line, proxy);
        if (result.header() != null) {
            data.position(start + end);
        }
        return result;
    }

    private static Result parse(String line, SocketAddress proxy) {
        String[] fields = line.split(" ", -1);
        if (fields.length >= 2 && fields[1].equals("UNKNOWN")) {
            return Result.of(new ProxyHeader(1, Command.PROXY, Transport.UNKNOWN, null, null, proxy, List.of()));
        }
        if (fields.length != 6) {
            return Result.refused("malformed", "a version 1 header of " + fields.length + " fields where 6 are due: '" + line + "'");
        }
        Transport transport;
        if (fields[1].equals("TCP4")) {
            transport = Transport.TCP4;
        }
        else if (fields[1].equals("TCP6")) {
            transport = Transport.TCP6;
        }
        else {
            return Result.refused("malformed", "a version 1 header of protocol '" + fields[1] + "' (TCP4, TCP6 or UNKNOWN are due)");
        }
        InetAddress source = address(fields[2], transport);
        InetAddress destination = address(fields[3], transport);
        int sourcePort = port(fields[4]);
        int destinationPort = port(fields[5]);
        if (source == null || destination == null) {
            return Result.refused("malformed", "a version 1 header whose addresses are not " + transport + " literals: '" + line + "'");
        }
        if (sourcePort < 0 || destinationPort < 0) {
            return Result.refused("malformed", "a version 1 header whose ports are not between 0 and 65535: '" + line + "'");
        }
        return Result.of(new ProxyHeader(1, Command.PROXY, transport, new InetSocketAddress(source, sourcePort),
                new InetSocketAddress(destination, destinationPort), proxy, List.of()));
    }

    private static final Pattern IPV4 = Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");

    private static final Pattern GROUP = Pattern.compile("[0-9A-Fa-f]{1,4}");

    /** The longest IPv6 literal: eight groups, or six and a dotted IPv4 address. */
    private static final int LONGEST_IPV6 = 45;

    /**
     * @return the literal's address in the transport's family, {@code null} when it is none; read by
     *     this class alone, never handed to the system's resolver. An IPv4-mapped IPv6 literal, which a
     *     TCP6 header may carry, comes back as IPv4, as the JDK reads it.
     */
    static @Nullable InetAddress address(String text, Transport transport) {
        byte[] bytes = (transport == Transport.TCP4) ? ipv4(text) : ipv6(text);
        return (bytes != null) ? byAddress(bytes) : null;
    }

    /** @return the 4 bytes of a dotted-decimal IPv4 literal (no leading zeros), {@code null} when the text is none */
    static byte @Nullable [] ipv4(String text) {
        if (!IPV4.matcher(text).matches()) {
            return null;
        }
        byte[] bytes = new byte[4];
        String[] parts = text.split("\\.");
        for (int i = 0; i < 4; i++) {
            int part = Integer.parseInt(parts[i]);
            if (part > 255) {
                return null;
            }
            bytes[i] = (byte) part;
        }
        return bytes;
    }

    /**
     * @return the 16 bytes of an IPv6 literal in RFC 4291's text forms (eight groups of one to four hex
     *     digits, one {@code ::} standing for one or more groups of zeros, the last 32 bits as a dotted
     *     IPv4 address), {@code null} when the text is none (a zone, a name, anything else)
     */
    static byte @Nullable [] ipv6(String text) {
        if (text.length() < 2 || text.length() > LONGEST_IPV6) {
            return null;
        }
        int gap = text.indexOf("::");
        if (gap >= 0 && text.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        byte[] front = groups((gap >= 0) ? text.substring(0, gap) : text, gap < 0);
        byte[] back = (gap >= 0) ? groups(text.substring(gap + 2), true) : new byte[0];
        if (front == null || back == null || ((gap < 0) ? front.length != 16 : front.length + back.length > 14)) {
            return null;
        }
        byte[] bytes = new byte[16];
        System.arraycopy(front, 0, bytes, 0, front.length);
        System.arraycopy(back, 0, bytes, 16 - back.length, back.length);
        return bytes;
    }

    /**
     * @param text groups of one to four hex digits separated by single colons, or nothing
     * @param ipv4Last whether the last group may be a dotted IPv4 address (32 bits)
     * @return their bytes, {@code null} when the text is not that
     */
    private static byte @Nullable [] groups(String text, boolean ipv4Last) {
        if (text.isEmpty()) {
            return new byte[0];
        }
        String[] parts = text.split(":", -1);
        byte[] bytes = new byte[20];
        int length = 0;
        for (int i = 0; i < parts.length && length <= 16; i++) {
            String part = parts[i];
            if (ipv4Last && i == parts.length - 1 && part.indexOf('.') >= 0) {
                byte[] ipv4 = ipv4(part);
                if (ipv4 == null) {
                    return null;
                }
                System.arraycopy(ipv4, 0, bytes, length, 4);
                length += 4;
            }
            else if (GROUP.matcher(part).matches()) {
                int group = Integer.parseInt(part, 16);
                bytes[length++] = (byte) (group >>> 8);
                bytes[length++] = (byte) group;
            }
            else {
                return null;
            }
        }
        return (length <= 16) ? Arrays.copyOf(bytes, length) : null;
    }

    private static InetAddress byAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        }
        catch (UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static int port(String text) {
        if (!text.matches("0|[1-9][0-9]{0,4}")) {
            return -1;
        }
        int port = Integer.parseInt(text);
        return (port <= 65535) ? port : -1;
    }
}
