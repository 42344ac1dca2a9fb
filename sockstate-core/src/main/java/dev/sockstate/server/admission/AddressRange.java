package dev.sockstate.server.admission;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A range of IP addresses: an address with a prefix length, {@code 10.0.0.0/8}, {@code fd00::/8}, or
 * one address ({@code 127.0.0.1}, a /32 or /128), as the PROXY protocol's trusted proxies and a
 * listener's {@link Admission} lists take them. Only literal addresses: a host name is refused, so that
 * no lookup runs and the range means what it says. An IPv4-mapped IPv6 range ({@code ::ffff:10.0.0.0/104})
 * is the IPv4 range it maps, as a dual-stack socket's IPv4 peers are IPv4 addresses.
 */
public final class AddressRange {

    private final byte[] network;

    private final int prefixLength;

    private final String text;

    private AddressRange(byte[] network, int prefixLength, String text) {
        this.network = network;
        this.prefixLength = prefixLength;
        this.text = text;
    }

    /**
     * @param text an address or {@code address/prefix}
     * @return the range
     * @throws IllegalArgumentException naming the text and what is wrong with it
     */
    public static AddressRange parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("An address range must be an address or a range such as 10.0.0.0/8, not '" + text + "'");
        }
        String trimmed = text.strip();
        int slash = trimmed.indexOf('/');
        String address = (slash >= 0) ? trimmed.substring(0, slash) : trimmed;
        byte[] bytes = literal(address, text);
        // An IPv4-mapped IPv6 literal (::ffff:10.0.0.0) reads as IPv4, as the peers it stands for do: its
        // prefix counts the 96 bits of the mapping too.
        boolean mapped = bytes.length == 4 && address.indexOf(':') >= 0;
        int length = bytes.length * 8;
        if (slash >= 0) {
            String prefix = trimmed.substring(slash + 1);
            int least = mapped ? 96 : 0;
            int most = mapped ? 128 : bytes.length * 8;
            if (!prefix.matches("[0-9]{1,3}") || Integer.parseInt(prefix) < least || Integer.parseInt(prefix) > most) {
                throw new IllegalArgumentException("The address range '" + text + "' has a prefix length that is not between "
                        + least + " and " + most + (mapped ? " (an IPv4-mapped range lies within ::ffff:0:0/96)" : ""));
            }
            length = Integer.parseInt(prefix) - least;
        }
        for (int bit = length; bit < bytes.length * 8; bit++) {
            if ((bytes[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                throw new IllegalArgumentException("The address range '" + text + "' has bits set past its prefix length "
                        + length + " (a network address such as " + masked(bytes, length) + "/" + length + " is meant)");
            }
        }
        return new AddressRange(bytes, length, trimmed);
    }

    /** @return whether the address is in the range (an IPv4 range holds IPv4 addresses only, and IPv6 likewise) */
    public boolean contains(InetAddress address) {
        byte[] candidate = address.getAddress();
        if (candidate.length != this.network.length) {
            return false;
        }
        int full = this.prefixLength / 8;
        for (int i = 0; i < full; i++) {
            if (candidate[i] != this.network[i]) {
                return false;
            }
        }
        int rest = this.prefixLength % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (candidate[full] & mask) == (this.network[full] & mask);
    }

    private static byte[] literal(String address, String text) {
        boolean ipv4 = address.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        boolean ipv6 = address.indexOf(':') >= 0 && address.matches("[0-9A-Fa-f:.]+");
        if (!ipv4 && !ipv6) {
            throw new IllegalArgumentException("The address '" + text + "' is not a literal IPv4 or IPv6 address (host names"
                    + " are not looked up)");
        }
        if (ipv4) {
            byte[] bytes = new byte[4];
            String[] parts = address.split("\\.");
            for (int i = 0; i < 4; i++) {
                int part = Integer.parseInt(parts[i]);
                if (part > 255) {
                    throw new IllegalArgumentException("The address '" + text + "' is not a valid IPv4 address");
                }
                bytes[i] = (byte) part;
            }
            return bytes;
        }
        try {
            // With a colon, the JDK parses an IPv6 literal and never looks it up.
            return InetAddress.getByName(address).getAddress();
        }
        catch (UnknownHostException ex) {
            throw new IllegalArgumentException("The address '" + text + "' is not a valid address: " + ex.getMessage(), ex);
        }
    }

    private static String masked(byte[] bytes, int length) {
        byte[] copy = bytes.clone();
        for (int bit = length; bit < copy.length * 8; bit++) {
            copy[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        try {
            return InetAddress.getByAddress(copy).getHostAddress();
        }
        catch (UnknownHostException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** @return the range as it was written, trimmed */
    public String text() {
        return this.text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AddressRange range && this.prefixLength == range.prefixLength
                && java.util.Arrays.equals(this.network, range.network);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Arrays.hashCode(this.network) + this.prefixLength;
    }

    @Override
    public String toString() {
        return this.text;
    }
}
