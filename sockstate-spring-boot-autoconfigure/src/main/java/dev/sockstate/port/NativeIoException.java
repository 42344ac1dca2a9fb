package dev.sockstate.port;

import java.io.IOException;

/**
 * A native call failed. Names the call, the portable {@link NativeError} and the backend's own code,
 * so that a log line says what happened without a debugger.
 */
public class NativeIoException extends IOException {

    private static final long serialVersionUID = 1L;

    private final String call;

    private final NativeError error;

    private final int code;

    /**
     * @param call the native function that failed, such as {@code epoll_ctl}
     * @param error the portable meaning of the failure
     * @param code the backend's own code (errno or WSAE*)
     * @param detail the operating system's description of the code
     */
    public NativeIoException(String call, NativeError error, int code, String detail) {
        super(call + " failed: " + detail + " (" + error + ", code " + code + ")");
        this.call = call;
        this.error = error;
        this.code = code;
    }

    /** @return the native function that failed */
    public String call() {
        return this.call;
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
