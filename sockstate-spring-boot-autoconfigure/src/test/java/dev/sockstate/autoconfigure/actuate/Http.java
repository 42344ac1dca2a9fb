package dev.sockstate.autoconfigure.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.json.JsonParserFactory;

/** Plain HTTP calls to the Actuator of a test application, as a user's tools would make them. */
final class Http {

    private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final int port;

    Http(int port) {
        this.port = port;
    }

    HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    Map<String, Object> json(String path) throws Exception {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JsonParserFactory.getJsonParser().parseMap(response.body());
    }

    /** @return the value of a meter's statistic, from {@code /actuator/metrics/NAME?tag=...} */
    @SuppressWarnings("unchecked")
    double metric(String name, String statistic, String... tags) throws Exception {
        StringBuilder path = new StringBuilder("/actuator/metrics/").append(name);
        for (int i = 0; i < tags.length; i++) {
            path.append((i == 0) ? '?' : '&').append("tag=").append(tags[i]);
        }
        List<Map<String, Object>> measurements = (List<Map<String, Object>>) json(path.toString()).get("measurements");
        return measurements.stream().filter((measurement) -> statistic.equals(measurement.get("statistic")))
                .mapToDouble((measurement) -> ((Number) measurement.get("value")).doubleValue()).findFirst()
                .orElseThrow(() -> new AssertionError(name + " has no " + statistic));
    }
}
