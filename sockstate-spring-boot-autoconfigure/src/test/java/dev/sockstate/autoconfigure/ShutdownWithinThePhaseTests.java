package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The stop ends within {@code spring.lifecycle.timeout-per-shutdown-phase}, as Spring Boot expects
 * of a bean of the phase: a handler call that does not return is not waited for past it. Its worker
 * is interrupted and named in a warning before the context goes on to destroy the beans the handler
 * may use (and the core logs a warning naming the thread).
 */
class ShutdownWithinThePhaseTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
            .withUserConfiguration(StuckConfiguration.class)
            .withPropertyValues("sockstate.workers.threads=1", "sockstate.listeners.stuck.address=127.0.0.1",
                    "sockstate.listeners.stuck.port=0", "spring.lifecycle.timeout-per-shutdown-phase=2s");

    @Test
    void aHandlerCallThatDoesNotReturnIsInterruptedBeforeTheContextCloses() throws Exception {
        AtomicReferenceHolder holder = new AtomicReferenceHolder();
        AtomicLong closing = new AtomicLong();
        this.runner.run((context) -> {
            Stuck stuck = context.getBean(Stuck.class);
            holder.stuck = stuck;
            int port = context.getEnvironment().getProperty("local.sockstate.stuck.port", Integer.class);
            holder.client = new Socket(InetAddress.getLoopbackAddress(), port);
            holder.client.getOutputStream().write(1);
            assertThat(stuck.entered.await(5, TimeUnit.SECONDS)).as("the handler call began").isTrue();
            closing.set(System.nanoTime());
        });
        long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing.get());
        try (Socket client = holder.client) {
            // The stop interrupts the worker and does not wait for it: the call notices on its own thread,
            // perhaps after the close returned, so its end is awaited before what it saw is read.
            assertThat(holder.stuck.ended.await(1, TimeUnit.SECONDS)).as("the call ended with the context's close").isTrue();
            assertThat(holder.stuck.interrupted).as("the stuck call was interrupted by the stop").isTrue();
            assertThat(closeMillis).as("the close, within the 2 s phase (and a margin for this machine)").isLessThan(2800);
        }
    }

    /** Holds what the context's callback leaves for after its close. */
    static final class AtomicReferenceHolder {

        Stuck stuck;

        Socket client;
    }

    @Configuration(proxyBeanMethods = false)
    static class StuckConfiguration {

        @Bean
        Stuck stuck() {
            return new Stuck();
        }
    }

    /** A handler whose call does not return unless interrupted. */
    @SocketHandler("stuck")
    static class Stuck {

        final CountDownLatch entered = new CountDownLatch(1);

        final CountDownLatch ended = new CountDownLatch(1);

        volatile boolean interrupted;

        @OnData
        void onData(ByteBuffer data) {
            this.entered.countDown();
            try {
                Thread.sleep(60_000);
            }
            catch (InterruptedException ex) {
                noticeLate();
                this.interrupted = true;
                Thread.currentThread().interrupt();
            }
            finally {
                this.ended.countDown();
            }
        }

        /** Takes 300 ms, as a thread on a loaded machine may before it runs again: the stop does not wait for it. */
        private static void noticeLate() {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                Thread.interrupted();
                LockSupport.parkNanos(left);
            }
        }
    }
}
