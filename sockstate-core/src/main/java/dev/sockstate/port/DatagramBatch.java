package dev.sockstate.port;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * A reusable batch of received datagrams: room for up to {@link #capacity()} datagrams of up to
 * {@link #datagramSize()} bytes each, with their senders, filled by one
 * {@link NativeSockets#receiveBatch} call ({@code recvmmsg} on Linux; one datagram a call where the
 * system has no call that takes more). Made by {@link NativeSockets#datagramBatch}.
 * <p>
 * A batch belongs to one thread at a time; it allocates nothing once made. Backends fill it through
 * the protected members of {@link AbstractNativeSockets}.
 */
public final class DatagramBatch {

    /** The most datagrams one batch takes: Linux's {@code UIO_MAXIOV}, the most {@code recvmmsg} fills. */
    public static final int MAX_CAPACITY = 1024;

    private final NativeBuffer[] datagrams;

    private final NativeBuffer[] addresses;

    private final PeerAddress[] senders;

    private final int[] segmentSizes;

    private final byte[] scratch = new byte[SocketAddressLayout.UNIX_PATH_MAX];

    private final int datagramSize;

    private int size;

    private long overflows = -1;

    private @Nullable NativeBuffer vector;

    /**
     * @param sockets the sockets whose native memory it takes
     * @param capacity the most datagrams one receive takes
     * @param datagramSize the room for each: a longer datagram is truncated to it
     */
    DatagramBatch(NativeSockets sockets, int capacity, int datagramSize) {
        if (capacity < 1 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("A datagram batch holds 1 to " + MAX_CAPACITY + " datagrams, not " + capacity);
        }
        if (datagramSize < 1 || datagramSize > 64 * 1024) {
            throw new IllegalArgumentException("A datagram's room is 1 to 65536 bytes, not " + datagramSize);
        }
        this.datagramSize = datagramSize;
        this.datagrams = new NativeBuffer[capacity];
        this.addresses = new NativeBuffer[capacity];
        this.senders = new PeerAddress[capacity];
        this.segmentSizes = new int[capacity];
        NativeBuffer data = sockets.allocate(capacity * datagramSize);
        int addressRoom = SocketAddressLayout.STORAGE_SIZE + 8;
        NativeBuffer names = sockets.allocate(capacity * addressRoom);
        for (int i = 0; i < capacity; i++) {
            this.datagrams[i] = slice(data, i * datagramSize, datagramSize);
            this.addresses[i] = slice(names, i * addressRoom, addressRoom);
            this.senders[i] = PeerAddress.empty();
        }
    }

    private static NativeBuffer slice(NativeBuffer whole, int offset, int length) {
        ByteBuffer view = whole.buffer().slice(offset, length).order(whole.buffer().order());
        return new NativeBuffer(view, whole.address() + offset);
    }

    /** @return the datagrams the last receive took, zero when none was waiting */
    public int size() {
        return this.size;
    }

    /** @return the most datagrams one receive takes */
    public int capacity() {
        return this.datagrams.length;
    }

    /** @return the room for each datagram in bytes: a longer one is truncated to it */
    public int datagramSize() {
        return this.datagramSize;
    }

    /**
     * @param index below {@link #size()}
     * @return the datagram, from position 0 to its length: valid until the next receive into the batch
     */
    public ByteBuffer datagram(int index) {
        return this.datagrams[index].buffer();
    }

    /**
     * @param index below {@link #size()}
     * @return the native memory of {@link #datagram(int)}: the same buffer with its address, to send it
     * on (an echo) without finding its address again
     */
    public NativeBuffer nativeDatagram(int index) {
        return this.datagrams[index];
    }

    /**
     * @param index below {@link #size()}
     * @return its sender: valid until the next receive into the batch
     */
    public PeerAddress sender(int index) {
        return this.senders[index];
    }

    /**
     * @param index below {@link #size()}
     * @return for a datagram the system received coalesced (once the socket asked for it with
     * {@link NativeSocketOption#RECEIVE_COALESCED}), the size of its segments: it holds datagrams of one
     * sender of this size each, in order, the last perhaps shorter; 0 for a datagram received alone
     */
    public int segmentSize(int index) {
        return this.segmentSizes[index];
    }

    /**
     * @return the datagrams the system dropped at the socket since it opened because its receive
     * buffer was full, as the last receive reported (Linux's {@code SO_RXQ_OVFL}, once the socket
     * asked for it with {@link NativeSocketOption#RECEIVE_QUEUE_OVERFLOWS}), or -1 when it has not
     * reported any
     */
    public long overflows() {
        return this.overflows;
    }

    NativeBuffer address(int index) {
        return this.addresses[index];
    }

    /** Receives one datagram into the batch with {@link NativeSockets#receiveFrom}: where the system has no call that takes more. */
    int receiveAlone(NativeSockets sockets, long socket) throws NativeIoException {
        filled(0);
        NativeBuffer slot = this.datagrams[0];
        slot.buffer().clear();
        int length = sockets.receiveFrom(socket, slot, this.senders[0]);
        if (length == NativeSockets.WOULD_BLOCK) {
            return NativeSockets.WOULD_BLOCK;
        }
        received(0, slot.buffer().position());
        filled(1);
        return 1;
    }

    PeerAddress senderSlot(int index) {
        return this.senders[index];
    }

    byte[] scratch() {
        return this.scratch;
    }

    void received(int index, int length) {
        this.datagrams[index].buffer().limit(length).position(0);
        this.segmentSizes[index] = 0;
    }

    void segmentSize(int index, int size) {
        this.segmentSizes[index] = size;
    }

    void filled(int count) {
        this.size = count;
    }

    void overflows(long total) {
        this.overflows = total;
    }

    @Nullable NativeBuffer vector() {
        return this.vector;
    }

    void vector(NativeBuffer vector) {
        this.vector = vector;
    }
}
