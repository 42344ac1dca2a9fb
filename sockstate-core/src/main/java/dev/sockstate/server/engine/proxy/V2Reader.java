package dev.sockstate.server.engine.proxy;

import dev.sockstate.server.engine.proxy.HeaderReader.Result;
import dev.sockstate.server.proxy.ProxyHeader;
import dev.sockstate.server.proxy.ProxyHeader.Command;
import dev.sockstate.server.proxy.ProxyHeader.Tlv;
import dev.sockstate.server.proxy.ProxyHeader.Transport;
import dev.sockstate.server.proxy.ProxyProtocol;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The version 2 header: a 12-byte signature, the version and command, the family and transport, the
 * length of what follows (big-endian), the addresses (12 bytes for IPv4, 36 for IPv6, 216 for Unix
 * paths), then TLVs that must fill the rest exactly. A CRC32C TLV is checked over the whole header.
 */
final class V2Reader {

    private static final int INET_BLOCK = 12;

    private static final int INET6_BLOCK = 36;

    private static final int UNIX_BLOCK = 216;

    private V2Reader() {
    }

    static Result read(ByteBuffer data, int maxHeaderSize, SocketAddress proxy) {
        if (!HeaderReader.startsLike(data, HeaderReader.V2_SIGNATURE)) {
            return Result.refused("malformed", "bytes that are no PROXY protocol header (they begin as no version 2 header does)");
        }
        if (data.remaining() < ProxyProtocol.V2_FIXED_SIZE) {
            return Result.MORE;
        }
        int start = data.position();
        int versionCommand = data.get(start + 12) & 0xff;
        int familyTransport = data.get(start + 13) & 0xff;
        // Big-endian whatever the buffer's order (a worker's read buffer has the native one).
        int length = ((data.get(start + 14) & 0xff) << 8) | (data.get(start + 15) & 0xff);
        if ((versionCommand >>> 4) != 2) {
            return Result.refused("malformed", "a version 2 signature with version " + (versionCommand >>> 4) + " in its 13th byte");
        }
        int commandBits = versionCommand & 0x0f;
        if (commandBits > 1) {
            return Result.refused("malformed", "a version 2 header with command " + commandBits + " (LOCAL 0 or PROXY 1 are due)");
        }
        int total = ProxyProtocol.V2_FIXED_SIZE + length;
        if (total > maxHeaderSize) {
            return Result.refused("oversized", "a version 2 header of " + total + " bytes, over the listener's " + maxHeaderSize);
        }
        if (data.remaining() < total) {
            return Result.MORE;
        }
        if (commandBits == 0) {
            // LOCAL: the balancer speaks for itself; what follows its fixed part is to be skipped, whatever its family.
            data.position(start + total);
            return Result.of(new ProxyHeader(2, Command.LOCAL, Transport.UNKNOWN, null, null, proxy, List.of()));
        }
        Command command = Command.PROXY;
        Transport transport = transport(familyTransport);
        if (transport == null) {
            return Result.refused("malformed", "a version 2 header of unknown family and transport 0x" + Integer.toHexString(familyTransport));
        }
        int block = switch (transport) {
            case TCP4, UDP4 -> INET_BLOCK;
            case TCP6, UDP6 -> INET6_BLOCK;
            case UNIX_STREAM, UNIX_DGRAM -> UNIX_BLOCK;
            case UNKNOWN -> 0;
        };
        if (length < block) {
            return Result.refused("malformed", "a version 2 header of " + length + " bytes after its fixed part, too few for the "
                    + block + " of its " + transport + " addresses");
        }
        ByteBuffer header = data.slice(start, total).order(ByteOrder.BIG_ENDIAN);
        List<Tlv> tlvs = new ArrayList<>();
        String tlvProblem = tlvs(header, ProxyProtocol.V2_FIXED_SIZE + block, tlvs);
        if (tlvProblem != null) {
            return Result.refused("malformed", tlvProblem);
        }
        SocketAddress source = null;
        SocketAddress destination = null;
        if (transport != Transport.UNKNOWN) {
            int at = ProxyProtocol.V2_FIXED_SIZE;
            if (block == UNIX_BLOCK) {
                try {
                    source = path(header, at);
                    destination = path(header, at + 108);
                }
                catch (InvalidPathException ex) {
                    return Result.refused("malformed", "a version 2 header whose Unix path is no path: " + ex.getMessage());
                }
            }
            else {
                int size = (block == INET_BLOCK) ? 4 : 16;
                source = new InetSocketAddress(inet(header, at, size), header.getShort(at + 2 * size) & 0xffff);
                destination = new InetSocketAddress(inet(header, at + size, size), header.getShort(at + 2 * size + 2) & 0xffff);
            }
        }
        data.position(start + total);
        return Result.of(new ProxyHeader(2, command, transport, source, destination, proxy, tlvs));
    }

