package dev.sockstate.port;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What the backends' sockets share: per-thread native memory for addresses, option values and
 * copies of heap buffers, and the calls on plain {@link ByteBuffer}s, which go through that memory
 * (heap buffers) or through the buffer's own address (direct ones). A thread's native memory passes
 * to a later thread once its thread ended, so a thread per call (a virtual-thread executor) makes
 * none.
 */
public abstract class AbstractNativeSockets implements NativeSockets {

    /** Scratches kept for threads to come once their thread ended, so a thread per call makes none. */
    private static final int SCRATCHES_KEPT = 64;

    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(this::claimScratch);

    private final Scratch[] scratches = new Scratch[SCRATCHES_KEPT];

    private int scratchCount;

    /**
     * @param direct a direct buffer
     * @return its native address
     */
    protected abstract long addressOf(ByteBuffer direct);

    /** @return this thread's native memory for the calls of this class */
    protected final Scratch scratch() {
        return this.scratch.get();
    }

    /** @return the scratch of a thread that ended, or a new one, for the calling thread */
    private synchronized Scratch claimScratch() {
        Thread thread = Thread.currentThread();
        for (int i = 0; i < this.scratchCount; i++) {
            if (this.scratches[i].claim(thread)) {
                return this.scratches[i];
            }
        }
        Scratch made = new Scratch(this, thread);
        if (this.scratchCount < this.scratches.length) {
            this.scratches[this.scratchCount++] = made;
        }
        return made;
    }

    @Override
    public final NativeBuffer allocate(int capacity) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        return new NativeBuffer(buffer, addressOf(buffer));
    }

    @Override
    public final int recv(long socket, ByteBuffer buffer) throws NativeIoException {
        if (buffer.isDirect()) {
            return recv(socket, scratch().direct(buffer));
        }
        NativeBuffer copy = scratch().data(buffer.remaining());
        int read = recv(socket, copy);
        if (read > 0) {
            copy.buffer().flip();
            buffer.put(copy.buffer());
        }
        return read;
    }

    @Override
    public final int send(long socket, ByteBuffer buffer) throws NativeIoException {
        if (buffer.isDirect()) {
            return send(socket, scratch().direct(buffer));
        }
        NativeBuffer copy = scratch().data(buffer.remaining());
        copy.buffer().put(buffer.duplicate()).flip();
        int sent = send(socket, copy);
        if (sent > 0) {
            buffer.position(buffer.position() + sent);
        }
        return sent;
    }

    /** Native memory one thread reuses. */
    protected static final class Scratch {

        private final NativeBuffer address;

        private final NativeBuffer option;

        private final byte[] bytes = new byte[16];

        private final AbstractNativeSockets sockets;

        /** Room for heap-buffer copies a scratch keeps when it passes to another thread. */
        private static final int KEPT_DATA_BYTES = 64 * 1024;

        private NativeBuffer data;

        /** Weak, so that a buffer its owner dropped is not kept alive by a thread that once wrote it. */
        private WeakReference<NativeBuffer> lastDirect = new WeakReference<>(null);

        /** The thread using it; written and read under the sockets' lock. */
        private WeakReference<Thread> owner;

        Scratch(AbstractNativeSockets sockets, Thread owner) {
            this.sockets = sockets;
            this.owner = new WeakReference<>(owner);
            this.address = sockets.allocate(SocketAddressLayout.STORAGE_SIZE + 8);
            this.option = sockets.allocate(8);
        }

        /** Takes the scratch over for a thread if its thread ended. */
        boolean claim(Thread thread) {
            Thread current = this.owner.get();
            if (current != null && current.isAlive()) {
                return false;
            }
            this.owner = new WeakReference<>(thread);
            this.lastDirect = new WeakReference<>(null);
            if (this.data != null && this.data.capacity() > KEPT_DATA_BYTES) {
                // Grown for one thread's large heap write: not kept for every thread to come.
                this.data = null;
            }
            return true;
        }

        /** @return room for a socket address and its length */
        public NativeBuffer address() {
            return this.address;
        }

        /** @return room for an option value and its length */
        public NativeBuffer option() {
            return this.option;
        }

        /** @return 16 bytes to copy an address through */
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
         * @param size bytes needed
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
