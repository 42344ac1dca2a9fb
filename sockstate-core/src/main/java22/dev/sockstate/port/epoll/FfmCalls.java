package dev.sockstate.port.epoll;

import dev.sockstate.port.BackendUnavailableException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The libc functions the epoll backend calls, bound with the foreign function API of Java 22: one
 * downcall handle a function, made with the binding and invoked exactly from a plain field
 * (see there why not from a constant), pointers and {@code size_t} passed as {@code long} (64-bit Linux
 * only), so a call allocates nothing, however deep it is made. Each handle
 * captures errno into a segment of the calling platform thread's own, made on its first call and freed
 * with the thread (a virtual thread borrows one for each call instead, see {@code Lent}); {@link #errno()}
 * reads it back. No handle is {@code critical}: measured on a failing
 * {@code recv}, that saved nothing a system call would show, and it holds off the garbage collector.
 * Compiled by a JDK 22 or later only, and loaded by name ({@link BindingChoice}): making it throws
 * {@link IllegalCallerException} where native access is denied.
 */
final class FfmCalls implements EpollCalls {

    private static final Linker LINKER = Linker.nativeLinker();

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    /** The layout of what a handle captures, errno among it. */
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();

    private static final long ERRNO_OFFSET = CALL_STATE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    /** The calling thread's captured state: allocated once per thread, freed once the thread is gone. */
    private static final ThreadLocal<MemorySegment> STATE = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CALL_STATE));

    /** {@code strerror}, whose result is a C string: errno is not captured. */
    private static final MethodHandle STRERROR = LINKER.downcallHandle(function("strerror"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, INT));

    // The handles each call invokes are this object's plain fields, read afresh, never constants: C2 then
    // compiles the JDK's own frames of a downcall (the capture segment's slice among them) as a unit of
    // their own, where escape analysis removes the slice. Invoked from a static final, they were inlined
    // into the caller, and where the call was deep (a send 12 calls below the compiled root, as a framed
    // read's replies go out) C2 stopped inlining at MaxInlineLevel and the slice, 40 bytes, was allocated
    // on every call. A final field could be trusted as a constant by a later JDK: these are not final.
    private MethodHandle epoll_create1 = downcall("epoll_create1", INT, INT);

    private MethodHandle epoll_ctl = downcall("epoll_ctl", INT, INT, INT, INT, LONG);

    private MethodHandle epoll_wait = downcall("epoll_wait", INT, INT, LONG, INT, INT);

    private MethodHandle eventfd = downcall("eventfd", INT, INT, INT);

    private MethodHandle read = downcall("read", LONG, INT, LONG, LONG);

    private MethodHandle write = downcall("write", LONG, INT, LONG, LONG);

    private MethodHandle close = downcall("close", INT, INT);

    private MethodHandle socket = downcall("socket", INT, INT, INT, INT);

    private MethodHandle bind = downcall("bind", INT, INT, LONG, INT);

    private MethodHandle listen = downcall("listen", INT, INT, INT);

    private MethodHandle accept4 = downcall("accept4", INT, INT, LONG, LONG, INT);

    private MethodHandle connect = downcall("connect", INT, INT, LONG, INT);

    private MethodHandle recv = downcall("recv", LONG, INT, LONG, LONG, INT);

    private MethodHandle send = downcall("send", LONG, INT, LONG, LONG, INT);

    private MethodHandle recvfrom = downcall("recvfrom", LONG, INT, LONG, LONG, INT, LONG, LONG);

    private MethodHandle sendto = downcall("sendto", LONG, INT, LONG, LONG, INT, LONG, INT);

    private MethodHandle recvmmsg = downcall("recvmmsg", INT, INT, LONG, INT, INT, LONG);

    private MethodHandle sendmmsg = downcall("sendmmsg", INT, INT, LONG, INT, INT);

    private MethodHandle setsockopt = downcall("setsockopt", INT, INT, INT, INT, LONG, INT);

    private MethodHandle getsockopt = downcall("getsockopt", INT, INT, INT, INT, LONG, LONG);

    private MethodHandle shutdown = downcall("shutdown", INT, INT, INT);

    private MethodHandle getsockname = downcall("getsockname", INT, INT, LONG, LONG);

    private MethodHandle getpeername = downcall("getpeername", INT, INT, LONG, LONG);

    /** @throws BackendUnavailableException on a JVM whose pointers or C {@code long}s are not 64-bit */
    FfmCalls() {
        long cLong = LINKER.canonicalLayouts().get("long").byteSize();
        if (ValueLayout.ADDRESS.byteSize() != 8 || cLong != 8) {
            throw new BackendUnavailableException(EpollBackend.NAME, "epoll needs a 64-bit JVM, this one has "
                    + (ValueLayout.ADDRESS.byteSize() * 8) + "-bit pointers and " + (cLong * 8) + "-bit longs", null);
        }
    }

    /** @return a handle on the libc function capturing errno, its result and parameters as given */
    private static MethodHandle downcall(String name, ValueLayout result, ValueLayout... parameters) {
        return LINKER.downcallHandle(function(name), FunctionDescriptor.of(result, parameters),
                Linker.Option.captureCallState("errno"));
    }

    /** @return the address of the libc function @throws UnsatisfiedLinkError when the C library has none */
    private static MemorySegment function(String name) {
        return LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError("The C library has no " + name));
    }

    /** @return the calling thread's captured state, which each call is given */
    private static MemorySegment state() {
        return STATE.get();
    }

    /** @return what a downcall threw (a native call throws nothing but the JVM's own errors), unchecked */
    private static RuntimeException rethrow(Throwable failure) {
        if (failure instanceof RuntimeException unchecked) {
            return unchecked;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("A native call failed unexpectedly", failure);
    }

    @Override
    public String binding() {
        return "FFM binding (Java " + Runtime.version().feature() + ")";
    }

    @Override
    public int errno() {
        return Thread.currentThread().isVirtual() ? Lent.errno() : state().get(INT, ERRNO_OFFSET);
    }

    /**
     * The captured state of calls made on virtual threads: a virtual thread is often made for one task (a
     * virtual-thread handler executor makes one per handler call), so a segment of its own, as a
     * platform thread keeps, would be native memory made and freed for each. A call on a virtual thread
     * borrows a segment from a few kept here instead, and gives it back once its errno, when it failed,
     * was copied to the thread's heap (read back by {@link #errno()}).
     */
    private static final class Lent {

        private static final int SPARE_SEGMENTS = 64;

        /** Segments free to borrow; a slot holds one or {@code null}. */
        private static final AtomicReferenceArray<@Nullable MemorySegment> SPARE = new AtomicReferenceArray<>(SPARE_SEGMENTS);

        /** The errno of the calling virtual thread's last failed call. */
        private static final ThreadLocal<int[]> ERRNO = ThreadLocal.withInitial(() -> new int[1]);

        private Lent() {
        }

        /** @return a segment for one call: a spare one, or, when more calls are under way than segments are spare, a new one */
        static MemorySegment take() {
            int start = (int) Thread.currentThread().threadId();
            for (int i = 0; i < SPARE_SEGMENTS; i++) {
                MemorySegment spare = SPARE.getAndSet((start + i) & (SPARE_SEGMENTS - 1), null);
                if (spare != null) {
                    return spare;
                }
            }
            // Freed once unreachable: when no slot takes it back, it is let go.
            return Arena.ofAuto().allocate(CALL_STATE);
        }

        /** @param state the segment of a call that ended: kept for the next call, if a slot is free */
        static void giveBack(MemorySegment state) {
            int start = (int) Thread.currentThread().threadId();
            for (int i = 0; i < SPARE_SEGMENTS; i++) {
                if (SPARE.compareAndSet((start + i) & (SPARE_SEGMENTS - 1), null, state)) {
                    return;
                }
            }
        }

        /** @return the result, its call's errno kept for {@link #errno()} when it failed */
        static int kept(int result, MemorySegment state) {
            if (result == -1) {
                ERRNO.get()[0] = state.get(INT, ERRNO_OFFSET);
            }
            return result;
        }

        /** @return the result, its call's errno kept for {@link #errno()} when it failed */
        static long kept(long result, MemorySegment state) {
            if (result == -1) {
                ERRNO.get()[0] = state.get(INT, ERRNO_OFFSET);
            }
            return result;
        }

        static int errno() {
            return ERRNO.get()[0];
        }
    }

    @Override
    public int epoll_create1(int flags) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.epoll_create1.invokeExact(state(), flags);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.epoll_create1.invokeExact(lent, flags), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int epoll_ctl(int epfd, int op, int fd, long event) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.epoll_ctl.invokeExact(state(), epfd, op, fd, event);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.epoll_ctl.invokeExact(lent, epfd, op, fd, event), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int epoll_wait(int epfd, long events, int maxEvents, int timeout) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.epoll_wait.invokeExact(state(), epfd, events, maxEvents, timeout);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.epoll_wait.invokeExact(lent, epfd, events, maxEvents, timeout), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int eventfd(int initval, int flags) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.eventfd.invokeExact(state(), initval, flags);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.eventfd.invokeExact(lent, initval, flags), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long read(int fd, long buf, long count) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (long) this.read.invokeExact(state(), fd, buf, count);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((long) this.read.invokeExact(lent, fd, buf, count), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long write(int fd, long buf, long count) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (long) this.write.invokeExact(state(), fd, buf, count);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((long) this.write.invokeExact(lent, fd, buf, count), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int close(int fd) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.close.invokeExact(state(), fd);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.close.invokeExact(lent, fd), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int socket(int domain, int type, int protocol) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.socket.invokeExact(state(), domain, type, protocol);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.socket.invokeExact(lent, domain, type, protocol), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int bind(int fd, long addr, int addrlen) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.bind.invokeExact(state(), fd, addr, addrlen);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.bind.invokeExact(lent, fd, addr, addrlen), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int listen(int fd, int backlog) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.listen.invokeExact(state(), fd, backlog);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.listen.invokeExact(lent, fd, backlog), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int accept4(int fd, long addr, long addrlen, int flags) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.accept4.invokeExact(state(), fd, addr, addrlen, flags);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.accept4.invokeExact(lent, fd, addr, addrlen, flags), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int connect(int fd, long addr, int addrlen) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.connect.invokeExact(state(), fd, addr, addrlen);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.connect.invokeExact(lent, fd, addr, addrlen), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long recv(int fd, long buf, long len, int flags) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (long) this.recv.invokeExact(state(), fd, buf, len, flags);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((long) this.recv.invokeExact(lent, fd, buf, len, flags), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long send(int fd, long buf, long len, int flags) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (long) this.send.invokeExact(state(), fd, buf, len, flags);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((long) this.send.invokeExact(lent, fd, buf, len, flags), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long recvfrom(int fd, long buf, long len, int flags, long addr, long addrlen) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (long) this.recvfrom.invokeExact(state(), fd, buf, len, flags, addr, addrlen);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((long) this.recvfrom.invokeExact(lent, fd, buf, len, flags, addr, addrlen), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long sendto(int fd, long buf, long len, int flags, long addr, int addrlen) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (long) this.sendto.invokeExact(state(), fd, buf, len, flags, addr, addrlen);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((long) this.sendto.invokeExact(lent, fd, buf, len, flags, addr, addrlen), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int recvmmsg(int fd, long msgvec, int vlen, int flags, long timeout) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.recvmmsg.invokeExact(state(), fd, msgvec, vlen, flags, timeout);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.recvmmsg.invokeExact(lent, fd, msgvec, vlen, flags, timeout), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int sendmmsg(int fd, long msgvec, int vlen, int flags) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.sendmmsg.invokeExact(state(), fd, msgvec, vlen, flags);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.sendmmsg.invokeExact(lent, fd, msgvec, vlen, flags), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int setsockopt(int fd, int level, int name, long value, int len) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.setsockopt.invokeExact(state(), fd, level, name, value, len);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.setsockopt.invokeExact(lent, fd, level, name, value, len), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int getsockopt(int fd, int level, int name, long value, long len) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.getsockopt.invokeExact(state(), fd, level, name, value, len);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.getsockopt.invokeExact(lent, fd, level, name, value, len), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int shutdown(int fd, int how) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.shutdown.invokeExact(state(), fd, how);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.shutdown.invokeExact(lent, fd, how), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int getsockname(int fd, long addr, long addrlen) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.getsockname.invokeExact(state(), fd, addr, addrlen);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.getsockname.invokeExact(lent, fd, addr, addrlen), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int getpeername(int fd, long addr, long addrlen) {
        try {
            if (!Thread.currentThread().isVirtual()) {
                return (int) this.getpeername.invokeExact(state(), fd, addr, addrlen);
            }
            MemorySegment lent = Lent.take();
            try {
                return Lent.kept((int) this.getpeername.invokeExact(lent, fd, addr, addrlen), lent);
            }
            finally {
                Lent.giveBack(lent);
            }
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    /** Reads the C string {@code strerror} returns (the C library's own, never freed): not for hot paths. */
    @Override
    public String strerror(int errnum) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errnum);
            return text.reinterpret(Long.MAX_VALUE).getString(0);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    /**
     * The address of the buffer's index 0, as JNA's {@code Native.getDirectBufferPointer} tells it (a
     * segment over a buffer starts at its position). Allocates a segment: not for hot paths.
     */
    @Override
    public long addressOf(ByteBuffer direct) {
        return MemorySegment.ofBuffer(direct).address() - direct.position();
    }
}
