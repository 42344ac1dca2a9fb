package dev.sockstate.port;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jspecify.annotations.Nullable;

/**
 * What the backends' sockets share: native memory for addresses, option values and copies of heap
 * buffers, lent to one call at a time ({@link #scratch()}), and the calls on plain {@link ByteBuffer}s,
 * which go through that memory (heap buffers) or through the buffer's own address (direct ones). The
 * memory follows the calls in flight at once, not the threads that make them, so a thread per call
 * (a virtual-thread executor) allocates none.
 */
public abstract class AbstractNativeSockets implements NativeSockets {

    /** Scratches kept: more socket calls than this at one instant each make their own. */
    private static final int SCRATCHES_KEPT = 64;

    /** The most of a heap buffer one call copies, so that a scratch never holds more than this. */
    private static final int COPY_BYTES = 64 * 1024;

    private final LendingPool<Scratch> scratches = new LendingPool<>(() -> new Scratch(this, true), SCRATCHES_KEPT);

    /**
     * @param direct a direct buffer
     * @return its native address
     */
    protected abstract long addressOf(ByteBuffer direct);

    /**
     * Lends native memory to one call: use it in a {@code try}-with-resources block, which gives it
     * back; it allocates nothing unless more calls than the scratches kept are in flight at once.
     * @return native memory for the calling thread until closed
     */
    protected final Scratch scratch() {
        Scratch lent = this.scratches.borrow();
        return (lent != null) ? lent : new Scratch(this, false);
    }

    /**
     * For a backend with a call that receives many datagrams: a batch with room for all it is asked.
     * @param capacity the datagrams
     * @param datagramSize the room for each
     * @return the batch
     */
    protected final DatagramBatch fullDatagramBatch(int capacity, int datagramSize) {
        return new DatagramBatch(this, capacity, datagramSize);
    }

    /**
     * For a backend with a call that sends many datagrams: a send batch.
     * @param capacity the datagrams
     * @return the batch, with room for 64 KiB of copies
     */
    protected final OutgoingDatagrams fullOutgoingDatagrams(int capacity) {
        return new OutgoingDatagrams(this, capacity, 64 * 1024);
    }

    /** @param batch a send batch @param index a datagram's index @return the native address of its first byte */
    protected static long datagramBase(OutgoingDatagrams batch, int index) {
        return batch.base(index);
    }

    /** @param batch a send batch @param index a datagram's index @return native memory for its encoded target */
    protected static NativeBuffer targetMemory(OutgoingDatagrams batch, int index) {
        return batch.address(index);
    }

    /** @param batch a send batch @return the backend's native description of it, {@code null} before it made one */
    protected static @Nullable NativeBuffer vector(OutgoingDatagrams batch) {
        return batch.vector();
    }

    /** @param batch a send batch @param vector the backend's native description of it */
    protected static void vector(OutgoingDatagrams batch, NativeBuffer vector) {
        batch.vector(vector);
    }

    /** @param batch a batch @param index a datagram's index @return the native memory its datagram is received into */
    protected static NativeBuffer datagramSlot(DatagramBatch batch, int index) {
        return batch.nativeDatagram(index);
    }

    /**
     * @param batch a batch
     * @param index a datagram's index
     * @return native memory for its sender's address ({@link SocketAddressLayout#STORAGE_SIZE} bytes, then its length)
     */
    protected static NativeBuffer senderMemory(DatagramBatch batch, int index) {
        return batch.address(index);
    }

    /**
     * Receives one datagram into a batch with {@link #receiveFrom}, as {@link NativeSockets#receiveBatch} does by default.
     * @param socket a UDP handle (or a Unix datagram one)
     * @param batch the batch
     * @return 1, or {@link #WOULD_BLOCK}
     * @throws NativeIoException on failure
     */
    protected final int receiveAlone(long socket, DatagramBatch batch) throws NativeIoException {
        return batch.receiveAlone(this, socket);
    }

    /** @param batch a batch @param index a datagram's index @param length how long it is, within its room */
    protected static void received(DatagramBatch batch, int index, int length) {
        batch.received(index, length);
    }

    /**
     * @param batch a batch
     * @param index a datagram's index, received
     * @param size the size of the segments the system coalesced it from
     */
    protected static void segmentSize(DatagramBatch batch, int index, int size) {
        batch.segmentSize(index, size);
    }

    /** @param batch a batch @param count how many datagrams the call received, from index 0 */
    protected static void filled(DatagramBatch batch, int count) {
        batch.filled(count);
    }

    /** @param batch a batch @param total the receive-queue overflows the system reported, since the socket opened */
    protected static void overflows(DatagramBatch batch, long total) {
        batch.overflows(total);
    }

    /** @param batch a batch @return the backend's native description of it, made on its first receive; {@code null} before */
    protected static @Nullable NativeBuffer vector(DatagramBatch batch) {
        return batch.vector();
    }

    /** @param batch a batch @param vector the backend's native description of it, kept for its next receive */
    protected static void vector(DatagramBatch batch, NativeBuffer vector) {
        batch.vector(vector);
    }

