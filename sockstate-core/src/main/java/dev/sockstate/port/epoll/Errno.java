package dev.sockstate.port.epoll;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;

/** Linux errno values and their portable meaning. */
final class Errno {

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EEXIST = 17;
    static final int EINVAL = 22;
    static final int ENFILE = 23;
    static final int EMFILE = 24;
    static final int EPIPE = 32;
    static final int ENOTSOCK = 88;
    static final int EPROTONOSUPPORT = 93;
    static final int EOPNOTSUPP = 95;
    static final int EAFNOSUPPORT = 97;
    static final int EADDRINUSE = 98;
    static final int EADDRNOTAVAIL = 99;
    static final int ECONNABORTED = 103;
    static final int ECONNRESET = 104;
    static final int ENOBUFS = 105;
    static final int ENOTCONN = 107;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;
    static final int EINPROGRESS = 115;

    /** The texts looked up so far, by code (Linux codes are below 134). */
    private static final String[] DESCRIPTIONS = new String[256];

    private Errno() {
    }

    /** @return the portable meaning of a Linux errno */
    static NativeError toError(int errno) {
        return switch (errno) {
            case EAGAIN -> NativeError.WOULD_BLOCK;
            case EINPROGRESS -> NativeError.IN_PROGRESS;
            case EINTR -> NativeError.INTERRUPTED;
            case EADDRINUSE -> NativeError.ADDRESS_IN_USE;
            case EADDRNOTAVAIL -> NativeError.ADDRESS_NOT_AVAILABLE;
            case ECONNREFUSED -> NativeError.CONNECTION_REFUSED;
            case ECONNRESET, ECONNABORTED -> NativeError.CONNECTION_RESET;
            case EPIPE -> NativeError.BROKEN_PIPE;
            case ENOTCONN -> NativeError.NOT_CONNECTED;
            case ETIMEDOUT -> NativeError.TIMED_OUT;
            case EMFILE, ENFILE -> NativeError.TOO_MANY_OPEN_FILES;
            case ENOMEM, ENOBUFS -> NativeError.NO_MEMORY;
            case EBADF, ENOTSOCK -> NativeError.BAD_DESCRIPTOR;
            case ENOENT -> NativeError.NOT_REGISTERED;
            case EEXIST -> NativeError.ALREADY_REGISTERED;
            case EINVAL -> NativeError.INVALID_ARGUMENT;
            case EAFNOSUPPORT, EPROTONOSUPPORT, EOPNOTSUPP -> NativeError.NOT_SUPPORTED;
            case EPERM, EACCES -> NativeError.PERMISSION_DENIED;
            default -> NativeError.OTHER;
        };
    }

    /** @return the exception for a call that failed with the code, its text looked up through the calls */
    static NativeIoException exception(EpollCalls calls, String call, int errno) {
        return new NativeIoException(call, toError(errno), errno, describe(calls, errno));
    }

    /**
     * @return the C library's text for the code, looked up once per code: {@code strerror} goes through
     * the locale's message catalogue, which costs more than the failed call itself
     */
    static String describe(EpollCalls calls, int errno) {
        if (errno < 0 || errno >= DESCRIPTIONS.length) {
            return calls.strerror(errno);
        }
        String description = DESCRIPTIONS[errno];
        if (description == null) {
            // Two threads may both look it up; either's text is the same, and a String is safely shared.
            description = calls.strerror(errno);
            DESCRIPTIONS[errno] = description;
        }
        return description;
    }

    /** @param call the call that just failed @return the exception for this thread's errno */
    static NativeIoException last(EpollCalls calls, String call) {
        return exception(calls, call, calls.errno());
    }
}
