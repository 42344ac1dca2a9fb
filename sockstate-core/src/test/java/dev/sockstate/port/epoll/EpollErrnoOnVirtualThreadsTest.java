package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Each binding's errno is the calling thread's on virtual threads: hundreds of them, on the few
 * carrier threads they share, make failing calls that fail each their own way, unmount between calls
 * (so that another runs on the same carrier between one's calls), and each reads back its own
 * call's errno. JNA keeps errno per carrier and reads it in the next native call, with no point in
 * between where a virtual thread could leave its carrier; the FFM binding captures it per call.
 */
@EnabledOnOs(OS.LINUX)
@EnabledForJreRange(minVersion = 21)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollErrnoOnVirtualThreadsTest {

    private static final int THREADS = 256;

    private static final int CALLS = 2_000;

    @Test
    void jnasErrnoIsEachVirtualThreadsOwn() throws Exception {
        assertThat(wrongErrnos(new LinuxNative.Binding())).as("calls that read another call's errno").isEmpty();
    }

    @Test
    @EnabledForJreRange(minVersion = 22)
    void theFfmBindingsErrnoIsEachVirtualThreadsOwn() throws Exception {
        assertThat(wrongErrnos(BindingChoice.loadFfm())).as("calls that read another call's errno").isEmpty();
    }

    /** @return a line for each call whose errno was not its own failure's, at most 10 */
    private static List<String> wrongErrnos(EpollCalls calls) throws Exception {
        int eventFd = calls.eventfd(0, LinuxAbi.EFD_NONBLOCK | LinuxAbi.EFD_CLOEXEC);
        assertThat(eventFd).as("eventfd").isNotNegative();
        ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        List<Future<List<String>>> results = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                results.add(virtualThreads.submit(() -> {
                    List<String> wrong = new ArrayList<>();
                    for (int i = 0; i < CALLS && wrong.size() < 10; i++) {
                        // Half the threads close a descriptor that does not exist, half shut down one that is no socket.
                        boolean badDescriptor = (thread + i) % 2 == 0;
                        int result = badDescriptor ? calls.close(-1) : calls.shutdown(eventFd, 0);
                        int errno = calls.errno();
                        int expected = badDescriptor ? Errno.EBADF : Errno.ENOTSOCK;
                        if (result != -1 || errno != expected) {
                            wrong.add("thread " + thread + ", call " + i + ": " + result + ", errno " + errno + " for " + expected);
                        }
                        if (i % 3 == 0) {
                            Thread.yield();
                        }
                        else if (i % 3 == 1) {
                            LockSupport.parkNanos(1_000);
                        }
                    }
                    return wrong;
                }));
            }
            List<String> wrong = new ArrayList<>();
            for (Future<List<String>> result : results) {
                wrong.addAll(result.get(50, TimeUnit.SECONDS));
            }
            return wrong.subList(0, Math.min(10, wrong.size()));
        }
        finally {
            virtualThreads.shutdownNow();
            calls.close(eventFd);
        }
    }
}
