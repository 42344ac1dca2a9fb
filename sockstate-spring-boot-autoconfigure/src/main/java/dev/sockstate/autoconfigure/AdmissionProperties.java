package dev.sockstate.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Who may connect to a TCP listener and how fast, bound under {@code sockstate.listeners.<name>.admission}
 * and mapped onto the runtime's {@code Admission}: a connection refused is closed before any byte is read
 * from it, and counted by reason.
 */
public class AdmissionProperties {

    /** Addresses and ranges (10.0.0.0/8, fd00::/8) a client must be in; every address when empty. */
    private List<String> allow = new ArrayList<>();

    /** Addresses and ranges whose clients are refused, whatever the allow list says. */
    private List<String> deny = new ArrayList<>();

    /** Most open connections of one source (an address, or its network with a source prefix); no cap when not set. */
    private @Nullable Integer maxConnectionsPerSource;

    /** Prefix lengths that make a network one source: 24 counts an IPv4 /24 together, 64 an IPv6 /64. */
    @NestedConfigurationProperty
    private final SourcePrefix sourcePrefix = new SourcePrefix();

    /** Accept rate of each source: a token bucket; none when not set. */
    @NestedConfigurationProperty
    private final RateProperties sourceRate = new RateProperties();

    /** Accept rate of the whole listener: a token bucket; none when not set. */
    @NestedConfigurationProperty
    private final RateProperties listenerRate = new RateProperties();

    /** Most sources without open connections whose counts are kept (about 150 bytes each), the least lately heard from forgotten first. */
    private int maxSources = 65_536;

    public List<String> getAllow() {
        return this.allow;
    }

    public void setAllow(List<String> allow) {
        this.allow = allow;
    }

    public List<String> getDeny() {
        return this.deny;
    }

    public void setDeny(List<String> deny) {
        this.deny = deny;
    }

    public @Nullable Integer getMaxConnectionsPerSource() {
        return this.maxConnectionsPerSource;
    }

    public void setMaxConnectionsPerSource(@Nullable Integer maxConnectionsPerSource) {
        this.maxConnectionsPerSource = maxConnectionsPerSource;
    }

    public SourcePrefix getSourcePrefix() {
        return this.sourcePrefix;
    }

    public RateProperties getSourceRate() {
        return this.sourceRate;
    }

    public RateProperties getListenerRate() {
        return this.listenerRate;
    }

    public int getMaxSources() {
        return this.maxSources;
    }

    public void setMaxSources(int maxSources) {
        this.maxSources = maxSources;
    }

    /** @return whether any property is set */
    boolean isSet() {
        return !this.allow.isEmpty() || !this.deny.isEmpty() || this.maxConnectionsPerSource != null || this.sourceRate.isSet()
                || this.listenerRate.isSet() || this.sourcePrefix.getIpv4() != 32 || this.sourcePrefix.getIpv6() != 128
                || this.maxSources != 65_536;
    }

    /** The prefix lengths that make an address's network one source. */
    public static class SourcePrefix {

        /** IPv4 prefix length of a source, 1 to 32. */
        private int ipv4 = 32;

        /** IPv6 prefix length of a source, 1 to 128. */
        private int ipv6 = 128;

        public int getIpv4() {
            return this.ipv4;
        }

        public void setIpv4(int ipv4) {
            this.ipv4 = ipv4;
        }

        public int getIpv6() {
            return this.ipv6;
        }

        public void setIpv6(int ipv6) {
            this.ipv6 = ipv6;
        }
    }

    /** An accept rate: a token bucket. */
    public static class RateProperties {

        /** Connections a second on average; no limit when not set. */
        private @Nullable Double perSecond;

        /** Most connections at once after a quiet spell; one second's worth when not set. */
        private @Nullable Integer burst;

        public @Nullable Double getPerSecond() {
            return this.perSecond;
        }

        public void setPerSecond(@Nullable Double perSecond) {
            this.perSecond = perSecond;
        }

        public @Nullable Integer getBurst() {
            return this.burst;
        }

        public void setBurst(@Nullable Integer burst) {
            this.burst = burst;
        }

        boolean isSet() {
            return this.perSecond != null || this.burst != null;
        }
    }
}
