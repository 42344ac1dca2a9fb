package dev.sockstate.port.winsock;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;

/**
 * Winsock (WSAE*) and Win32 error codes, their names and their portable meaning. Both kinds reach
 * the backend: socket calls fail with WSAE* codes, the completion port calls and
 * {@code ProcessSocketNotifications} (its return value and every {@code registrationResult}) with
 * either.
 */
final class WsaError {

    static final int ERROR_SUCCESS = 0;
    static final int ERROR_ACCESS_DENIED = 5;
    static final int ERROR_INVALID_HANDLE = 6;
    static final int ERROR_NOT_ENOUGH_MEMORY = 8;
    static final int ERROR_OUTOFMEMORY = 14;
    static final int ERROR_NOT_SUPPORTED = 50;
    static final int ERROR_INVALID_PARAMETER = 87;
    static final int ERROR_PROC_NOT_FOUND = 127;
    static final int ERROR_ALREADY_EXISTS = 183;
    static final int WAIT_TIMEOUT = 258;
    static final int ERROR_ABANDONED_WAIT_0 = 735;
    static final int ERROR_NOT_FOUND = 1168;
    static final int ERROR_TIMEOUT = 1460;

    static final int WSAEINTR = 10004;
    static final int WSAEBADF = 10009;
    static final int WSAEACCES = 10013;
    static final int WSAEFAULT = 10014;
    static final int WSAEINVAL = 10022;
    static final int WSAEMFILE = 10024;
    static final int WSAEWOULDBLOCK = 10035;
    static final int WSAEINPROGRESS = 10036;
    static final int WSAEALREADY = 10037;
    static final int WSAENOTSOCK = 10038;
    static final int WSAEMSGSIZE = 10040;
    static final int WSAENOPROTOOPT = 10042;
    static final int WSAEPROTONOSUPPORT = 10043;
    static final int WSAESOCKTNOSUPPORT = 10044;
    static final int WSAEOPNOTSUPP = 10045;
    static final int WSAEAFNOSUPPORT = 10047;
    static final int WSAEADDRINUSE = 10048;
    static final int WSAEADDRNOTAVAIL = 10049;
    static final int WSAENETDOWN = 10050;
    static final int WSAENETUNREACH = 10051;
    static final int WSAENETRESET = 10052;
    static final int WSAECONNABORTED = 10053;
    static final int WSAECONNRESET = 10054;
    static final int WSAENOBUFS = 10055;
    static final int WSAEISCONN = 10056;
    static final int WSAENOTCONN = 10057;
    static final int WSAESHUTDOWN = 10058;
    static final int WSAETIMEDOUT = 10060;
    static final int WSAECONNREFUSED = 10061;
    static final int WSAEHOSTUNREACH = 10065;
    static final int WSANOTINITIALISED = 10093;

    private WsaError() {
    }

    static NativeError toError(int code) {
        return switch (code) {
            case WSAEWOULDBLOCK -> NativeError.WOULD_BLOCK;
            case WSAEINPROGRESS, WSAEALREADY -> NativeError.IN_PROGRESS;
            case WSAEINTR -> NativeError.INTERRUPTED;
            case WSAEADDRINUSE -> NativeError.ADDRESS_IN_USE;
            case WSAEADDRNOTAVAIL -> NativeError.ADDRESS_NOT_AVAILABLE;
            case WSAECONNREFUSED -> NativeError.CONNECTION_REFUSED;
            case WSAECONNRESET, WSAECONNABORTED, WSAENETRESET -> NativeError.CONNECTION_RESET;
            case WSAESHUTDOWN -> NativeError.BROKEN_PIPE;
            case WSAENOTCONN -> NativeError.NOT_CONNECTED;
            case WSAETIMEDOUT, WAIT_TIMEOUT, ERROR_TIMEOUT -> NativeError.TIMED_OUT;
            case WSAEMFILE -> NativeError.TOO_MANY_OPEN_FILES;
            case WSAENOBUFS, ERROR_NOT_ENOUGH_MEMORY, ERROR_OUTOFMEMORY -> NativeError.NO_MEMORY;
            case WSAENOTSOCK, WSAEBADF, ERROR_INVALID_HANDLE -> NativeError.BAD_DESCRIPTOR;
            case ERROR_NOT_FOUND -> NativeError.NOT_REGISTERED;
            case ERROR_ALREADY_EXISTS -> NativeError.ALREADY_REGISTERED;
            case WSAEINVAL, WSAEFAULT, ERROR_INVALID_PARAMETER -> NativeError.INVALID_ARGUMENT;
            case WSAEAFNOSUPPORT, WSAEPROTONOSUPPORT, WSAESOCKTNOSUPPORT, WSAEOPNOTSUPP, WSAENOPROTOOPT,
                    ERROR_NOT_SUPPORTED, ERROR_PROC_NOT_FOUND -> NativeError.NOT_SUPPORTED;
            case WSAEACCES, ERROR_ACCESS_DENIED -> NativeError.PERMISSION_DENIED;
            default -> NativeError.OTHER;
        };
    }

