package dev.sockstate.port.winsock;

import com.sun.jna.IntegerType;
import com.sun.jna.Native;

/**
 * {@code ULONG_PTR} (and {@code UINT_PTR}, {@code SOCKET}): an unsigned integer as wide as a
 * pointer, for the fields of {@link SOCK_NOTIFY_REGISTRATION} and {@link OVERLAPPED_ENTRY}.
 */
public final class ULONG_PTR extends IntegerType {

    private static final long serialVersionUID = 1L;

    /** A zero value; JNA needs this constructor to size the structures. */
    public ULONG_PTR() {
        this(0);
    }

    /** @param value the value, truncated to the pointer size */
    public ULONG_PTR(long value) {
        super(Native.POINTER_SIZE, value, true);
    }
}
