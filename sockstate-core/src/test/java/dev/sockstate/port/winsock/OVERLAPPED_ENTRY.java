package dev.sockstate.port.winsock;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * {@code OVERLAPPED_ENTRY} of minwinbase.h as a JNA structure: one dequeued completion. For a socket
 * notification, {@code dwNumberOfBytesTransferred} holds the events (what the header's inline
 * {@code SocketNotificationRetrieveEvents} reads) and {@code lpOverlapped} is reserved. 32 bytes on
 * x64 (lpCompletionKey 0, lpOverlapped 8, Internal 16, dwNumberOfBytesTransferred 24, then 4 bytes of
 * padding), 16 on x86. The port reads the same layout from flat native arrays
 * ({@link NotificationLayout}); this class is the reference those offsets are tested against.
 */
@FieldOrder({ "lpCompletionKey", "lpOverlapped", "Internal", "dwNumberOfBytesTransferred" })
public final class OVERLAPPED_ENTRY extends Structure {

    /** {@code ULONG_PTR lpCompletionKey}: the registration's or the posted packet's key. */
    public ULONG_PTR lpCompletionKey = new ULONG_PTR();

    /** {@code LPOVERLAPPED lpOverlapped}: reserved for notifications, the posted value otherwise. */
    public Pointer lpOverlapped;

    /** {@code ULONG_PTR Internal}: reserved. */
    public ULONG_PTR Internal = new ULONG_PTR();

    /** {@code DWORD dwNumberOfBytesTransferred}: a notification's events, or the posted count. */
    public int dwNumberOfBytesTransferred;

    /**
     * @param field a field's name
     * @return its offset in this JVM's layout
     */
    int offsetOf(String field) {
        return fieldOffset(field);
    }
}
