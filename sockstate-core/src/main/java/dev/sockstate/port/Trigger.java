package dev.sockstate.port;

import java.util.Locale;

/**
 * When a registration notifies: level- or edge-triggered, and one-shot (disabled after one
 * notification until enabled again) or persistent. The flag values are Winsock's
 * {@code SOCK_NOTIFY_TRIGGER_*} values.
 * <p>
 * Level-triggered registrations notify while a condition holds, but a notification may be stale by
 * the time it is dequeued. Edge-triggered ones notify a condition that becomes true while they are
 * enabled, not one that already held: after each enable and each notification, read until the
 * socket would block (see {@link NotificationPort} for every backend's guarantees, and
 * {@link Backend#edgeOnEveryArrival()} for a backend that raises an edge per arrival).
 */
public enum Trigger {

    /** Level-triggered one-shot: the pattern for many threads on one port; re-arm after each turn. */
    LEVEL_ONESHOT(Trigger.LEVEL | Trigger.ONESHOT),

    /** Level-triggered persistent: a poll replacement, for a port with a single dequeuing thread. */
    LEVEL_PERSISTENT(Trigger.LEVEL | Trigger.PERSISTENT),

    /**
     * Edge-triggered one-shot: allowed, but not recommended: what arrived before each re-arm raises no
     * edge, so the socket must be drained after each re-arm.
     */
    EDGE_ONESHOT(Trigger.EDGE | Trigger.ONESHOT),

    /** Edge-triggered persistent: drain until would-block after the enable and after every notification. */
    EDGE_PERSISTENT(Trigger.EDGE | Trigger.PERSISTENT);

    /** Flag: disable the registration after one notification. */
    public static final int ONESHOT = 0x01;

    /** Flag: keep notifying until disabled or removed. */
    public static final int PERSISTENT = 0x02;

    /** Flag: notify while the condition holds (a notification may be stale once dequeued). */
    public static final int LEVEL = 0x04;

    /** Flag: notify when the condition becomes true while the registration is enabled. */
    public static final int EDGE = 0x08;

    private final int flags;

    Trigger(int flags) {
        this.flags = flags;
    }

    /** @return the trigger flags, exactly one of LEVEL/EDGE and one of ONESHOT/PERSISTENT */
    public int flags() {
        return this.flags;
    }

    /** @return whether the registration is disabled after each notification */
    public boolean isOneShot() {
        return (this.flags & ONESHOT) != 0;
    }

    /** @return whether the registration notifies on a rising edge only */
    public boolean isEdge() {
        return (this.flags & EDGE) != 0;
    }

    /**
     * The trigger of a set of raw flags.
     * @param flags trigger flags
     * @return the trigger they name
     * @throws IllegalArgumentException when the flags do not hold exactly one of LEVEL and EDGE and
     * exactly one of ONESHOT and PERSISTENT, or hold unknown bits
     */
    public static Trigger of(int flags) {
        for (Trigger trigger : values()) {
            if (trigger.flags == flags) {
                return trigger;
            }
        }
        throw new IllegalArgumentException("Trigger flags 0x" + Integer.toHexString(flags)
                + " are invalid: give exactly one of LEVEL (0x4) and EDGE (0x8) and exactly one of"
                + " ONESHOT (0x1) and PERSISTENT (0x2)");
    }

    /**
     * Parses a trigger name as written in configuration: {@code level-oneshot}, {@code LEVEL_ONESHOT}...
     * @param text the name
     * @return the trigger
     * @throws IllegalArgumentException naming the accepted values
     */
    public static Trigger parse(String text) {
        String normalized = text.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (Trigger trigger : values()) {
            if (trigger.name().equals(normalized)) {
                return trigger;
            }
        }
        throw new IllegalArgumentException("Unknown trigger '" + text
                + "'; use level-oneshot, level-persistent, edge-oneshot or edge-persistent");
    }
}
