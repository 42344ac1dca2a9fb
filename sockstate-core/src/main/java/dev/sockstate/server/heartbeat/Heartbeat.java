package dev.sockstate.server.heartbeat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext.Deadline;
import dev.sockstate.server.StageContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A heartbeat on each connection of a listener: after {@link #idle()} without a byte from the peer, a
 * ping goes out (fixed bytes, or what a {@link Pinger} makes for the connection); when no byte comes
 * within {@link #timeout()} after it, the connection is aborted with a {@link HeartbeatTimeoutException},
 * which its handler's {@code onError} receives. Any byte counts as an answer, and reaches the handler
 * like every other: a protocol whose peer answers a ping (Redis' {@code PING}, MQTT's {@code PINGREQ},
 * a line the application defines) is served as it is.
 * <p>
 * It is only a stage: given to {@code ConnectionSettings.Builder#stage} (it makes each connection's),
 * after TLS, so that its ping is encrypted, and before the framing. It keeps one deadline per
 * connection on the server's timer, moved only when it fires (a read costs a clock read), and counts
 * the pings it sent and the connections it aborted. A connection whose writes are backed up (not
 * {@linkplain Connection#isWritable() writable}: its reading paused until they drain) is neither pinged
 * nor aborted: its peer is slow, not silent. The ping is written as the handler's writes are, so it
 * may fall between two writes the handler meant as one message: a protocol that frames its messages
 * (each write one frame) keeps its frames whole.
 */
public final class Heartbeat implements Supplier<Stage> {

    private final Duration idle;

    private final Duration timeout;

    private final Pinger pinger;

    private final LongAdder pings = new LongAdder();

    private final LongAdder timeouts = new LongAdder();

    private Heartbeat(Duration idle, Duration timeout, Pinger pinger) {
        this.idle = requirePositive(idle, "idle time");
        this.timeout = requirePositive(timeout, "timeout");
        this.pinger = Objects.requireNonNull(pinger, "pinger");
    }

    /**
     * @param idle quiet time after which the ping goes out
     * @param timeout how long an answer is awaited after it
     * @param ping the bytes of the ping, copied
     * @return the heartbeat
     * @throws IllegalArgumentException when a time is not positive, or the ping has no byte
     */
    public static Heartbeat of(Duration idle, Duration timeout, byte[] ping) {
        if (ping.length == 0) {
            throw new IllegalArgumentException("A heartbeat's ping needs at least one byte");
        }
        byte[] copy = ping.clone();
        return new Heartbeat(idle, timeout, (connection) -> ByteBuffer.wrap(copy));
    }

    /**
     * @param idle quiet time after which the ping goes out
     * @param timeout how long an answer is awaited after it
     * @param pinger makes each ping
     * @return the heartbeat
     * @throws IllegalArgumentException when a time is not positive
     */
    public static Heartbeat of(Duration idle, Duration timeout, Pinger pinger) {
        return new Heartbeat(idle, timeout, pinger);
    }

    private static Duration requirePositive(Duration duration, String what) {
        if (duration == null || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("A heartbeat's " + what + " must be positive, not " + duration);
        }
        return duration;
    }

    /** @return quiet time after which the ping goes out */
    public Duration idle() {
        return this.idle;
    }

    /** @return how long an answer is awaited after the ping */
    public Duration timeout() {
        return this.timeout;
    }

    /** @return the pings sent so far, on every connection */
    public long pings() {
        return this.pings.sum();
    }

    /** @return the connections aborted so far because no byte answered a ping in time */
    public long timeouts() {
        return this.timeouts.sum();
    }

    /** @return a new connection's stage */
    @Override
    public Stage get() {
        return new HeartbeatStage();
    }

    @Override
    public String toString() {
        return "Heartbeat[idle=" + this.idle + ", timeout=" + this.timeout + "]";
    }

    /** Makes a connection's ping: a bean of the application, say, that knows its protocol. */
    @FunctionalInterface
    public interface Pinger {

        /**
         * @param connection the quiet connection
         * @return the ping's bytes (consumed as written), {@code null} to send none this time (the answer is still awaited)
         */
        @Nullable ByteBuffer ping(Connection connection);
    }

    /** One connection's heartbeat: its owner's thread alone calls it, stage methods and deadlines alike. */
    private final class HeartbeatStage implements Stage {

        private @Nullable StageContext context;

        private Deadline deadline = Deadline.NONE;

        /** When the peer's last byte came, in {@link System#nanoTime()}. */
        private long lastInbound;

        /** When the ping went out, 0 while none awaits an answer. */
        private long pinged;

        private boolean closed;

        @Override
        public void open(StageContext context) {
            this.context = context;
            this.lastInbound = System.nanoTime();
            watch(Heartbeat.this.idle.toNanos());
            context.passOpen();
        }

        @Override
        public void data(StageContext context, ByteBuffer data) {
            this.lastInbound = System.nanoTime();
            context.passData(data);
        }

        @Override
        public void closed(StageContext context) {
            this.closed = true;
            this.deadline.cancel();
        }

        private void watch(long nanos) {
            this.deadline = this.context.deadline(Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), nanos)), this::check);
        }

        private void check() {
            if (this.closed) {
                return;
            }
            long now = System.nanoTime();
            if (!this.context.connection().isWritable()) {
                // Backed up: reading is paused until the queued writes drain (so no byte can come), and a ping
                // would wait behind them. The peer is slow, not silent: the quiet time starts again.
                this.lastInbound = now;
                this.pinged = 0;
                watch(Heartbeat.this.idle.toNanos());
                return;
            }
            if (this.pinged != 0 && this.lastInbound - this.pinged < 0) {
                long waited = now - this.pinged;
                if (waited >= Heartbeat.this.timeout.toNanos()) {
                    Heartbeat.this.timeouts.increment();
                    this.context.abort(new HeartbeatTimeoutException(Heartbeat.this.idle, Heartbeat.this.timeout));
                    return;
                }
                watch(Heartbeat.this.timeout.toNanos() - waited);
                return;
            }
            this.pinged = 0;
            long quiet = now - this.lastInbound;
            if (quiet < Heartbeat.this.idle.toNanos()) {
                watch(Heartbeat.this.idle.toNanos() - quiet);
                return;
            }
            ByteBuffer ping = Heartbeat.this.pinger.ping(this.context.connection());
            if (ping != null) {
                // Counted first: the peer may read it before the write returns.
                Heartbeat.this.pings.increment();
                this.context.write(ping);
            }
            this.pinged = now;
            watch(Heartbeat.this.timeout.toNanos());
        }
    }
}
