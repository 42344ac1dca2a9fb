package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packaged sample, processed by Spring AOT at build time, run as users run it
 * ({@code java -Dspring.aot.enabled=true -jar sample-app.jar}): it starts from the generated
 * initializer (Spring says "AOT-processed"), logs the ports its listeners bound, serves RESP through
 * its handler and custom codec, and stops on SIGTERM.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AotSampleIT {

    @Test
    void theAotProcessedSampleStartsAndServes() throws Exception {
        PackagedSample sample = new PackagedSample("-Dspring.aot.enabled=true", "--enable-native-access=ALL-UNNAMED");
        try (sample) {
            int resp = sample.boundPort("resp");
            String output = sample.output();
            assertThat(resp).as(output).isPositive();
            assertThat(output).contains("Starting AOT-processed SampleApplication");
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), resp)) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = client.getInputStream();
                assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
            }
        }
        assertThat(sample.exitValue()).as("stopped on SIGTERM within 30 s").isNotEqualTo(137);
    }
}
