package dev.sockstate.port.nio;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.Locale;

/**
 * Reads the JDK's exceptions as {@link NativeError}s. The JDK keeps no error number: its exception
 * type says most (a {@link BindException}, a {@link ConnectException}, a closed channel), and for a
 * plain {@link java.io.IOException} the system's message does, matched on the English texts of
 * Linux, macOS and Windows (the JDK throws {@code "Connection reset"} itself on every system); an
 * unknown or translated text is {@link NativeError#OTHER}, its message kept. The code of every
 * exception is zero: there is no native code to report.
 */
final class JdkErrors {

    private JdkErrors() {
    }

    /**
     * @param call what failed, such as {@code recv} or {@code bind(/127.0.0.1:80)}
     * @param failure what the JDK threw
     * @return the failure as a typed exception (one already typed passes unchanged); one that is not
     * the peer's keeps the JDK's as its cause
     */
    static NativeIoException exception(String call, Throwable failure) {
        if (failure instanceof NativeIoException typed) {
            return typed;
        }
        NativeError error = errorOf(failure);
        String detail = (failure.getMessage() != null) ? failure.getMessage() : failure.getClass().getSimpleName();
        NativeIoException exception = new NativeIoException(call, error, 0, detail);
        if (!error.isPeerFailure()) {
            exception.initCause(failure);
        }
        return exception;
    }

    /**
     * @param call what failed
     * @param error what it means
     * @param detail what went wrong, in words
     * @return an exception without a JDK cause
     */
    static NativeIoException exception(String call, NativeError error, String detail) {
        return new NativeIoException(call, error, 0, detail);
    }

    /**
     * @param failure what the JDK threw
     * @return its portable meaning
     */
    static NativeError errorOf(Throwable failure) {
        if (failure instanceof ClosedChannelException) {
            return NativeError.BAD_DESCRIPTOR;
        }
        if (failure instanceof NotYetConnectedException) {
            return NativeError.NOT_CONNECTED;
        }
        if (failure instanceof UnsupportedAddressTypeException || failure instanceof UnsupportedOperationException) {
            return NativeError.NOT_SUPPORTED;
        }
        if (failure instanceof UnresolvedAddressException || failure instanceof AlreadyBoundException
                || failure instanceof AlreadyConnectedException || failure instanceof ConnectionPendingException
                || failure instanceof NoConnectionPendingException || failure instanceof NotYetBoundException
                || failure instanceof IllegalBlockingModeException || failure instanceof IllegalArgumentException) {
            return NativeError.INVALID_ARGUMENT;
        }
        if (failure instanceof SocketTimeoutException) {
            return NativeError.TIMED_OUT;
        }
        if (failure instanceof PortUnreachableException) {
            return NativeError.CONNECTION_REFUSED;
        }
        NativeError byMessage = byMessage(failure.getMessage());
        if (byMessage != NativeError.OTHER) {
            return byMessage;
        }
        if (failure instanceof BindException) {
            return NativeError.ADDRESS_IN_USE;
        }
        if (failure instanceof ConnectException) {
            return NativeError.CONNECTION_REFUSED;
        }
        return NativeError.OTHER;
    }

    private static NativeError byMessage(String message) {
        if (message == null) {
            return NativeError.OTHER;
        }
        String text = message.toLowerCase(Locale.ROOT);
        if (text.contains("connection reset") || text.contains("forcibly closed") || text.contains("connection was aborted")
                || text.contains("connection abort")) {
            return NativeError.CONNECTION_RESET;
        }
        if (text.contains("broken pipe")) {
            return NativeError.BROKEN_PIPE;
        }
        if (text.contains("connection refused") || text.contains("actively refused")) {
            return NativeError.CONNECTION_REFUSED;
        }
        if (text.contains("timed out")) {
            return NativeError.TIMED_OUT;
        }
        if (text.contains("address already in use") || text.contains("only one usage of each socket address")) {
            return NativeError.ADDRESS_IN_USE;
        }
        if (text.contains("cannot assign requested address") || text.contains("can't assign requested address")
                || text.contains("requested address is not valid")) {
            return NativeError.ADDRESS_NOT_AVAILABLE;
        }
        if (text.contains("too many open files")) {
            return NativeError.TOO_MANY_OPEN_FILES;
        }
        if (text.contains("permission denied") || text.contains("access permissions")) {
            return NativeError.PERMISSION_DENIED;
        }
        if (text.contains("not connected")) {
            return NativeError.NOT_CONNECTED;
        }
        if (text.contains("no buffer space") || text.contains("cannot allocate memory")) {
            return NativeError.NO_MEMORY;
        }
        if (text.contains("not supported") || text.contains("family unavailable") || text.contains("not available")) {
            return NativeError.NOT_SUPPORTED;
        }
        if (text.contains("invalid argument")) {
            return NativeError.INVALID_ARGUMENT;
        }
        if (text.contains("bad file descriptor")) {
            return NativeError.BAD_DESCRIPTOR;
        }
        return NativeError.OTHER;
    }
}
