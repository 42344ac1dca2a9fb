package dev.sockstate.server.engine;

import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Rate;
import dev.sockstate.server.admission.Refusal;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A listener's {@link Admission} as it runs: the listener's token bucket, and what it counts of each
 * source, the open connections under a cap and the source's own bucket. Sources with open connections
 * are kept while they have them (the listener's maximum of connections bounds them); those without are
 * kept in the order they were last heard from, at most {@link Admission#maxSources()}, the oldest
 * forgotten first; each connection counted under a cap is held until it ends. Workers that accept and workers whose connections end share it under its lock,
 * held for a few field updates and a map lookup.
 */
final class AdmissionControl {

    /** Admitted without a source to give back (no cap counts it). */
    static final Verdict ADMITTED = new Verdict(null, null);

    private final Admission rules;

    private final @Nullable Bucket listenerBucket;

    /** Sources with open connections; guarded by this. */
    private final Map<Key, Source> active = new HashMap<>();

    /** The source each open connection counts for, by the connection (its identity); guarded by this. */
    private final IdentityHashMap<Object, Source> holders = new IdentityHashMap<>();

    /** Sources without, the least lately heard from first; guarded by this. */
    private final LinkedHashMap<Key, Source> idle;

    /** @param rules the listener's rules */
    AdmissionControl(Admission rules) {
        this.rules = rules;
        this.listenerBucket = (rules.listenerRate() != null) ? new Bucket(rules.listenerRate()) : null;
        int most = rules.maxSources();
        this.idle = new LinkedHashMap<>(16, 0.75f, true) {

            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Source> eldest) {
                return size() > most;
            }
        };
    }

    /** @return whether connections hold counts to give back as they end: a cap per source is set */
    boolean counts() {
        return this.rules.maxConnectionsPerSource() > 0;
    }

    /** @return the rules */
    Admission rules() {
        return this.rules;
    }

    /**
     * The listener's own rate, as a connection is accepted.
     * @param now {@link System#nanoTime()}
     * @return the refusal, {@code null} when admitted
     */
    @Nullable Refusal admitAtListener(long now) {
        Bucket bucket = this.listenerBucket;
        if (bucket == null) {
            return null;
        }
        synchronized (this) {
            return bucket.take(now) ? null : Refusal.LISTENER_RATE;
        }
    }

    /**
     * The source's rules: the lists, its rate, its cap. Admitted under a cap, the source counts one more
     * open connection until {@link #release} gives it back.
     * @param address the source
     * @param now {@link System#nanoTime()}
     * @return the verdict
     */
    Verdict admitSource(InetAddress address, long now) {
        if (!this.rules.permits(address)) {
            return new Verdict(null, Refusal.DENIED);
        }
        Rate rate = this.rules.sourceRate();
        int cap = this.rules.maxConnectionsPerSource();
        if (rate == null && cap == 0) {
            return ADMITTED;
        }
        Key key = Key.of(address, this.rules.sourcePrefix(address));
        synchronized (this) {
            Source source = this.active.get(key);
            if (source == null) {
                source = this.idle.get(key);
            }
            if (source == null) {
                source = new Source(key, (rate != null) ? new Bucket(rate) : null);
                this.idle.put(key, source);
            }
            if (cap > 0 && source.open >= cap) {
                return new Verdict(null, Refusal.SOURCE_LIMIT);
            }
            if (source.bucket != null && !source.bucket.take(now)) {
                return new Verdict(null, Refusal.SOURCE_RATE);
            }
            if (cap == 0) {
                return ADMITTED;
            }
            if (source.open++ == 0) {
                this.idle.remove(key);
                this.active.put(key, source);
            }
            return new Verdict(source, null);
        }
    }

    /**
     * Remembers which source a connection counts for, until {@link #release(Object)}.
     * @param connection the connection {@link #admitSource} counted
     * @param source the source it counted it for
     */
    void hold(Object connection, Source source) {
        synchronized (this) {
            this.holders.put(connection, source);
        }
    }

    /** @param connection a connection that ended: the count it holds, if any, is given back */
    void release(Object connection) {
        synchronized (this) {
            Source source = this.holders.remove(connection);
            if (source != null) {
                release(source);
            }
        }
    }

    /** @param source a source {@link #admitSource} counted a connection of, which ended (or never opened) */
    void release(Source source) {
        synchronized (this) {
            if (--source.open == 0 && this.active.remove(source.key) == source) {
                this.idle.put(source.key, source);
            }
        }
    }

    /** @return how many sources it keeps counts of, with and without open connections */
    synchronized int sources() {
        return this.active.size() + this.idle.size();
    }

    /** @return how many of them have open connections */
    synchronized int activeSources() {
        return this.active.size();
    }

    /**
     * What an admission said.
     * @param source the source whose count it took, to give back when the connection ends; {@code null} for none
     * @param refusal why it refused, {@code null} when it admitted
     */
    record Verdict(@Nullable Source source, @Nullable Refusal refusal) {
    }

    /** One source: its network, its open connections under the cap, its bucket; guarded by the control's lock. */
    static final class Source {

        final Key key;

        final @Nullable Bucket bucket;

        int open;

        Source(Key key, @Nullable Bucket bucket) {
            this.key = key;
            this.bucket = bucket;
        }
    }

    /**
     * A source's network: its address with the bits past the prefix cleared, in two longs, and the
     * address's length in bits (32 or 128), so that an IPv4 and an IPv6 network never meet.
     */
    record Key(long high, long low, int bits) {

        static Key of(InetAddress address, int prefix) {
            byte[] bytes = address.getAddress();
            long high = 0;
            long low = 0;
            for (int i = 0; i < bytes.length; i++) {
                int keep = Math.max(0, Math.min(8, prefix - i * 8));
                long masked = bytes[i] & (0xff << (8 - keep)) & 0xff;
                if (i < 8) {
                    high = (high << 8) | masked;
                }
                else {
                    low = (low << 8) | masked;
                }
            }
            return new Key(high, low, bytes.length * 8);
        }
    }

    /** A token bucket; guarded by the control's lock. */
    static final class Bucket {

        private final double perNano;

        private final double burst;

        private double tokens;

        private long refilled;

        Bucket(Rate rate) {
            this.perNano = rate.perSecond() / 1e9;
            this.burst = rate.burst();
            this.tokens = this.burst;
            this.refilled = System.nanoTime();
        }

        boolean take(long now) {
            // (Acceptors read the clock before the lock: a later reading may come first.)
            if (now - this.refilled > 0) {
                this.tokens = Math.min(this.burst, this.tokens + (now - this.refilled) * this.perNano);
                this.refilled = now;
            }
            if (this.tokens < 1) {
                return false;
            }
            this.tokens -= 1;
            return true;
        }
    }
}
