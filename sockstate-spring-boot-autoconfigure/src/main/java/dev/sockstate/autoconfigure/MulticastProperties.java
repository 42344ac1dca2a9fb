package dev.sockstate.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The multicast groups a UDP listener joins and how the multicast datagrams it sends go out, bound under
 * {@code sockstate.listeners.<name>.multicast} and mapped onto the runtime's {@code Multicast}.
 */
public class MulticastProperties {

    /** Groups joined as the listener binds: an address each, and a source for a source-specific join. */
    private List<Group> groups = new ArrayList<>();

    /** Network interface the groups are joined on and multicast datagrams sent from, by name (eth0); the system's choice by its routes when unset (the nio backend needs one). */
    private @Nullable String networkInterface;

    /** Routers a multicast datagram the listener sends may cross (IPv4's TTL, IPv6's hop limit); 1 keeps it on the link. */
    private int hops = 1;

    /** Whether multicast datagrams the listener sends reach this host's own members of their group too. */
    private boolean loopback = true;

    /** @return whether any differs from its default */
    boolean isSet() {
        return !this.groups.isEmpty() || this.networkInterface != null || this.hops != 1 || !this.loopback;
    }

    public List<Group> getGroups() {
        return this.groups;
    }

    public void setGroups(List<Group> groups) {
        this.groups = groups;
    }

    public @Nullable String getNetworkInterface() {
        return this.networkInterface;
    }

    public void setNetworkInterface(@Nullable String networkInterface) {
        this.networkInterface = networkInterface;
    }

    public int getHops() {
        return this.hops;
    }

    public void setHops(int hops) {
        this.hops = hops;
    }

    public boolean isLoopback() {
        return this.loopback;
    }

    public void setLoopback(boolean loopback) {
        this.loopback = loopback;
    }

    /** One group the listener joins. */
    public static class Group {

        /** Multicast address of the group: IPv4 (239.1.2.3) or IPv6 (ff15::1). */
        private @Nullable String address;

        /** The one sender whose datagrams are received (a source-specific join, such as in 232.0.0.0/8); any sender when unset. */
        private @Nullable String source;

        public @Nullable String getAddress() {
            return this.address;
        }

        public void setAddress(@Nullable String address) {
            this.address = address;
        }

        public @Nullable String getSource() {
            return this.source;
        }

        public void setSource(@Nullable String source) {
            this.source = source;
        }
    }
}
