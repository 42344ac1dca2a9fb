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

/**
 * The libc functions the epoll backend calls, bound with the foreign function API of Java 22: one
 * downcall handle a function, made with the binding and invoked exactly from a plain field
 * (see there why not from a constant), pointers and {@code size_t} passed as {@code long} (64-bit Linux
 * only), so a call allocates nothing, however deep it is made. Each handle
 * captures errno into a segment of the calling thread's own, made on its first call and freed with
 * the thread; {@link #errno()} reads it back. No handle is {@code critical}: measured on a failing
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
        return state().get(INT, ERRNO_OFFSET);
    }

    @Override
    public int epoll_create1(int flags) {
        try {
            return (int) this.epoll_create1.invokeExact(state(), flags);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int epoll_ctl(int epfd, int op, int fd, long event) {
        try {
            return (int) this.epoll_ctl.invokeExact(state(), epfd, op, fd, event);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int epoll_wait(int epfd, long events, int maxEvents, int timeout) {
        try {
            return (int) this.epoll_wait.invokeExact(state(), epfd, events, maxEvents, timeout);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int eventfd(int initval, int flags) {
        try {
            return (int) this.eventfd.invokeExact(state(), initval, flags);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long read(int fd, long buf, long count) {
        try {
            return (long) this.read.invokeExact(state(), fd, buf, count);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long write(int fd, long buf, long count) {
        try {
            return (long) this.write.invokeExact(state(), fd, buf, count);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int close(int fd) {
        try {
            return (int) this.close.invokeExact(state(), fd);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int socket(int domain, int type, int protocol) {
        try {
            return (int) this.socket.invokeExact(state(), domain, type, protocol);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int bind(int fd, long addr, int addrlen) {
        try {
            return (int) this.bind.invokeExact(state(), fd, addr, addrlen);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int listen(int fd, int backlog) {
        try {
            return (int) this.listen.invokeExact(state(), fd, backlog);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int accept4(int fd, long addr, long addrlen, int flags) {
        try {
            return (int) this.accept4.invokeExact(state(), fd, addr, addrlen, flags);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int connect(int fd, long addr, int addrlen) {
        try {
            return (int) this.connect.invokeExact(state(), fd, addr, addrlen);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long recv(int fd, long buf, long len, int flags) {
        try {
            return (long) this.recv.invokeExact(state(), fd, buf, len, flags);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long send(int fd, long buf, long len, int flags) {
        try {
            return (long) this.send.invokeExact(state(), fd, buf, len, flags);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long recvfrom(int fd, long buf, long len, int flags, long addr, long addrlen) {
        try {
            return (long) this.recvfrom.invokeExact(state(), fd, buf, len, flags, addr, addrlen);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public long sendto(int fd, long buf, long len, int flags, long addr, int addrlen) {
        try {
            return (long) this.sendto.invokeExact(state(), fd, buf, len, flags, addr, addrlen);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int setsockopt(int fd, int level, int name, long value, int len) {
        try {
            return (int) this.setsockopt.invokeExact(state(), fd, level, name, value, len);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int getsockopt(int fd, int level, int name, long value, long len) {
        try {
            return (int) this.getsockopt.invokeExact(state(), fd, level, name, value, len);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int shutdown(int fd, int how) {
        try {
            return (int) this.shutdown.invokeExact(state(), fd, how);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int getsockname(int fd, long addr, long addrlen) {
        try {
            return (int) this.getsockname.invokeExact(state(), fd, addr, addrlen);
        }
        catch (Throwable ex) {
            throw rethrow(ex);
        }
    }

    @Override
    public int getpeername(int fd, long addr, long addrlen) {
        try {
            return (int) this.getpeername.invokeExact(state(), fd, addr, addrlen);
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