    /** @param code a return code of {@code ProcessSocketNotifications} or a completion port call @return whether it means a timeout */
    static boolean isTimeout(int code) {
        return code == WAIT_TIMEOUT || code == ERROR_TIMEOUT;
    }

    /** @param code a WSAE* or Win32 code @return its symbolic name, as the Windows headers spell it */
    static String name(int code) {
        return switch (code) {
            case ERROR_SUCCESS -> "ERROR_SUCCESS";
            case ERROR_ACCESS_DENIED -> "ERROR_ACCESS_DENIED";
            case ERROR_INVALID_HANDLE -> "ERROR_INVALID_HANDLE";
            case ERROR_NOT_ENOUGH_MEMORY -> "ERROR_NOT_ENOUGH_MEMORY";
            case ERROR_OUTOFMEMORY -> "ERROR_OUTOFMEMORY";
            case ERROR_NOT_SUPPORTED -> "ERROR_NOT_SUPPORTED";
            case ERROR_INVALID_PARAMETER -> "ERROR_INVALID_PARAMETER";
            case ERROR_PROC_NOT_FOUND -> "ERROR_PROC_NOT_FOUND";
            case ERROR_ALREADY_EXISTS -> "ERROR_ALREADY_EXISTS";
            case WAIT_TIMEOUT -> "WAIT_TIMEOUT";
            case ERROR_ABANDONED_WAIT_0 -> "ERROR_ABANDONED_WAIT_0";
            case ERROR_NOT_FOUND -> "ERROR_NOT_FOUND";
            case ERROR_TIMEOUT -> "ERROR_TIMEOUT";
            case WSAEINTR -> "WSAEINTR";
            case WSAEBADF -> "WSAEBADF";
            case WSAEACCES -> "WSAEACCES";
            case WSAEFAULT -> "WSAEFAULT";
            case WSAEINVAL -> "WSAEINVAL";
            case WSAEMFILE -> "WSAEMFILE";
            case WSAEWOULDBLOCK -> "WSAEWOULDBLOCK";
            case WSAEINPROGRESS -> "WSAEINPROGRESS";
            case WSAEALREADY -> "WSAEALREADY";
            case WSAENOTSOCK -> "WSAENOTSOCK";
            case WSAEMSGSIZE -> "WSAEMSGSIZE";
            case WSAENOPROTOOPT -> "WSAENOPROTOOPT";
            case WSAEPROTONOSUPPORT -> "WSAEPROTONOSUPPORT";
            case WSAESOCKTNOSUPPORT -> "WSAESOCKTNOSUPPORT";
            case WSAEOPNOTSUPP -> "WSAEOPNOTSUPP";
            case WSAEAFNOSUPPORT -> "WSAEAFNOSUPPORT";
            case WSAEADDRINUSE -> "WSAEADDRINUSE";
            case WSAEADDRNOTAVAIL -> "WSAEADDRNOTAVAIL";
            case WSAENETDOWN -> "WSAENETDOWN";
            case WSAENETUNREACH -> "WSAENETUNREACH";
            case WSAENETRESET -> "WSAENETRESET";
            case WSAECONNABORTED -> "WSAECONNABORTED";
            case WSAECONNRESET -> "WSAECONNRESET";
            case WSAENOBUFS -> "WSAENOBUFS";
            case WSAEISCONN -> "WSAEISCONN";
            case WSAENOTCONN -> "WSAENOTCONN";
            case WSAESHUTDOWN -> "WSAESHUTDOWN";
            case WSAETIMEDOUT -> "WSAETIMEDOUT";
            case WSAECONNREFUSED -> "WSAECONNREFUSED";
            case WSAEHOSTUNREACH -> "WSAEHOSTUNREACH";
            case WSANOTINITIALISED -> "WSANOTINITIALISED";
            default -> "error " + code;
        };
    }

    static NativeIoException exception(String call, int code) {
        return new NativeIoException(call, toError(code), code, name(code));
    }

    /** @param call the call that just failed @return the exception for this thread's last error on the calls */
    static NativeIoException last(WinsockCalls calls, String call) {
        return exception(call, calls.lastError());
    }
}
