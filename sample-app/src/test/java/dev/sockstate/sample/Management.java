package dev.sockstate.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Actuator over real HTTP, on the management port of the application under test. */
final class Management {

    private Management() {
    }

    /**
     * @param port the management port
     * @param path the path, {@code /actuator/...}
     * @return the body of a 200 answer
     * @throws Exception when the request fails
     */
    static String get(int port, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    /**
     * Waits until the path answers 200 (a health that is UP once a client connected, say).
     * @param port the management port
     * @param path the path, {@code /actuator/...}
     * @throws Exception when the request fails, or it does not answer 200 within 10 s
     */
    static void awaitOk(int port, String path) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                return;
            }
            assertThat(System.nanoTime()).as("%s answering 200; it answers %d: %s", path, response.statusCode(), response.body())
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
