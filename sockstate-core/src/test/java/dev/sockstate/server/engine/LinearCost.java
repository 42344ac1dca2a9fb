package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.framing.Framing;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * That a decoder of a peer's bytes costs in proportion to the bytes, not to their square: a frame
 * arriving in many small reads must cost about what it costs arriving at once, where a decoder that
 * parses the held bytes from their start at each read (or a buffer that grows by a read at a time)
 * costs the square of the frame's length. Judged by the CPU time the calling thread spends on a run
 * at a size and at eight times that size, each an average over runs that take 150 ms together, after
 * a warm-up: a linear cost grows about eightfold, a quadratic one sixty-fourfold, and the bound,
 * twenty-fourfold, lies between, so that neither a slow machine nor a pause decides it. A round that
 * exceeds the bound is measured again, up to {@value #ROUNDS} rounds: code the JIT compiler has not
 * finished compiling yet (a path the larger size takes first, on a busy machine) runs several times
 * slower for a while, and a cost that is quadratic exceeds the bound in every round.
 */
public final class LinearCost {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final int GROWTH = 8;

    private static final int MOST_GROWTH_OF_COST = 24;

    /** How much CPU time the runs at one size take at least, in nanoseconds. */
    private static final long MEASURED = 150_000_000;

    private static final int ROUNDS = 4;

    private LinearCost() {
    }

    /**
     * @param what what is run, for the failure's message
     * @param size the smaller size
     * @param run one run at a size
     */
    public static void assertLinear(String what, int size, IntConsumer run) {
        assumeTrue(THREADS.isCurrentThreadCpuTimeSupported(), "the JVM measures a thread's CPU time");
        for (int i = 0; i < 3; i++) {
            run.accept(size);
        }
        run.accept(GROWTH * size);
        StringBuilder rounds = new StringBuilder();
        for (int round = 1; round <= ROUNDS; round++) {
            long small = perRun(run, size);
            long large = perRun(run, GROWTH * size);
            if (large <= MOST_GROWTH_OF_COST * small) {
                return;
            }
            rounds.append(String.format("%n  round %d: %d µs against %d µs, %.1f times", round, large / 1000, small / 1000,
                    (double) large / small));
        }
        throw new AssertionError(String.format("%s: the CPU time of a run at %d bytes grew more than %d times that of a run at"
                + " %d bytes in each of %d rounds:%s", what, GROWTH * size, MOST_GROWTH_OF_COST, size, ROUNDS, rounds));
    }

    /**
     * Asserts that frames of a framing cost in proportion to their bytes, arriving in reads of a given
     * size through a whole connection in memory.
     * @param what the frames, for the failure's message
     * @param framing the framing, whose max-frame-size lets the larger frames through
     * @param readSize the bytes of each read
     * @param size the smaller size
     * @param frames the bytes a peer sends for a size: whole frames, each delivered to the handler
     */
    public static void assertLinear(String what, Framing framing, int readSize, int size, IntFunction<byte[]> frames) {
        assertLinear(what, size, (bytes) -> feed(framing, readSize, frames.apply(bytes)));
    }

    private static void feed(Framing framing, int readSize, byte[] input) {
        long[] delivered = new long[1];
        ConnectionHandler handler = new ConnectionHandler() {

            @Override
            public void onData(Connection connection, ByteBuffer data) {
                delivered[0] += data.remaining();
                data.position(data.limit());
            }
        };
        ListenerSettings settings = ListenerSettings.tcp("cost").address(InetAddress.getLoopbackAddress()).portNumber(7000)
                .framing(framing).handler(handler).build();
        try (EmbeddedConnection connection = EmbeddedConnection.open(settings)) {
            for (int at = 0; at < input.length; at += readSize) {
                connection.writeInbound(Arrays.copyOfRange(input, at, Math.min(input.length, at + readSize)));
            }
            assertThat(connection.errors()).as("errors of a connection sent %d bytes", input.length).isEmpty();
        }
        assertThat(delivered[0]).as("bytes delivered of %d", input.length).isPositive();
    }

    /**
     * @return the CPU time of one run, averaged over as many runs as make up {@link #MEASURED} of it
     * (a system that counts a thread's time in ticks of 15 ms, as Windows does, then counts it too)
     */
    private static long perRun(IntConsumer run, int size) {
        long start = THREADS.getCurrentThreadCpuTime();
        long spent;
        int runs = 0;
        do {
            run.accept(size);
            runs++;
            spent = THREADS.getCurrentThreadCpuTime() - start;
        }
        while (spent < MEASURED && runs < 1000);
        return spent / runs;
    }
}
