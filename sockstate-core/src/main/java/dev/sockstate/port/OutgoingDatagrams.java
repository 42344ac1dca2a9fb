package dev.sockstate.port;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Datagrams gathered to leave a socket in one {@link NativeSockets#sendBatch} call ({@code sendmmsg}
 * on Linux): each a copy in native memory of the batch's own, or native memory the caller keeps valid
 * until the batch is sent, with its target. Made by {@link NativeSockets#outgoingDatagrams} where the
 * backend has such a call.
 * <p>
 * A batch belongs to one thread at a time; it allocates nothing once made. Backends read it through
 * the protected members of {@link AbstractNativeSockets}.
 */
public final class OutgoingDatagrams {

    private final NativeBuffer copies;

    private final NativeBuffer[] addresses;

    private final PeerAddress[] targets;

    private final long[] bases;

    private final int[] lengths;

    private final int[] segmentSizes;

    private final byte[] scratch = new byte[SocketAddressLayout.UNIX_PATH_MAX];

    private int size;

    private int copied;

    private @Nullable NativeBuffer vector;

    /**
     * @param sockets the sockets whose native memory it takes
     * @param capacity the most datagrams one call sends, 1 to {@link DatagramBatch#MAX_CAPACITY}
     * @param copyRoom the bytes of copies it holds at once, at least 65,536 (the longest datagram)
     */
    OutgoingDatagrams(NativeSockets sockets, int capacity, int copyRoom) {
        if (capacity < 1 || capacity > DatagramBatch.MAX_CAPACITY) {
            throw new IllegalArgumentException("A send batch holds 1 to " + DatagramBatch.MAX_CAPACITY + " datagrams, not " + capacity);
        }
        if (copyRoom < 64 * 1024) {
            throw new IllegalArgumentException("A send batch copies at least one datagram of 65536 bytes, not " + copyRoom);
        }
        this.copies = sockets.allocate(copyRoom);
        this.addresses = new NativeBuffer[capacity];
        this.targets = new PeerAddress[capacity];
        this.bases = new long[capacity];
        this.lengths = new int[capacity];
        this.segmentSizes = new int[capacity];
        int addressRoom = SocketAddressLayout.STORAGE_SIZE + 8;
        NativeBuffer names = sockets.allocate(capacity * addressRoom);
        for (int i = 0; i < capacity; i++) {
            ByteBuffer view = names.buffer().slice(i * addressRoom, addressRoom).order(names.buffer().order());
            this.addresses[i] = new NativeBuffer(view, names.address() + (long) i * addressRoom);
            this.targets[i] = PeerAddress.empty();
        }
    }

    /** @return the datagrams gathered and not yet sent */
    public int size() {
        return this.size;
    }

    /** @return the most datagrams it gathers */
    public int capacity() {
        return this.targets.length;
    }

    /**
     * Gathers a copy of a datagram, consuming the buffer.
     * @param datagram from position to limit, at most 65,536 bytes
     * @param target where to; copied
     * @return whether it was taken: false when the batch is full (send it, then add again)
     */
    public boolean add(ByteBuffer datagram, PeerAddress target) {
        return add(datagram, target, 0);
    }

    /**
     * Gathers a copy of data that leaves as datagrams of {@code segmentSize} bytes each, the last perhaps
     * shorter, cut by the system in the same call (Linux's {@code UDP_SEGMENT} given with the datagram,
     * where {@link NativeSocketOption#SEGMENT_SIZE} is supported), consuming the buffer.
     * @param data from position to limit, at most 65,536 bytes, and at most 64 segments
     * @param segmentSize the size of each datagram, 1 to 65,535 bytes; 0 to send the data as one datagram
     * @param target where to; copied
     * @return whether it was taken: false when the batch is full (send it, then add again)
     */
    public boolean add(ByteBuffer data, PeerAddress target, int segmentSize) {
        if (segmentSize < 0 || segmentSize > 0xFFFF) {
            throw new IllegalArgumentException("A segment size is 0 to 65535 bytes, not " + segmentSize);
        }
        int length = data.remaining();
        ByteBuffer datagram = data;
        if (length > 64 * 1024) {
            throw new IllegalArgumentException("A datagram of " + length + " bytes exceeds the 65536 bytes UDP carries");
        }
        if (this.size == this.targets.length || this.copied + length > this.copies.capacity()) {
            return false;
        }
        this.copies.buffer().put(this.copied, datagram, datagram.position(), length);
        datagram.position(datagram.limit());
        take(this.copies.address() + this.copied, length, target);
        this.segmentSizes[this.size - 1] = segmentSize;
        this.copied += length;
        return true;
    }

    /**
     * Gathers a datagram where it is, without a copy, consuming the buffer.
     * @param datagram from position to limit: its memory must stay as it is until the batch is sent
     * @param target where to; copied
     * @return whether it was taken: false when the batch is full
     */
    public boolean add(NativeBuffer datagram, PeerAddress target) {
        if (this.size == this.targets.length) {
            return false;
        }
        ByteBuffer bytes = datagram.buffer();
        take(datagram.address() + bytes.position(), bytes.remaining(), target);
        this.segmentSizes[this.size - 1] = 0;
        bytes.position(bytes.limit());
        return true;
    }

    private void take(long base, int length, PeerAddress target) {
        int index = this.size++;
        this.bases[index] = base;
        this.lengths[index] = length;
        this.targets[index].copyFrom(target);
    }

    /** @param index below {@link #size()} @return the datagram's length */
    public int length(int index) {
        return this.lengths[index];
    }

    /** @param index below {@link #size()} @return the size of the segments it leaves as, 0 for one datagram */
    public int segmentSize(int index) {
        return this.segmentSizes[index];
    }

    /** @param index below {@link #size()} @return its target */
    public PeerAddress target(int index) {
        return this.targets[index];
    }

    /** Forgets the datagrams gathered, sent or not, for the next batch. */
    public void clear() {
        this.size = 0;
        this.copied = 0;
    }

    long base(int index) {
        return this.bases[index];
    }

    NativeBuffer address(int index) {
        return this.addresses[index];
    }

    byte[] scratch() {
        return this.scratch;
    }

    @Nullable NativeBuffer vector() {
        return this.vector;
    }

    void vector(NativeBuffer vector) {
        this.vector = vector;
    }
}
