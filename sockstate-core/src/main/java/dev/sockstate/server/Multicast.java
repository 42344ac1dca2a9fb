package dev.sockstate.server;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The multicast groups a UDP listener joins, and how the multicast datagrams it sends go out: made with
 * {@link #join(InetAddress)} and the {@code with...} methods from {@link #NONE}. A listener that joins
 * groups binds the wildcard address (leave its address out), or the group's own, to receive them.
 *
 * @param groups the groups joined as the listener binds, each any-source or source-specific
 * @param networkInterface the interface the groups are joined on and multicast datagrams sent from, by
 * name ({@code eth0}); {@code null} for the system's choice by its routes (the {@code nio} backend needs one)
 * @param hops how many routers a multicast datagram the listener sends may cross: IPv4's TTL, IPv6's hop
 * limit; 1 (the default) keeps it on the link
 * @param loopback whether a multicast datagram the listener sends is also delivered to this host's own
 * members of its group (the listener itself among them)
 */
public record Multicast(List<Group> groups, @Nullable String networkInterface, int hops, boolean loopback) {

    /** No group joined; multicast datagrams sent go out as the system chooses, one hop, looped back. */
    public static final Multicast NONE = new Multicast(List.of(), null, 1, true);

    /**
     * @throws IllegalArgumentException when the hops are out of 0 to 255, the interface's name blank, or a group
     * named twice
     */
    public Multicast {
        groups = List.copyOf(groups);
        if (new java.util.HashSet<>(groups).size() != groups.size()) {
            throw new IllegalArgumentException("A multicast group is joined once: " + groups + " names one twice");
        }
        if (hops < 0 || hops > 255) {
            throw new IllegalArgumentException("Multicast hops must be between 0 and 255, not " + hops);
        }
        if (networkInterface != null && networkInterface.isBlank()) {
            throw new IllegalArgumentException("A multicast interface's name must not be blank");
        }
    }

    /**
     * @param group a multicast address, IPv4 or IPv6
     * @return these settings with the group joined from any source
     */
    public Multicast join(InetAddress group) {
        return join(new Group(group, null));
    }

    /**
     * @param group a group, any-source or source-specific
     * @return these settings with the group joined too
     */
    public Multicast join(Group group) {
        List<Group> more = new ArrayList<>(this.groups);
        more.add(group);
        return new Multicast(more, this.networkInterface, this.hops, this.loopback);
    }

    /**
     * @param group a group joined
     * @return these settings without it
     */
    public Multicast leave(Group group) {
        List<Group> fewer = new ArrayList<>(this.groups);
        fewer.remove(group);
        return new Multicast(fewer, this.networkInterface, this.hops, this.loopback);
    }

    /** @param name the interface's name @return these settings on that interface */
    public Multicast withNetworkInterface(@Nullable String name) {
        return new Multicast(this.groups, name, this.hops, this.loopback);
    }

    /** @param hops the routers a datagram sent may cross, 0 to 255 @return these settings with them */
    public Multicast withHops(int hops) {
        return new Multicast(this.groups, this.networkInterface, hops, this.loopback);
    }

    /** @param loopback whether datagrams sent reach this host's members @return these settings with it */
    public Multicast withLoopback(boolean loopback) {
        return new Multicast(this.groups, this.networkInterface, this.hops, loopback);
    }

    /** @return whether it differs from {@link #NONE} in anything */
    public boolean isSet() {
        return !equals(NONE);
    }

    /**
     * One group a listener joins.
     * @param address the group: an IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast address
     * @param source for a source-specific join (SSM, such as 232.0.0.0/8), the one sender whose datagrams are
     * received; {@code null} for any sender
     */
    public record Group(InetAddress address, @Nullable InetAddress source) {

        /** @throws IllegalArgumentException when the address is no multicast one, or the source of another family */
        public Group {
            if (!address.isMulticastAddress()) {
                throw new IllegalArgumentException(address.getHostAddress() + " is not a multicast address");
            }
            if (source != null && ((source instanceof Inet4Address) != (address instanceof Inet4Address))) {
                throw new IllegalArgumentException("The source " + source.getHostAddress() + " of group " + address.getHostAddress()
                        + " is of another address family");
            }
        }

        @Override
        public String toString() {
            return (this.source != null) ? this.address.getHostAddress() + " from " + this.source.getHostAddress()
                    : this.address.getHostAddress();
        }
    }
}
