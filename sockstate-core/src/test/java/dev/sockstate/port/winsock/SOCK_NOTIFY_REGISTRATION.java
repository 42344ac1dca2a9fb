package dev.sockstate.port.winsock;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;

/**
 * {@code SOCK_NOTIFY_REGISTRATION} of winsock2.h as a JNA structure: one registration change
 * passed to {@code ProcessSocketNotifications}, whose {@code registrationResult} the call fills in.
 * 24 bytes on x64 (socket 0, completionKey 8, eventFilter 16, operation 18, triggerFlags 19,
 * registrationResult 20), 16 on x86. The port writes the same layout into flat native arrays
 * ({@link NotificationLayout}) rather than through this class, which would allocate per call; this
 * class is the reference those offsets are tested against.
 */
@FieldOrder({ "socket", "completionKey", "eventFilter", "operation", "triggerFlags", "registrationResult" })
public final class SOCK_NOTIFY_REGISTRATION extends Structure {

    /** {@code SOCKET socket}: the socket handle. */
    public ULONG_PTR socket = new ULONG_PTR();

    /** {@code PVOID completionKey}: delivered with the socket's notifications. */
    public Pointer completionKey;

    /** {@code UINT16 eventFilter}: {@code SOCK_NOTIFY_REGISTER_EVENT_*} bits. */
    public short eventFilter;

    /** {@code UINT8 operation}: one {@code SOCK_NOTIFY_OP_*} value. */
    public byte operation;

    /** {@code UINT8 triggerFlags}: {@code SOCK_NOTIFY_TRIGGER_*} bits. */
    public byte triggerFlags;

    /** {@code DWORD registrationResult}: written by the call, zero on success. */
    public int registrationResult;

    /**
     * @param field a field's name
     * @return its offset in this JVM's layout
     */
    int offsetOf(String field) {
        return fieldOffset(field);
    }
}
