package dev.sockstate.server.tls;

/**
 * The application protocol a connection's TLS handshake chose (ALPN), as its TLS stage publishes it
 * ({@link dev.sockstate.server.Connection#applicationProtocol()} reads its name).
 *
 * @param name the protocol's name, as the server's list names it
 */
public record ApplicationProtocol(String name) {
}
