package dev.sockstate.port.winsock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import org.junit.jupiter.api.Test;

class WsaErrorTest {

    @Test
    void winsockAndWin32CodesHaveTheirPortableMeaning() {
        assertThat(WsaError.toError(10035)).isEqualTo(NativeError.WOULD_BLOCK);
        assertThat(WsaError.toError(10054)).isEqualTo(NativeError.CONNECTION_RESET);
        assertThat(WsaError.toError(10038)).isEqualTo(NativeError.BAD_DESCRIPTOR);
        assertThat(WsaError.toError(1168)).isEqualTo(NativeError.NOT_REGISTERED);
        assertThat(WsaError.toError(87)).isEqualTo(NativeError.INVALID_ARGUMENT);
        assertThat(WsaError.toError(4242)).isEqualTo(NativeError.OTHER);
    }

    @Test
    void bothTimeoutCodesAreTimeouts() {
        assertThat(WsaError.isTimeout(258)).isTrue();
        assertThat(WsaError.isTimeout(1460)).isTrue();
        assertThat(WsaError.isTimeout(735)).as("ERROR_ABANDONED_WAIT_0 means closed").isFalse();
    }

    @Test
    void anExceptionNamesTheCallTheCodeAndItsName() {
        NativeIoException exception = WsaError.exception("ProcessSocketNotifications", 10022);
        assertThat(exception.getMessage()).isEqualTo("ProcessSocketNotifications failed: WSAEINVAL (INVALID_ARGUMENT, code 10022)");
        assertThat(exception.call()).isEqualTo("ProcessSocketNotifications");
        assertThat(exception.code()).isEqualTo(10022);
        assertThat(WsaError.name(4242)).isEqualTo("error 4242");
    }
}
