package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The RESP listener against the standard Redis tools, unmodified. Needs {@code redis-cli} and
 * {@code redis-benchmark} (Debian's redis-tools, which {@code .ci/run} installs): skipped without
 * them on a developer's machine, failed without them in CI (the {@code CI} variable set).
 */
@SpringBootTest(properties = { "management.server.port=0", "server.port=0" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class RedisToolsTests {

    @LocalListenerPort("resp")
    private String port;

    @Test
    void redisCliAndRedisBenchmarkWorkAgainstTheRespListener() throws Exception {
        RealTools.require("redis-cli", "redis-benchmark");
        String port = this.port;
        assertThat(RealTools.run(null, "redis-cli", "-p", port, "ping")).isEqualTo("PONG");
        assertThat(RealTools.run(null, "redis-cli", "-p", port, "set", "greeting", "hello")).isEqualTo("OK");
        assertThat(RealTools.run(null, "redis-cli", "-p", port, "get", "greeting")).isEqualTo("hello");
        assertThat(RealTools.run(null, "redis-cli", "-p", port, "incr", "visits")).isEqualTo("1");
        String benchmark = RealTools.run(null, "redis-benchmark", "-p", port, "-t", "ping,set,get", "-n", "5000", "-c", "10", "-P", "4", "-q");
        assertThat(benchmark).contains("PING_INLINE").contains("SET").contains("GET").contains("requests per second");
    }
}
