package dev.sockstate.server.admission;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Who may connect to a listener and how fast, checked as each connection is accepted, before any byte
 * is read from it or any TLS work is done: allow and deny lists of address ranges, a cap of open
 * connections per source, and accept rates per source and for the whole listener (token buckets).
 * Behind a PROXY protocol sender the listener trusts, the rules apply to the client its header names,
 * as soon as the header is read (the listener's rate still at accept).
 * <p>
 * A source is an address, or its network where a prefix is set ({@code /24} for IPv4, {@code /64} for
 * IPv6, say): the unit a cap and a rate count. The listener keeps what it counts of each source it has
 * heard from lately, at most {@link #maxSources()} sources with no open connection beside those with
 * one (which its maximum of connections bounds); a source forgotten for that bound starts again with a
 * full bucket, so a flood from more sources than that meets the listener's own rate instead.
 */
public final class Admission {

    /** The sources a listener keeps the counts of unless told otherwise. */
    public static final int DEFAULT_MAX_SOURCES = 65_536;

    /** No rule: every connection is admitted (up to the listener's maximum). */
    public static final Admission NONE = builder().build();

    private final List<AddressRange> allow;

    private final List<AddressRange> deny;

    private final int maxConnectionsPerSource;

    private final int ipv4SourcePrefix;

    private final int ipv6SourcePrefix;

    private final @Nullable Rate sourceRate;

    private final @Nullable Rate listenerRate;

    private final int maxSources;

    private Admission(Builder builder) {
        this.allow = List.copyOf(builder.allow);
        this.deny = List.copyOf(builder.deny);
        this.maxConnectionsPerSource = builder.maxConnectionsPerSource;
        this.ipv4SourcePrefix = builder.ipv4SourcePrefix;
        this.ipv6SourcePrefix = builder.ipv6SourcePrefix;
        this.sourceRate = builder.sourceRate;
        this.listenerRate = builder.listenerRate;
        this.maxSources = builder.maxSources;
    }

    /** @return a builder with no rule */
    public static Builder builder() {
        return new Builder();
    }

    /** @return whether any rule looks at the source's address (the lists, the cap, the source's rate) */
    public boolean checksSources() {
        return !this.allow.isEmpty() || !this.deny.isEmpty() || this.maxConnectionsPerSource > 0 || this.sourceRate != null;
    }

    /** @return whether any rule is set */
    public boolean isEmpty() {
        return !checksSources() && this.listenerRate == null;
    }

    /**
     * @param address a connection's source
     * @return whether the lists let it in: in no deny range, and in an allow range where there are any
     */
    public boolean permits(InetAddress address) {
        for (AddressRange range : this.deny) {
            if (range.contains(address)) {
                return false;
            }
        }
        if (this.allow.isEmpty()) {
            return true;
        }
        for (AddressRange range : this.allow) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** @return the ranges a source must be in, empty for every address */
    public List<String> allow() {
        return this.allow.stream().map(AddressRange::text).toList();
    }

    /** @return the ranges whose sources are refused */
    public List<String> deny() {
        return this.deny.stream().map(AddressRange::text).toList();
    }

    /** @return the most open connections of one source, 0 for no cap */
    public int maxConnectionsPerSource() {
        return this.maxConnectionsPerSource;
    }

    /** @return the prefix that makes an IPv4 address a source: 32 for each address */
    public int ipv4SourcePrefix() {
        return this.ipv4SourcePrefix;
    }

    /** @return the prefix that makes an IPv6 address a source: 128 for each address */
    public int ipv6SourcePrefix() {
        return this.ipv6SourcePrefix;
    }

    /**
     * @param address an address
     * @return the prefix of its family
     */
    public int sourcePrefix(InetAddress address) {
        return (address instanceof Inet4Address) ? this.ipv4SourcePrefix : this.ipv6SourcePrefix;
    }

    /** @return each source's accept rate, {@code null} for none */
    public @Nullable Rate sourceRate() {
        return this.sourceRate;
    }

    /** @return the listener's accept rate, {@code null} for none */
    public @Nullable Rate listenerRate() {
        return this.listenerRate;
    }

    /** @return the most sources without open connections whose counts the listener keeps */
    public int maxSources() {
        return this.maxSources;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Admission that && this.allow.equals(that.allow) && this.deny.equals(that.deny)
                && this.maxConnectionsPerSource == that.maxConnectionsPerSource && this.ipv4SourcePrefix == that.ipv4SourcePrefix
                && this.ipv6SourcePrefix == that.ipv6SourcePrefix && java.util.Objects.equals(this.sourceRate, that.sourceRate)
                && java.util.Objects.equals(this.listenerRate, that.listenerRate) && this.maxSources == that.maxSources;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(this.allow, this.deny, this.maxConnectionsPerSource, this.ipv4SourcePrefix, this.ipv6SourcePrefix,
                this.sourceRate, this.listenerRate, this.maxSources);
    }

    @Override
    public String toString() {
        return "Admission[allow=" + allow() + ", deny=" + deny() + ", maxConnectionsPerSource=" + this.maxConnectionsPerSource
                + ", sourcePrefixes=/" + this.ipv4SourcePrefix + " /" + this.ipv6SourcePrefix + ", sourceRate=" + this.sourceRate
                + ", listenerRate=" + this.listenerRate + ", maxSources=" + this.maxSources + "]";
    }

    /** Builds the rules; each setter checks its value and names what is wrong. */
    public static final class Builder {

        private final List<AddressRange> allow = new ArrayList<>();

        private final List<AddressRange> deny = new ArrayList<>();

        private int maxConnectionsPerSource;

        private int ipv4SourcePrefix = 32;

        private int ipv6SourcePrefix = 128;

        private @Nullable Rate sourceRate;

        private @Nullable Rate listenerRate;

        private int maxSources = DEFAULT_MAX_SOURCES;

        private Builder() {
        }

        /**
         * @param ranges addresses and ranges ({@code 10.0.0.0/8}, {@code fd00::/8}) a source must be in;
         * none (the default) for every address
         * @return this
         * @throws IllegalArgumentException naming an entry that is not an address or range
         */
        public Builder allow(Collection<String> ranges) {
            this.allow.clear();
            ranges.forEach((range) -> this.allow.add(AddressRange.parse(range)));
            return this;
        }

        /**
         * @param ranges addresses and ranges whose sources are refused, whatever the allow list says
         * @return this
         * @throws IllegalArgumentException naming an entry that is not an address or range
         */
        public Builder deny(Collection<String> ranges) {
            this.deny.clear();
            ranges.forEach((range) -> this.deny.add(AddressRange.parse(range)));
            return this;
        }

        /**
         * @param connections the most open connections of one source, 0 (the default) for no cap
         * @return this
         */
        public Builder maxConnectionsPerSource(int connections) {
            if (connections < 0) {
                throw new IllegalArgumentException("The most connections per source must be zero (no cap) or positive, not "
                        + connections);
            }
            this.maxConnectionsPerSource = connections;
            return this;
        }

        /**
         * Counts a network as one source: a cap and a rate then hold for all of its addresses together.
         * @param ipv4 the IPv4 prefix, 1 to 32 (32, each address, by default; 24 for a /24)
         * @param ipv6 the IPv6 prefix, 1 to 128 (128 by default; 64 for a /64, what one host is often given)
         * @return this
         */
        public Builder sourcePrefixes(int ipv4, int ipv6) {
            if (ipv4 < 1 || ipv4 > 32) {
                throw new IllegalArgumentException("The IPv4 source prefix must be between 1 and 32, not " + ipv4);
            }
            if (ipv6 < 1 || ipv6 > 128) {
                throw new IllegalArgumentException("The IPv6 source prefix must be between 1 and 128, not " + ipv6);
            }
            this.ipv4SourcePrefix = ipv4;
            this.ipv6SourcePrefix = ipv6;
            return this;
        }

        /** @param rate each source's accept rate, {@code null} (the default) for none @return this */
        public Builder sourceRate(@Nullable Rate rate) {
            this.sourceRate = rate;
            return this;
        }

        /** @param rate the listener's accept rate, {@code null} (the default) for none @return this */
        public Builder listenerRate(@Nullable Rate rate) {
            this.listenerRate = rate;
            return this;
        }

        /**
         * @param sources the most sources without open connections whose counts are kept
         * ({@value Admission#DEFAULT_MAX_SOURCES} unless set), at least 1
         * @return this
         */
        public Builder maxSources(int sources) {
            if (sources < 1) {
                throw new IllegalArgumentException("The most sources kept must be at least 1, not " + sources);
            }
            this.maxSources = sources;
            return this;
        }

        /** @return the rules */
        public Admission build() {
            return new Admission(this);
        }
    }
}
