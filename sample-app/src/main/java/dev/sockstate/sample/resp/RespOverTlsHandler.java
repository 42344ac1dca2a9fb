package dev.sockstate.sample.resp;

import dev.sockstate.spring.handler.SocketHandler;

/**
 * The same key-value server on the {@code resp-tls} listener: TLS (its SSL bundle named in the
 * listener's properties) runs below the RESP framing, so the handler sees plaintext requests.
 */
@SocketHandler("resp-tls")
public class RespOverTlsHandler extends RespHandler {

    /** @param store the keys and values, shared with the plaintext listener */
    public RespOverTlsHandler(KeyValueStore store) {
        super(store);
    }
}
