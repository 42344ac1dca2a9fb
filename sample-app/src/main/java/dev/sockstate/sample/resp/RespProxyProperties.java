package dev.sockstate.sample.resp;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code resp-proxy} listener's own settings, under {@code sample.resp-proxy}. */
@ConfigurationProperties("sample.resp-proxy")
public class RespProxyProperties {

    /**
     * Password a client gives with AUTH before any other request; without one the proxy serves only
     * clients on this host (loopback addresses, Unix sockets), as Redis does in its protected mode.
     */
    private String password;

    public String getPassword() {
        return this.password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    /** @return whether clients must give a password */
    public boolean requiresPassword() {
        return this.password != null && !this.password.isEmpty();
    }
}
