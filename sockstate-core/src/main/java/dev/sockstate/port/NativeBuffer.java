package dev.sockstate.port;

import java.nio.ByteBuffer;

/**
 * A direct buffer together with its native address, found once when the buffer is made so that
 * native calls pass a plain address and allocate nothing. {@link NativeSockets#allocate(int)} makes
 * them in native byte order; released by the garbage collector with its buffer.
 */
public final class NativeBuffer {

    private final ByteBuffer buffer;

    private final long address;

    /**
     * @param buffer a direct buffer
     * @param address its native base address
     */
    public NativeBuffer(ByteBuffer buffer, long address) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("A native buffer needs a direct ByteBuffer");
        }
        this.buffer = buffer;
        this.address = address;
    }

    /** @return the buffer; reads and writes move its position like any NIO buffer */
    public ByteBuffer buffer() {
        return this.buffer;
    }

    /** @return the native address of the buffer's first byte */
    public long address() {
        return this.address;
    }

    /** @return the native address of the buffer's position */
    public long positionAddress() {
        return this.address + this.buffer.position();
    }

    /** @return the capacity in bytes */
    public int capacity() {
        return this.buffer.capacity();
    }
}
