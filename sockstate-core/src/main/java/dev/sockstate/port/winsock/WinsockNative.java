package dev.sockstate.port.winsock;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import org.jspecify.annotations.Nullable;

/**
 * The ws2_32 and kernel32 functions the winsock backend calls, bound with JNA direct mapping
 * ({@code Native.register}) so that a call costs a JNI transition and nothing more: handles
 * ({@code SOCKET}, {@code HANDLE}) and pointers are passed as {@code long} addresses, which is the
 * x64 ABI. The backend refuses 32-bit JVMs (see {@link WinsockBackend}); x86 is described by
 * {@link NotificationLayout} and its tests only. x64 Windows has a single calling convention, so no
 * stdcall option is needed.
 * <p>
 * The library names come from system properties so that tests can bind an emulator:
 * {@value WinsockBackend#LIBRARY_PROPERTY} (default {@code ws2_32}) and
 * {@value WinsockBackend#KERNEL32_PROPERTY} (default {@code kernel32}, or the first property's value
 * when only that is set: an emulator exports every function). The error of a failed call is read
 * through the binding ({@link Binding#lastError()}). The bound methods are private: the backend calls
 * them through a {@link Binding}, the {@link WinsockCalls} it is given, and reads only the constants
 * and library names here. This is the only class of the backend that touches JNA's native binding;
 * its parts bind separately: the socket calls here, the completion port calls in
 * {@link Kernel32}, {@code ProcessSocketNotifications} in {@link Notifications}, bound only when
 * first used since Windows before build 20348 does not have it, and the functions Winsock hands out
 * by address in {@link ByAddress}.
 */
final class WinsockNative {

    /** {@code AF_UNIX}: Unix domain stream sockets (afunix.h), Windows 10 build 17063 and later. */
    static final int AF_UNIX = 1;
    static final int AF_INET = 2;
    static final int AF_INET6 = 23;
    static final int SOCK_STREAM = 1;
    static final int SOCK_DGRAM = 2;
    static final int IPPROTO_TCP = 6;
    static final int IPPROTO_UDP = 17;
    static final int IPPROTO_IPV6 = 41;
    static final int WSA_FLAG_OVERLAPPED = 0x01;
    static final int WSA_FLAG_NO_HANDLE_INHERIT = 0x80;

    static final long INVALID_SOCKET = -1L;
    static final int SOCKET_ERROR = -1;
    static final long INVALID_HANDLE_VALUE = -1L;

    static final int SOL_SOCKET = 0xffff;
    static final int SO_REUSEADDR = 0x0004;

    /**
     * {@code SO_EXCLUSIVEADDRUSE}, {@code ((int) (~SO_REUSEADDR))} in winsock2.h: no other socket may
     * bind the address and port, not even one with {@code SO_REUSEADDR}; set before {@code bind}.
     */
    static final int SO_EXCLUSIVEADDRUSE = ~SO_REUSEADDR;

    static final int SO_KEEPALIVE = 0x0008;

    /** {@code SO_LINGER}: a {@code struct linger} of two {@code u_short}s, on or off, then the seconds. */
    static final int SO_LINGER = 0x0080;
    static final int SO_SNDBUF = 0x1001;
    static final int SO_RCVBUF = 0x1002;
    static final int SO_ERROR = 0x1007;
    static final int TCP_NODELAY = 1;

    /** {@code TCP_KEEPIDLE} (ws2ipdef.h, the same as its {@code TCP_KEEPALIVE}): seconds, Windows 10 1709 and later. */
    static final int TCP_KEEPIDLE = 3;

    /** {@code TCP_KEEPCNT} (ws2ipdef.h): Windows 10 1703 and later. */
    static final int TCP_KEEPCNT = 16;

    /** {@code TCP_KEEPINTVL} (ws2ipdef.h): seconds, Windows 10 1709 and later. */
    static final int TCP_KEEPINTVL = 17;
    static final int IPV6_V6ONLY = 27;

