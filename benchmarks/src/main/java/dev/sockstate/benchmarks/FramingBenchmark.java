package dev.sockstate.benchmarks;

import dev.sockstate.port.Backends;
import dev.sockstate.server.engine.FramingFixture;
import dev.sockstate.server.framing.Framing;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What framing costs per frame, the system calls left out: a read of 16 frames handed to a listener's
 * framing, each frame passed to a handler that only counts it. {@code wholeFrames}: every frame lies
 * whole in the read, as when a peer pipelines (each passed as a view of the read's buffer);
 * {@code framesSplitAcrossReads}: the same bytes in two reads cut in the middle of a frame, so one
 * frame a read is kept and completed from the next. Run with {@code -prof gc}: whole frames allocate
 * nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class FramingBenchmark {

    private static final int FRAMES = 16;

    /** The framing: LF-terminated lines, or a 4-byte length before each frame. */
    @Param({ "line", "length-field" })
    public String framing;

    /** Each frame's content in bytes. */
    @Param({ "64", "1024" })
    public int size;

    private FramingFixture fixture;

    private ByteBuffer read;

    private int half;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        boolean lines = this.framing.equals("line");
        this.fixture = new FramingFixture(Backends.select("auto"),
                lines ? Framing.line() : Framing.lengthField(0, 4, ByteOrder.BIG_ENDIAN, 0, 4));
        int frame = this.size + (lines ? 1 : 4);
        this.read = ByteBuffer.allocateDirect(frame * FRAMES);
        for (int f = 0; f < FRAMES; f++) {
            if (!lines) {
                this.read.putInt(this.size);
            }
            for (int i = 0; i < this.size; i++) {
                this.read.put((byte) ('a' + i % 26));
            }
            if (lines) {
                this.read.put((byte) '\n');
            }
        }
        // Cut mid-frame: the first read ends half-way into its ninth frame.
        this.half = frame * (FRAMES / 2) + frame / 2;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (this.fixture.frames() == 0 || this.fixture.keepsPartialFrame()) {
            throw new IllegalStateException("The framing passed " + this.fixture.frames() + " frames and kept "
                    + (this.fixture.keepsPartialFrame() ? "an unfinished one" : "none"));
        }
        this.fixture.close();
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long wholeFrames() {
        this.read.clear();
        this.fixture.read(this.read);
        return this.fixture.frames();
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long framesSplitAcrossReads() {
        this.read.limit(this.half).position(0);
        this.fixture.read(this.read);
        this.read.limit(this.read.capacity()).position(this.half);
        this.fixture.read(this.read);
        return this.fixture.frames();
    }
}