    private static @Nullable Transport transport(int familyTransport) {
        return switch (familyTransport) {
            case 0x00 -> Transport.UNKNOWN;
            case 0x11 -> Transport.TCP4;
            case 0x12 -> Transport.UDP4;
            case 0x21 -> Transport.TCP6;
            case 0x22 -> Transport.UDP6;
            case 0x31 -> Transport.UNIX_STREAM;
            case 0x32 -> Transport.UNIX_DGRAM;
            default -> null;
        };
    }

    /** Reads the TLVs from {@code from} to the header's end; @return what is wrong with them, {@code null} when nothing */
    private static @Nullable String tlvs(ByteBuffer header, int from, List<Tlv> tlvs) {
        int at = from;
        int end = header.limit();
        while (at < end) {
            if (end - at < 3) {
                return "a version 2 header whose TLVs end in " + (end - at) + " stray bytes";
            }
            int type = header.get(at) & 0xff;
            int length = header.getShort(at + 1) & 0xffff;
            if (length > end - at - 3) {
                return "a version 2 header whose TLV 0x" + Integer.toHexString(type) + " of " + length + " bytes runs past the header's end";
            }
            byte[] value = new byte[length];
            header.get(at + 3, value);
            if (type == ProxyHeader.PP2_TYPE_CRC32C) {
                String problem = checksum(header, at + 3, value);
                if (problem != null) {
                    return problem;
                }
            }
            if (type != ProxyHeader.PP2_TYPE_NOOP) {
                tlvs.add(new Tlv(type, value));
            }
            at += 3 + length;
        }
        return null;
    }

    /** The CRC32C of the whole header with the checksum's own 4 bytes as zeros must be the value. */
    private static @Nullable String checksum(ByteBuffer header, int valueAt, byte[] value) {
        if (value.length != 4) {
            return "a version 2 header whose CRC32C TLV has " + value.length + " bytes, not 4";
        }
        CRC32C crc = new CRC32C();
        crc.update(header.slice(0, valueAt));
        crc.update(new byte[4]);
        crc.update(header.slice(valueAt + 4, header.limit() - valueAt - 4));
        long expected = ByteBuffer.wrap(value).getInt() & 0xffffffffL;
        return (crc.getValue() == expected) ? null
                : "a version 2 header whose CRC32C does not match its bytes (0x" + Long.toHexString(expected) + " sent, 0x"
                        + Long.toHexString(crc.getValue()) + " computed)";
    }

    private static InetAddress inet(ByteBuffer header, int at, int size) {
        byte[] bytes = new byte[size];
        header.get(at, bytes);
        try {
            return InetAddress.getByAddress(bytes);
        }
        catch (UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** A Unix path: up to 108 bytes, ended by the first NUL. */
    private static SocketAddress path(ByteBuffer header, int at) {
        int length = 0;
        while (length < 108 && header.get(at + length) != 0) {
            length++;
        }
        byte[] bytes = new byte[length];
        header.get(at, bytes);
        return UnixDomainSocketAddress.of(new String(bytes, StandardCharsets.UTF_8));
    }
}