    /** {@code FIONBIO}: switch non-blocking mode on or off; the argument is a {@code u_long}. */
    static final int FIONBIO = 0x8004667E;

    /** {@code SIO_UDP_CONNRESET}: whether an ICMP port-unreachable fails the next {@code recvfrom}. */
    static final int SIO_UDP_CONNRESET = 0x9800000C;

    /** {@code SIO_GET_EXTENSION_FUNCTION_POINTER}: the address of a function Winsock does not export, named by its GUID. */
    static final int SIO_GET_EXTENSION_FUNCTION_POINTER = 0xC8000006;

    /**
     * {@code UDP_SEND_MSG_SIZE} (ws2ipdef.h), at {@code IPPROTO_UDP}: a {@code DWORD} segment size that cuts a
     * datagram sent into datagrams of that size, set on a socket or given with one {@code WSASendMsg} as a
     * control message of this type. Windows 10 2004 (build 19041) and later.
     */
    static final int UDP_SEND_MSG_SIZE = 2;

    /**
     * {@code UDP_RECV_MAX_COALESCED_SIZE} (ws2ipdef.h), at {@code IPPROTO_UDP}: a {@code DWORD}, the most bytes
     * of one sender's datagrams the system may hand over as one message; 0 (the default) for none.
     */
    static final int UDP_RECV_MAX_COALESCED_SIZE = 3;

    /** {@code UDP_COALESCED_INFO} (ws2ipdef.h): the control message, at {@code IPPROTO_UDP}, of a coalesced message's segment size. */
    static final int UDP_COALESCED_INFO = 3;

    /** {@code MSG_TRUNC}, in a {@code WSAMSG}'s flags on return: the datagram was longer than the buffers. */
    static final int MSG_TRUNC = 0x0100;

    static final int SD_RECEIVE = 0;
    static final int SD_SEND = 1;
    static final int SD_BOTH = 2;

    /** Winsock 2.2, the version {@code WSAStartup} asks for. */
    static final short WINSOCK_VERSION = 0x0202;

    /** Room for a {@code WSADATA} (408 bytes on x64). */
    static final int WSADATA_SIZE = 512;

    /** {@code INFINITE}: wait until something arrives. */
    static final int INFINITE = -1;

    static {
        Native.register(WinsockNative.class, NativeLibrary.getInstance(socketLibraryName()));
    }

    private WinsockNative() {
    }

    /** @return the library holding the socket calls and {@code ProcessSocketNotifications} */
    static String socketLibraryName() {
        String configured = System.getProperty(WinsockBackend.LIBRARY_PROPERTY);
        return (configured == null || configured.isBlank()) ? "ws2_32" : configured;
    }

