package dev.sockstate.port.winsock;

import java.nio.ByteBuffer;

/**
 * The ws2_32 and kernel32 calls the winsock backend makes, as an instance its backend chooses and
 * hands to its port and sockets: a binding (JNA's in {@link WinsockNative}, another one day) is one
 * class implementing this. Handles ({@code SOCKET}, {@code HANDLE}) and pointers are {@code long}
 * (the x64 ABI); results are the functions' own, and the error of a failed call is
 * {@link #lastError()}. Every call allocates nothing, but {@link #addressOf}, the probe's
 * {@link #lookUpSocketNotifications()} and {@link #WSARecvMsg}, which JNA binds only by its address.
 */
interface WinsockCalls {

    /** @return the WSAE* or Win32 code of this thread's last failed call */
    int lastError();

    /** @return {@code WSAStartup(version, data)}: 0, or a WSAE* code */
    int WSAStartup(short version, long data);

    /** @return {@code WSASocketW(...)}: a socket, or {@code INVALID_SOCKET} */
    long WSASocketW(int family, int type, int protocol, long protocolInfo, int group, int flags);

    /** @return {@code WSAIoctl(...)}: 0, or {@code SOCKET_ERROR} */
    int WSAIoctl(long socket, int code, long in, int inLength, long out, int outLength, long bytesReturned,
            long overlapped, long completionRoutine);

    /** @return {@code ioctlsocket(socket, command, argument)}: 0, or {@code SOCKET_ERROR} */
    int ioctlsocket(long socket, int command, long argument);

    /** @return {@code bind(socket, name, nameLength)}: 0, or {@code SOCKET_ERROR} */
    int bind(long socket, long name, int nameLength);

    /** @return {@code listen(socket, backlog)}: 0, or {@code SOCKET_ERROR} */
    int listen(long socket, int backlog);

    /** @return {@code accept(socket, address, addressLength)}: a socket, or {@code INVALID_SOCKET} */
    long accept(long socket, long address, long addressLength);

    /** @return {@code connect(socket, name, nameLength)}: 0, or {@code SOCKET_ERROR} */
    int connect(long socket, long name, int nameLength);

    /** @return {@code recv(socket, buffer, length, flags)}: the bytes read, or {@code SOCKET_ERROR} */
    int recv(long socket, long buffer, int length, int flags);

    /** @return {@code send(socket, buffer, length, flags)}: the bytes sent, or {@code SOCKET_ERROR} */
    int send(long socket, long buffer, int length, int flags);

    /** @return {@code recvfrom(...)}: the datagram's length, or {@code SOCKET_ERROR} */
    int recvfrom(long socket, long buffer, int length, int flags, long from, long fromLength);

    /** @return {@code sendto(...)}: the bytes sent, or {@code SOCKET_ERROR} */
    int sendto(long socket, long buffer, int length, int flags, long to, int toLength);

    /**
     * @return {@code WSASendMsg(socket, message, flags, bytesSent, NULL, NULL)}, which ws2_32 exports: 0, or
     * {@code SOCKET_ERROR}
     */
    int WSASendMsg(long socket, long message, int flags, long bytesSent);

    /**
     * Calls {@code WSARecvMsg} at the address {@code WSAIoctl(SIO_GET_EXTENSION_FUNCTION_POINTER)} gave: ws2_32
     * does not export it.
     * @return {@code WSARecvMsg(socket, message, bytesReceived, NULL, NULL)}: 0, or {@code SOCKET_ERROR}
     */
    int WSARecvMsg(long function, long socket, long message, long bytesReceived);

    /** @return {@code setsockopt(socket, level, name, value, length)}: 0, or {@code SOCKET_ERROR} */
    int setsockopt(long socket, int level, int name, long value, int length);

    /** @return {@code getsockopt(socket, level, name, value, length)}: 0, or {@code SOCKET_ERROR} */
    int getsockopt(long socket, int level, int name, long value, long length);

    /** @return {@code shutdown(socket, how)}: 0, or {@code SOCKET_ERROR} */
    int shutdown(long socket, int how);

    /** @return {@code closesocket(socket)}: 0, or {@code SOCKET_ERROR} */
    int closesocket(long socket);

    /** @return {@code getsockname(socket, name, nameLength)}: 0, or {@code SOCKET_ERROR} */
    int getsockname(long socket, long name, long nameLength);

    /** @return {@code getpeername(socket, name, nameLength)}: 0, or {@code SOCKET_ERROR} */
    int getpeername(long socket, long name, long nameLength);

    /** @return {@code CreateIoCompletionPort(...)}: the port, or 0 */
    long CreateIoCompletionPort(long fileHandle, long existingPort, long completionKey, int threads);

    /** @return {@code GetQueuedCompletionStatusEx(...)}: nonzero, or 0 on failure or timeout */
    int GetQueuedCompletionStatusEx(long port, long entries, int count, long removed, int milliseconds, int alertable);

    /** @return {@code PostQueuedCompletionStatus(...)}: nonzero, or 0 on failure */
    int PostQueuedCompletionStatus(long port, int bytesTransferred, long completionKey, long overlapped);

    /** @return {@code CloseHandle(handle)}: nonzero, or 0 on failure */
    int CloseHandle(long handle);

    /** @return {@code ProcessSocketNotifications(...)}: 0, {@code WAIT_TIMEOUT}, or a Win32 or WSAE* code */
    int ProcessSocketNotifications(long port, int registrationCount, long registrations, int timeoutMillis,
            int completionCount, long entries, long receivedCount);

    /** @return the name of the library holding the socket calls and {@code ProcessSocketNotifications} */
    String socketLibrary();

    /**
     * Looks {@code ProcessSocketNotifications} up in {@link #socketLibrary()} without binding it.
     * @throws UnsatisfiedLinkError when the library does not export it (Windows before build 20348)
     */
    void lookUpSocketNotifications();

    /** @return the native address of a direct buffer (may allocate: not for hot paths) */
    long addressOf(ByteBuffer direct);
}
