package dev.sockstate.server.engine;

import dev.sockstate.server.shaping.Shaping;

/**
 * One connection's traffic shaping: its own buckets for reading and sending, checked together with
 * those its listener's (or client's) connections share in {@link ShapingControl}. The connection asks
 * before each read or send how much it may move; when nothing, the shaper has the timer give the
 * connection its turn back once its share refilled (no thread waits), and counts the time it waited.
 * Once a connection spent all it was offered, it waits until a worthwhile amount came back
 * ({@link TokenBucket#wakeLevel}: 16 KiB, a tenth of a second's worth at low rates, a hundredth at high
 * ones), not for each byte: one read or send, and one wake of the timer, moves that much at once. The connection's owner's alone.
 */
final class Shaper {

    /**
     * Whether the connection's reads wait for the share: nothing is read, nor watched, until the timer
     * gives the connection its turn back and the share refilled.
     */
    boolean inputWaits;

    /** Whether the timer's wake came for writes held back, which the connection's next turn sends; the timer sets it, the owner clears it. */
    volatile boolean outputWake;

    private final Side read;

    private final Side write;

    Shaper(ShapingControl control, Runnable readWake, Runnable writeWake) {
        this.read = new Side(control, true, readWake);
        this.write = new Side(control, false, writeWake);
    }

    /**
     * @param now the time
     * @return the bytes the connection may read now; 0 when it waits, its turn then given back by the
     * timer once its share refilled
     */
    int readAllowance(long now) {
        return this.read.allowance(now);
    }

    /**
     * @param bytes bytes read, taken from the shares
     * @param allowance what the read was allowed
     */
    void read(int bytes, int allowance) {
        this.read.took(bytes, allowance);
    }

    /**
     * @param now the time
     * @return the bytes the connection may send now; 0 when its writes wait in its queue, its turn then
     * given back by the timer once its share refilled
     */
    int writeAllowance(long now) {
        return this.write.allowance(now);
    }

    /**
     * @param bytes bytes sent, taken from the shares
     * @param allowance what the send was allowed
     */
    void written(int bytes, int allowance) {
        this.write.took(bytes, allowance);
    }

    /**
     * The connection is closed, or no longer shaped: the time it was still throttled is counted.
     * @param now the time
     */
    void end(long now) {
        this.read.end(now);
        this.write.end(now);
    }

    /** One direction's shaping: its bucket, whether it ran dry, the time it waits and the timer's wake. */
    private static final class Side {

        private final ShapingControl control;

        private final boolean reads;

        private final Runnable wake;

        private final TokenBucket own = new TokenBucket();

        /** Whether the connection spent all it was offered: it waits for a worthwhile amount. */
        private boolean dry;

        /** Whether it waits now, and since when. */
        private boolean throttled;

        private long since;

        /** Whether a wake is set, and when for, in {@link System#nanoTime()}. */
        private boolean wakeSet;

        private long wakeAt;

        Side(ShapingControl control, boolean reads, Runnable wake) {
            this.control = control;
            this.reads = reads;
            this.wake = wake;
        }

        int allowance(long now) {
            Shaping shaping = this.control.shaping();
            long rate = this.reads ? shaping.connectionRead() : shaping.connectionWrite();
            long total = this.reads ? shaping.totalRead() : shaping.totalWrite();
            long allowance = this.own.refill(rate, now);
            long wait = 0;
            if (allowance < (this.dry ? TokenBucket.wakeLevel(rate) : 1)) {
                wait = Math.max(1, this.own.nanosUntil(TokenBucket.wakeLevel(rate)));
            }
            if (total != 0) {
                long share = this.control.share(this.reads, total, this.dry ? TokenBucket.wakeLevel(total) : 1, now);
                allowance = Math.min(allowance, share);
                wait = Math.max(wait, (share > 0) ? 0 : -share);
            }
            if (wait == 0) {
                this.dry = false;
                if (this.throttled) {
                    this.throttled = false;
                    this.control.throttled(this.reads, now - this.since);
                }
                return (int) Math.min(allowance, Integer.MAX_VALUE);
            }
            this.dry = true;
            if (!this.throttled) {
                this.throttled = true;
                this.since = now;
            }
            wait = Math.min(wait, ShapingControl.LONGEST_WAIT_NANOS);
            if (!this.wakeSet || this.wakeAt - now <= 0) {
                this.wakeSet = this.control.schedule(this.wake, wait);
                this.wakeAt = now + wait;
            }
            return 0;
        }

        void took(int bytes, int allowance) {
            Shaping shaping = this.control.shaping();
            this.own.take(bytes);
            if ((this.reads ? shaping.totalRead() : shaping.totalWrite()) != 0) {
                this.control.took(this.reads, bytes);
            }
            if (bytes >= allowance) {
                // All it was offered went: the next waits for a worthwhile amount.
                this.dry = true;
            }
        }

        void end(long now) {
            if (this.throttled) {
                this.throttled = false;
                this.control.throttled(this.reads, now - this.since);
            }
        }
    }
}
