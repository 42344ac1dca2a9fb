package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.admission.Rate;
import dev.sockstate.server.admission.Refusal;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a listener's admission keeps of its sources, without sockets: bounded whatever the number of
 * sources that come, which a flood from a million addresses must not grow.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdmissionControlTest {

    @Test
    void aMillionSourcesLeaveNoMoreThanTheBoundKeptAndTheHeapDoesNotGrowWithThem() throws Exception {
        AdmissionControl admission = new AdmissionControl(Admission.builder().sourceRate(new Rate(10, 5)).build());
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        feed(admission, 0, 200_000);
        assertThat(admission.sources()).isEqualTo(Admission.DEFAULT_MAX_SOURCES);
        long plateau = usedAfterGc(memory);
        feed(admission, 200_000, 1_000_000);
        long after = usedAfterGc(memory);
        assertThat(admission.sources()).as("sources kept after a million").isEqualTo(Admission.DEFAULT_MAX_SOURCES);
        assertThat(after - plateau).as("heap growth from 200,000 to 1,000,000 sources, in bytes (unbounded, it would be"
                + " some 120 MB)").isLessThan(8L * 1024 * 1024);
    }

    @Test
    void aSourceWithOpenConnectionsIsNeverForgottenSoItsCapHolds() throws Exception {
        AdmissionControl admission = new AdmissionControl(Admission.builder().maxConnectionsPerSource(1).maxSources(4).build());
        InetAddress held = InetAddress.getByName("2001:db8::1");
        AdmissionControl.Verdict first = admission.admitSource(held, System.nanoTime());
        assertThat(first.source()).isNotNull();
        feed(admission, 10, 1_000);
        assertThat(admission.admitSource(held, System.nanoTime()).refusal()).as("the held source again").isEqualTo(Refusal.SOURCE_LIMIT);
        admission.release(first.source());
        assertThat(admission.admitSource(held, System.nanoTime()).refusal()).as("once its connection ended").isNull();
    }

    @Test
    void anIpv4AndAnIpv6NetworkWithTheSameBitsAreTwoSources() throws Exception {
        AdmissionControl admission = new AdmissionControl(Admission.builder().maxConnectionsPerSource(1).sourcePrefixes(8, 8).build());
        assertThat(admission.admitSource(InetAddress.getByName("10.1.2.3"), System.nanoTime()).refusal()).isNull();
        assertThat(admission.admitSource(InetAddress.getByName("a00::1"), System.nanoTime()).refusal()).isNull();
        assertThat(admission.admitSource(InetAddress.getByName("10.200.0.1"), System.nanoTime()).refusal()).isEqualTo(Refusal.SOURCE_LIMIT);
    }

    /** Admits one connection from each of the IPv6 sources numbered from {@code first} to {@code last}, each ended at once. */
    private static void feed(AdmissionControl admission, int first, int last) throws Exception {
        ByteBuffer bytes = ByteBuffer.allocate(16);
        for (int i = first; i < last; i++) {
            bytes.clear();
            bytes.putLong(0x20010db8_00000000L).putLong(i);
            AdmissionControl.Verdict verdict = admission.admitSource(InetAddress.getByAddress(bytes.array()), System.nanoTime());
            if (verdict.source() != null) {
                admission.release(verdict.source());
            }
        }
    }

    private static long usedAfterGc(MemoryMXBean memory) throws InterruptedException {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }
}
