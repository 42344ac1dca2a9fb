package dev.sockstate.port.winsock;

import java.nio.ByteBuffer;

/**
 * Sizes and field offsets of {@code SOCK_NOTIFY_REGISTRATION} and {@code OVERLAPPED_ENTRY} for one
 * pointer size, computed with the C rules (every field aligned to its size, the struct's size a
 * multiple of its largest field): 24 and 32 bytes on x64, 16 and 16 on x86. The port writes and
 * reads flat native arrays at these offsets, which allocates nothing per call; the tests describe the
 * same structures as JNA {@code Structure}s and hold both to the documented table.
 */
final class NotificationLayout {

    /** The layout of this JVM's pointer size. */
    static final NotificationLayout NATIVE = forPointerSize(com.sun.jna.Native.POINTER_SIZE);

    /** Bytes of a pointer, a {@code SOCKET}, a {@code ULONG_PTR}: 8 on x64, 4 on x86. */
    final int pointerSize;

    /** {@code sizeof(SOCK_NOTIFY_REGISTRATION)}. */
    final int registrationSize;

    /** {@code SOCKET socket}. */
    final int socketOffset;

    /** {@code PVOID completionKey}. */
    final int completionKeyOffset;

    /** {@code UINT16 eventFilter}. */
    final int eventFilterOffset;

    /** {@code UINT8 operation}. */
    final int operationOffset;

    /** {@code UINT8 triggerFlags}. */
    final int triggerFlagsOffset;

    /** {@code DWORD registrationResult}. */
    final int registrationResultOffset;

    /** {@code sizeof(OVERLAPPED_ENTRY)}. */
    final int entrySize;

    /** {@code ULONG_PTR lpCompletionKey}. */
    final int entryCompletionKeyOffset;

    /** {@code LPOVERLAPPED lpOverlapped}. */
    final int entryOverlappedOffset;

    /** {@code ULONG_PTR Internal}. */
    final int entryInternalOffset;

    /** {@code DWORD dwNumberOfBytesTransferred}: the events of a socket notification. */
    final int entryBytesTransferredOffset;

    private NotificationLayout(int pointerSize) {
        this.pointerSize = pointerSize;
        int[] registration = layout(pointerSize, pointerSize, 2, 1, 1, 4);
        this.socketOffset = registration[0];
        this.completionKeyOffset = registration[1];
        this.eventFilterOffset = registration[2];
        this.operationOffset = registration[3];
        this.triggerFlagsOffset = registration[4];
        this.registrationResultOffset = registration[5];
        this.registrationSize = registration[6];
        int[] entry = layout(pointerSize, pointerSize, pointerSize, 4);
        this.entryCompletionKeyOffset = entry[0];
        this.entryOverlappedOffset = entry[1];
        this.entryInternalOffset = entry[2];
        this.entryBytesTransferredOffset = entry[3];
        this.entrySize = entry[4];
    }

    /**
     * @param pointerSize 8 for x64, 4 for x86
     * @return the layouts for that pointer size
     */
    static NotificationLayout forPointerSize(int pointerSize) {
        if (pointerSize != 4 && pointerSize != 8) {
            throw new IllegalArgumentException("Pointers are 4 or 8 bytes on Windows, not " + pointerSize);
        }
        return new NotificationLayout(pointerSize);
    }

    /**
     * Lays out a C struct of scalar fields, each aligned to its own size.
     * @param sizes the fields' sizes in declaration order
     * @return each field's offset, then the struct's size
     */
    private static int[] layout(int... sizes) {
        int[] offsets = new int[sizes.length + 1];
        int offset = 0;
        int alignment = 1;
        for (int i = 0; i < sizes.length; i++) {
            offset = align(offset, sizes[i]);
            offsets[i] = offset;
            offset += sizes[i];
            alignment = Math.max(alignment, sizes[i]);
        }
        offsets[sizes.length] = align(offset, alignment);
        return offsets;
    }

    private static int align(int offset, int alignment) {
        return (offset + alignment - 1) / alignment * alignment;
    }

    /**
     * Writes a pointer-sized value.
     * @param buffer native-order buffer
     * @param offset where
     * @param value the value, truncated to 32 bits on x86
     */
    void putPointer(ByteBuffer buffer, int offset, long value) {
        if (this.pointerSize == 8) {
            buffer.putLong(offset, value);
        }
        else {
            buffer.putInt(offset, (int) value);
        }
    }

    /**
     * Reads a pointer-sized value.
     * @param buffer native-order buffer
     * @param offset where
     * @return the value, sign-extended from 32 bits on x86
     */
    long getPointer(ByteBuffer buffer, int offset) {
        return (this.pointerSize == 8) ? buffer.getLong(offset) : buffer.getInt(offset);
    }
}
