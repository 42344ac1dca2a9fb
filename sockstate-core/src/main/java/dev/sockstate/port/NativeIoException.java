package dev.sockstate.port;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A native call failed. Names the call, the portable {@link NativeError} and the backend's own code,
 * so that a log line says what happened without a debugger.
 * <p>
 * A {@linkplain NativeError#isPeerFailure() peer's failure} (a reset, a broken pipe) carries no stack
 * trace: it is an everyday event on a server, where the call it names says all there is, and a server
 * that accepts and loses connections by the thousand a second should not walk its stack for each.
 */
public class NativeIoException extends IOException {

    private static final long serialVersionUID = 2L;

    private final String call;

    private final NativeError error;

    private final int code;

    private final String detail;

    /** The message, made when first asked for: a peer's failure is mostly handled without it. */
    private transient volatile @Nullable String message;

    /** False while the superclass constructor runs, which calls {@link #fillInStackTrace()}. */
    private transient boolean constructed;

    /**
     * @param call the native function that failed, such as {@code epoll_ctl}
     * @param error the portable meaning of the failure
     * @param code the backend's own code (errno or WSAE*)
     * @param detail the operating system's description of the code
     */
    public NativeIoException(String call, NativeError error, int code, String detail) {
        super((String) null);
        this.call = call;
        this.error = error;
        this.code = code;
        this.detail = detail;
        this.constructed = true;
        if (!error.isPeerFailure()) {
            super.fillInStackTrace();
        }
    }

    /** Records the stack trace, except while constructing: the constructor decides whether to record it. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this.constructed ? super.fillInStackTrace() : this;
    }

    /** @return the native function that failed */
    public String call() {
        return this.call;
    }

    /** @return what failed: the call, the system's description of the code, its portable meaning and the code */
    @Override
    public String getMessage() {
        String message = this.message;
        if (message == null) {
            message = this.call + " failed: " + this.detail + " (" + this.error + ", code " + this.code + ")";
            this.message = message;
        }
        return message;
    }

    /** @return the portable meaning of the failure */
    public NativeError error() {
        return this.error;
    }

    /** @return the backend's own code (errno or WSAE*) */
    public int code() {
        return this.code;
    }
}