    /** @return the library holding the completion port calls */
    static String kernelLibraryName() {
        String configured = System.getProperty(WinsockBackend.KERNEL32_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        String emulator = System.getProperty(WinsockBackend.LIBRARY_PROPERTY);
        return (emulator == null || emulator.isBlank()) ? "kernel32" : emulator;
    }

    private static native int WSAStartup(short version, long data);

    private static native int WSAGetLastError();

    private static native long WSASocketW(int family, int type, int protocol, long protocolInfo, int group, int flags);

    private static native int WSAIoctl(long socket, int code, long in, int inLength, long out, int outLength,
            long bytesReturned, long overlapped, long completionRoutine);

    private static native int ioctlsocket(long socket, int command, long argument);

    private static native int bind(long socket, long name, int nameLength);

    private static native int listen(long socket, int backlog);

    private static native long accept(long socket, long address, long addressLength);

    private static native int connect(long socket, long name, int nameLength);

    private static native int recv(long socket, long buffer, int length, int flags);

    private static native int send(long socket, long buffer, int length, int flags);

    private static native int recvfrom(long socket, long buffer, int length, int flags, long from, long fromLength);

    private static native int sendto(long socket, long buffer, int length, int flags, long to, int toLength);

    private static native int WSASendMsg(long socket, long message, int flags, long bytesSent, long overlapped, long completionRoutine);

    private static native int setsockopt(long socket, int level, int name, long value, int length);

    private static native int getsockopt(long socket, int level, int name, long value, long length);

    private static native int shutdown(long socket, int how);

    private static native int closesocket(long socket);

    private static native int getsockname(long socket, long name, long nameLength);

    private static native int getpeername(long socket, long name, long nameLength);

    /** The I/O completion port calls of kernel32. */
    static final class Kernel32 {

        static {
            Native.register(Kernel32.class, NativeLibrary.getInstance(kernelLibraryName()));
        }

        private Kernel32() {
        }

        private static native long CreateIoCompletionPort(long fileHandle, long existingPort, long completionKey, int threads);

        private static native int GetQueuedCompletionStatusEx(long port, long entries, int count, long removed,
                int milliseconds, int alertable);

        private static native int PostQueuedCompletionStatus(long port, int bytesTransferred, long completionKey, long overlapped);

        private static native int CloseHandle(long handle);
    }

    /**
     * {@code ProcessSocketNotifications}, bound on first use: only once {@link WinsockBackend} has
     * found it in the library, as Windows before build 20348 does not export it.
     */
    static final class Notifications {

        /** The function's name in ws2_32. */
        static final String FUNCTION = "ProcessSocketNotifications";

        static {
            Native.register(Notifications.class, NativeLibrary.getInstance(socketLibraryName()));
        }

        private Notifications() {
        }

        /** @return a Win32 or WSAE* code: 0, or WAIT_TIMEOUT when completions were asked for and none came */
        private static native int ProcessSocketNotifications(long port, int registrationCount, long registrations,
                int timeoutMillis, int completionCount, long entries, long receivedCount);
    }

    /**
     * The functions Winsock hands out by address ({@code WSARecvMsg}), called through JNA's {@link Function},
     * which boxes the arguments: a call allocates a few small objects where the direct-mapped ones allocate
     * nothing. A class of its own, loaded on the first such call only: JNA's classes stay unloaded where the
     * backend is merely looked at (another backend serving).
     */
    static final class ByAddress {

        /** {@code WSARecvMsg} at the address Winsock last gave, bound on its first call. */
        private static volatile @Nullable Function recvMsg;

        private ByAddress() {
        }

        static int WSARecvMsg(long function, long socket, long message, long bytesReceived) {
            Function bound = recvMsg;
            if (bound == null || Pointer.nativeValue(bound) != function) {
                bound = Function.getFunction(new Pointer(function));
                recvMsg = bound;
            }
            return bound.invokeInt(new Object[] {socket, message, bytesReceived, 0L, 0L});
        }
    }

    /**
     * JNA's binding as the instance the backend is given: each call is the bound static method, so
     * it costs what a direct call costs. Each part binds on its first call, and throws a
     * {@link LinkageError} when JNA cannot.
     */
    static final class Binding implements WinsockCalls {

        /**
         * The error code of this thread's last failed call: JNA captures {@code GetLastError()} (which
         * {@code WSAGetLastError()} returns too) right after every call, before the JVM can overwrite
         * it; when nothing was captured, Winsock is asked.
         * @return a WSAE* or Win32 code
         */
        @Override
        public int lastError() {
            int captured = Native.getLastError();
            return (captured != 0) ? captured : WinsockNative.WSAGetLastError();
        }

        @Override
        public int WSAStartup(short version, long data) {
            return WinsockNative.WSAStartup(version, data);
        }

        @Override
        public long WSASocketW(int family, int type, int protocol, long protocolInfo, int group, int flags) {
            return WinsockNative.WSASocketW(family, type, protocol, protocolInfo, group, flags);
        }

        @Override
        public int WSAIoctl(long socket, int code, long in, int inLength, long out, int outLength, long bytesReturned,
                long overlapped, long completionRoutine) {
            return WinsockNative.WSAIoctl(socket, code, in, inLength, out, outLength, bytesReturned, overlapped,
                    completionRoutine);
        }

        @Override
        public int ioctlsocket(long socket, int command, long argument) {
            return WinsockNative.ioctlsocket(socket, command, argument);
        }

        @Override
        public int bind(long socket, long name, int nameLength) {
            return WinsockNative.bind(socket, name, nameLength);
        }

        @Override
        public int listen(long socket, int backlog) {
            return WinsockNative.listen(socket, backlog);
        }

        @Override
        public long accept(long socket, long address, long addressLength) {
            return WinsockNative.accept(socket, address, addressLength);
        }

        @Override
        public int connect(long socket, long name, int nameLength) {
            return WinsockNative.connect(socket, name, nameLength);
        }

        @Override
        public int recv(long socket, long buffer, int length, int flags) {
            return WinsockNative.recv(socket, buffer, length, flags);
        }

        @Override
        public int send(long socket, long buffer, int length, int flags) {
            return WinsockNative.send(socket, buffer, length, flags);
        }

        @Override
        public int recvfrom(long socket, long buffer, int length, int flags, long from, long fromLength) {
            return WinsockNative.recvfrom(socket, buffer, length, flags, from, fromLength);
        }

        @Override
        public int sendto(long socket, long buffer, int length, int flags, long to, int toLength) {
            return WinsockNative.sendto(socket, buffer, length, flags, to, toLength);
        }

        @Override
        public int WSASendMsg(long socket, long message, int flags, long bytesSent) {
            return WinsockNative.WSASendMsg(socket, message, flags, bytesSent, 0, 0);
        }

        @Override
        public int WSARecvMsg(long function, long socket, long message, long bytesReceived) {
            return ByAddress.WSARecvMsg(function, socket, message, bytesReceived);
        }

        @Override
        public int setsockopt(long socket, int level, int name, long value, int length) {
            return WinsockNative.setsockopt(socket, level, name, value, length);
        }

        @Override
        public int getsockopt(long socket, int level, int name, long value, long length) {
            return WinsockNative.getsockopt(socket, level, name, value, length);
        }

        @Override
        public int shutdown(long socket, int how) {
            return WinsockNative.shutdown(socket, how);
        }

        @Override
        public int closesocket(long socket) {
            return WinsockNative.closesocket(socket);
        }

        @Override
        public int getsockname(long socket, long name, long nameLength) {
            return WinsockNative.getsockname(socket, name, nameLength);
        }

        @Override
        public int getpeername(long socket, long name, long nameLength) {
            return WinsockNative.getpeername(socket, name, nameLength);
        }

        @Override
        public long CreateIoCompletionPort(long fileHandle, long existingPort, long completionKey, int threads) {
            return Kernel32.CreateIoCompletionPort(fileHandle, existingPort, completionKey, threads);
        }

        @Override
        public int GetQueuedCompletionStatusEx(long port, long entries, int count, long removed, int milliseconds,
                int alertable) {
            return Kernel32.GetQueuedCompletionStatusEx(port, entries, count, removed, milliseconds, alertable);
        }

        @Override
        public int PostQueuedCompletionStatus(long port, int bytesTransferred, long completionKey, long overlapped) {
            return Kernel32.PostQueuedCompletionStatus(port, bytesTransferred, completionKey, overlapped);
        }

        @Override
        public int CloseHandle(long handle) {
            return Kernel32.CloseHandle(handle);
        }

        @Override
        public int ProcessSocketNotifications(long port, int registrationCount, long registrations, int timeoutMillis,
                int completionCount, long entries, long receivedCount) {
            return Notifications.ProcessSocketNotifications(port, registrationCount, registrations, timeoutMillis,
                    completionCount, entries, receivedCount);
        }

        @Override
        public String socketLibrary() {
            return socketLibraryName();
        }

        @Override
        public void lookUpSocketNotifications() {
            NativeLibrary.getInstance(socketLibraryName()).getFunction(Notifications.FUNCTION);
        }

        /** Allocates a JNA pointer: not for hot paths. */
        @Override
        public long addressOf(java.nio.ByteBuffer direct) {
            return com.sun.jna.Pointer.nativeValue(Native.getDirectBufferPointer(direct));
        }
    }
}
