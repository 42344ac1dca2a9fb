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
import java.util.List;

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

    /** @return the literal's address in the transport's family, {@code null} when it is none (never looked up) */
    static InetAddress address(String text, Transport transport) {
        if (transport == Transport.TCP4) {
            if (!text.matches("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}")) {
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
            return byAddress(bytes);
        }
        // The JDK takes a text for a literal only when it begins with a hex digit or a colon; any other
        // (".:1") it would look up as a name.
        if (text.indexOf(':') < 0 || !text.matches("[0-9A-Fa-f:][0-9A-Fa-f:.]{1,44}")) {
            return null;
        }
        try {
            // With a colon the JDK parses an IPv6 literal and never looks it up; an IPv4-mapped one
            // comes back as IPv4, which a TCP6 header may carry.
            return InetAddress.getByName(text);
        }
        catch (UnknownHostException ex) {
            return null;
        }
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
