package dev.sockstate.sample.resp;

/** The peer broke the RESP protocol; it gets an error reply and the connection is closed, as Redis does. */
public class RespProtocolException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param message what was wrong, sent to the peer after {@code -ERR Protocol error: } */
    public RespProtocolException(String message) {
        super(message);
    }
}
