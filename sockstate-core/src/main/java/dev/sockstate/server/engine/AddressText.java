package dev.sockstate.server.engine;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/** Addresses as users write them in settings and read them in logs and errors. */
final class AddressText {

    private AddressText() {
    }

    /**
     * @return the address as users write it: {@code 127.0.0.1:7007}, {@code [::]:7007} (no leading
     * slash), {@code unix:/run/app/echo.sock}
     */
    static String of(@Nullable SocketAddress bound) {
        if (!(bound instanceof InetSocketAddress address)) {
            return (bound == null) ? "nothing" : "unix:" + bound;
        }
        if (address.isUnresolved()) {
            String host = address.getHostString();
            return ((host.indexOf(':') >= 0) ? "[" + host + "]" : host) + ":" + address.getPort();
        }
        if (!(address.getAddress() instanceof Inet6Address v6)) {
            return address.getAddress().getHostAddress() + ":" + address.getPort();
        }
        return "[" + compressed(v6) + "]:" + address.getPort();
    }

    /** @return the IPv6 address in its short text form (RFC 5952): {@code ::1}, {@code ::}, {@code fe80::1%2} */
    private static String compressed(Inet6Address address) {
        byte[] bytes = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff);
        }
        // The longest run of two or more zero groups, the first of equals, becomes "::".
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = (j > i) ? j : i + 1;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        String scope = address.getHostAddress();
        int percent = scope.indexOf('%');
        return (percent >= 0) ? text + scope.substring(percent) : text.toString();
    }
}
