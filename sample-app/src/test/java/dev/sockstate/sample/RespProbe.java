package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** One RESP request to a listener on a connection of its own, as the fault tests ask the proxy. */
final class RespProbe {

    private RespProbe() {
    }

    /** @return the first line of the listener's reply to the inline request, within 10 s */
    static String ask(int port, String request) throws IOException {
        try (Socket client = new Socket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            client.setSoTimeout(10_000);
            client.getOutputStream().write((request + "\r\n").getBytes(StandardCharsets.UTF_8));
            return new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8)).readLine();
        }
    }

    /** Asks again every 20 ms until the reply's first line is the answer, failing after the seconds given. */
    static void awaitAnswer(int port, String request, String answer, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String last = null;
        while (System.nanoTime() < deadline) {
            last = ask(port, request);
            if (answer.equals(last)) {
                return;
            }
            Thread.sleep(20);
        }
        assertThat(last).as("the proxy's answer to %s within %d s", request, seconds).isEqualTo(answer);
    }
}
