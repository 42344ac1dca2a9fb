package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.boot.test.LocalListenerPort;
import dev.sockstate.sample.resp.KeyValueStore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The RESP listener's store within its bounds ({@code sample.resp.store.*}), as {@code redis-cli}
 * sees them: a write past them is refused with Redis' OOM error and stores nothing, and what a
 * delete or a shorter value frees serves again.
 */
@SpringBootTest(properties = { "management.server.port=0", "server.port=0", "sample.resp.store.max-keys=3",
        "sample.resp.store.max-size=2KB" })
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@DirtiesContext
class KeyValueStoreBoundsTests {

    @LocalListenerPort("resp")
    private String port;

    @Autowired
    private KeyValueStore store;

    @Test
    void writesPastTheStoresBoundsAreRefusedWithAnOomErrorAndStoreNothing() throws Exception {
        RealTools.require("redis-cli");
        String large = "x".repeat(1500);
        assertThat(cli("set", "large", large)).isEqualTo("OK");
        assertThat(cli("set", "second", large)).as("1505 + 1506 B > 2 KiB").startsWith("OOM command not allowed");
        assertThat(cli("exists", "second")).isEqualTo("0");
        assertThat(cli("incr", "one")).isEqualTo("1");
        assertThat(cli("incr", "two")).isEqualTo("1");
        assertThat(cli("incr", "three")).as("a fourth key").startsWith("OOM command not allowed");
        assertThat(cli("set", "three", "3")).startsWith("OOM command not allowed");
        assertThat(this.store.size()).isEqualTo(3);
        assertThat(cli("del", "large")).isEqualTo("1");
        assertThat(cli("set", "second", large)).as("after the delete").isEqualTo("OK");
        assertThat(cli("get", "second")).isEqualTo(large);
        assertThat(this.store.bytes()).isEqualTo(6 + 1500 + 3 + 1 + 3 + 1);
    }

    private String cli(String... arguments) throws Exception {
        String[] command = new String[arguments.length + 3];
        command[0] = "redis-cli";
        command[1] = "-p";
        command[2] = this.port;
        System.arraycopy(arguments, 0, command, 3, arguments.length);
        return RealTools.run(null, command);
    }
}
