package dev.sockstate.port;

/**
 * What a failed native call means, whatever the backend's own code (errno or WSAE*) was. Backends
 * map their codes here so that callers can react without knowing the operating system.
 */
public enum NativeError {

    /** The call would block (EAGAIN, EWOULDBLOCK, WSAEWOULDBLOCK); a result, never thrown by I/O calls. */
    WOULD_BLOCK,

    /** A non-blocking connect is under way (EINPROGRESS, WSAEWOULDBLOCK on connect). */
    IN_PROGRESS,

    /** The call was interrupted by a signal and may be retried. */
    INTERRUPTED,

    /** The local address is already in use. */
    ADDRESS_IN_USE,

    /** The local address is not an address of this machine. */
    ADDRESS_NOT_AVAILABLE,

    /** The peer refused the connection. */
    CONNECTION_REFUSED,

    /** The peer reset the connection. */
    CONNECTION_RESET,

    /** The connection is closed for writing (EPIPE). */
    BROKEN_PIPE,

    /** The socket is not connected. */
    NOT_CONNECTED,

    /** The connection or operation timed out. */
    TIMED_OUT,

    /** The process or the system is out of descriptors (EMFILE, ENFILE, WSAEMFILE). */
    TOO_MANY_OPEN_FILES,

    /** Out of memory or buffer space. */
    NO_MEMORY,

    /** The descriptor is not open (EBADF, WSAENOTSOCK). */
    BAD_DESCRIPTOR,

    /** The socket is not registered with the port. */
    NOT_REGISTERED,

    /** The socket is already registered with a port. */
    ALREADY_REGISTERED,

    /** An argument was rejected. */
    INVALID_ARGUMENT,

    /** The address family or protocol is not supported here. */
    NOT_SUPPORTED,

    /** Permission denied (a privileged port, for example). */
    PERMISSION_DENIED,

    /** Any other code; the exception keeps the number. */
    OTHER;

    /**
     * @return whether this is something the peer or the network did to a connection (reset, broken
     * pipe, time-out, not connected): an everyday event for a server, not a fault of the program
     */
    public boolean isPeerFailure() {
        return this == CONNECTION_RESET || this == BROKEN_PIPE || this == TIMED_OUT || this == NOT_CONNECTED;
    }
}
