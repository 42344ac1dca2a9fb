package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.client.SocketClient;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A client's heartbeat against a real {@code redis-server} ({@link RedisServer}): its pool connection,
 * quiet, is pinged with {@code PING}, which Redis counts among the commands it ran, and answers with
 * {@code +PONG}, which never reaches a request: the client's own request after the pings gets its
 * own reply. Needs redis-server and redis-cli: skipped without them, failed when {@code CI} is set.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientHeartbeatRedisTests {

    @Test
    void aQuietPoolConnectionIsPingedAndRedisAnswersEachPingApart() throws Exception {
        RedisServer redis = RedisServer.shared();
        long pingsBefore = pings(redis);
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SockstateAutoConfiguration.class))
                .withPropertyValues("sockstate.clients.cache.address=127.0.0.1:" + redis.port(), "sockstate.clients.cache.framing.type=line",
                        "sockstate.clients.cache.heartbeat.idle=100ms", "sockstate.clients.cache.heartbeat.timeout=2s",
                        "sockstate.clients.cache.heartbeat.ping=PING", "sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    SocketClient cache = context.getBean(SocketClient.class);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (pings(redis) - pingsBefore < 3 && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                    }
                    assertThat(pings(redis) - pingsBefore).as("PINGs redis-server ran").isGreaterThanOrEqualTo(3);
                    assertThat(cache.request("INCRBY heartbeat-test 7", String.class).get(5, TimeUnit.SECONDS))
                            .as("a request's own reply, not a PONG").matches(":[0-9]+");
                    assertThat(cache.connections()).hasSize(1);
                });
    }

    /** @return the PING commands redis-server ran so far (redis-cli's own among them) */
    private static long pings(RedisServer redis) throws Exception {
        String stats = RealTools.output(null, "redis-cli", "-p", String.valueOf(redis.port()), "info", "commandstats");
        Matcher matcher = Pattern.compile("cmdstat_ping:calls=(\\d+)").matcher(stats);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
