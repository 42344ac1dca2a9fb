package dev.sockstate.sample.resp;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code resp-proxy} listener's own settings, under {@code sample.resp-proxy}.
 *
 * @param password the password a client gives with {@code AUTH} before any other request; without one
 * the proxy serves only clients on this host (loopback addresses, Unix sockets), as Redis does in its
 * protected mode
 */
@ConfigurationProperties("sample.resp-proxy")
public record RespProxyProperties(String password) {

    /** @return whether clients must give a password */
    public boolean requiresPassword() {
        return this.password != null && !this.password.isEmpty();
    }
}