    @Override
    public final NativeBuffer allocate(int capacity) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        return new NativeBuffer(buffer, addressOf(buffer));
    }

    @Override
    public final int recv(long socket, ByteBuffer buffer) throws NativeIoException {
        try (Scratch local = scratch()) {
            if (buffer.isDirect()) {
                return recv(socket, local.direct(buffer));
            }
            NativeBuffer copy = local.data(Math.min(buffer.remaining(), COPY_BYTES));
            int read = recv(socket, copy);
            if (read > 0) {
                copy.buffer().flip();
                buffer.put(copy.buffer());
            }
            return read;
        }
    }

    @Override
    public final int send(long socket, ByteBuffer buffer) throws NativeIoException {
        try (Scratch local = scratch()) {
            if (buffer.isDirect()) {
                return send(socket, local.direct(buffer));
            }
            // A heap buffer goes out through a copy, at most COPY_BYTES at a time, while the socket takes it all.
            int total = 0;
            do {
                int chunk = Math.min(buffer.remaining(), COPY_BYTES);
                NativeBuffer copy = local.data(chunk);
                copy.buffer().put(buffer.duplicate().limit(buffer.position() + chunk)).flip();
                int sent = send(socket, copy);
                if (sent <= 0) {
                    return (total > 0) ? total : sent;
                }
                buffer.position(buffer.position() + sent);
                total += sent;
                if (sent < chunk) {
                    break;
                }
            }
            while (buffer.hasRemaining());
            return total;
        }
    }

    @Override
    public final int sendTo(long socket, ByteBuffer datagram, PeerAddress target) throws NativeIoException {
        if (datagram.remaining() > COPY_BYTES) {
            throw new IllegalArgumentException("A datagram of " + datagram.remaining() + " bytes exceeds the " + COPY_BYTES
                    + " bytes UDP carries");
        }
        try (Scratch local = scratch()) {
            if (datagram.isDirect()) {
                return sendTo(socket, local.direct(datagram), target);
            }
            NativeBuffer copy = local.data(datagram.remaining());
            copy.buffer().put(datagram.duplicate()).flip();
            int sent = sendTo(socket, copy, target);
            if (sent >= 0) {
                datagram.position(datagram.limit());
            }
            return sent;
        }
    }

    /** Native memory lent to one call; closing it gives it back. */
    protected static final class Scratch implements AutoCloseable {

        private final NativeBuffer address;

        private final NativeBuffer option;

        private final byte[] bytes = new byte[SocketAddressLayout.UNIX_PATH_MAX];

        private final AbstractNativeSockets sockets;

        private @Nullable NativeBuffer data;

        /** Weak, so that a buffer its owner dropped is not kept alive by a thread that once wrote it. */
        private WeakReference<NativeBuffer> lastDirect = new WeakReference<>(null);

        /** Whether it came from the sockets' pool, to go back there. */
        private final boolean kept;

        Scratch(AbstractNativeSockets sockets, boolean kept) {
            this.sockets = sockets;
            this.kept = kept;
            this.address = sockets.allocate(SocketAddressLayout.STORAGE_SIZE + 8);
            this.option = sockets.allocate(16);
        }

        /** Gives it back, for the next call. */
        @Override
        public void close() {
            if (this.kept) {
                this.sockets.scratches.giveBack(this);
            }
        }

        /** @return room for a socket address and its length */
        public NativeBuffer address() {
            return this.address;
        }

        /** @return room for an option value (up to 12 bytes) and its length */
        public NativeBuffer option() {
            return this.option;
        }

        /** @return room to copy an address through: an IP address, or a Unix socket's path */
        public byte[] bytes() {
            return this.bytes;
        }

        /**
         * Readies {@link #address()} for a call that fills in an address and its length
         * ({@code recvfrom}, {@code getsockname}): the length in is the room.
         * @return the native address of the length, to pass beside {@code address.address()}
         */
        public long addressToFill() {
            this.address.buffer().putInt(SocketAddressLayout.LENGTH_OFFSET, SocketAddressLayout.STORAGE_SIZE);
            return this.address.address() + SocketAddressLayout.LENGTH_OFFSET;
        }

        /**
         * The native view of a direct buffer; the last one is kept, so that writing the same buffer
         * again (a worker's read buffer echoed back, say) finds its address without a native call.
         * @param buffer a direct buffer
         * @return it with its address
         */
        public NativeBuffer direct(ByteBuffer buffer) {
            NativeBuffer last = this.lastDirect.get();
            if (last == null || last.buffer() != buffer) {
                last = new NativeBuffer(buffer, this.sockets.addressOf(buffer));
                this.lastDirect = new WeakReference<>(last);
            }
            return last;
        }

        /**
         * @param size bytes needed, at most 64 KiB
         * @return a buffer of at least that size, its limit set to it
         */
        public NativeBuffer data(int size) {
            if (this.data == null || this.data.capacity() < size) {
                this.data = this.sockets.allocate(Math.max(size, 16 * 1024));
            }
            this.data.buffer().clear().limit(size);
            return this.data;
        }
    }
}
