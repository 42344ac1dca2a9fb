package dev.sockstate.benchmarks.e2e;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The charts of a run, from the same medians and ranges over rounds as the report's tables
 * ({@link Samples}, {@link Spread}): for the ping-pong loads, messages/s and server CPU per message,
 * a group per load and a bar per server; when they ran, connections/s and bytes per idle connection,
 * a bar per server.
 */
final class Charts {

    /**
     * One chart and the file it goes to.
     *
     * @param file the file's name, such as {@code messages.svg}
     * @param title what it shows
     * @param chart the chart
     */
    record Chart(String file, String title, BarChart chart) {
    }

    private static final String HIGHER = "median of the rounds, whisker min–max; higher is better";

    private static final String LOWER = "median of the rounds, whisker min–max; lower is better";

    private Charts() {
    }

    /**
     * @param samples the run's measurements
     * @param servers the servers, in the legend's order
     * @param scenarios the ping-pong loads, in the order they ran
     * @return the charts of what ran
     */
    static List<Chart> of(Samples samples, List<ServerKind> servers, List<Scenario> scenarios) {
        List<Chart> charts = new ArrayList<>();
        if (!scenarios.isEmpty() && !samples.throughput.isEmpty()) {
            String echo = EchoServer.linesFramed() ? "Line-framed ping-pong" : "Closed-loop ping-pong";
            charts.add(chart("messages.svg", echo + ": messages/s", "A group per load; " + HIGHER, "messages/s", servers,
                    perLoad(scenarios, servers, (server, scenario) -> samples.throughput(server, scenario,
                            PingPong.Result::messagesPerSecond))));
            charts.add(chart("cpu-per-message.svg", echo + ": server CPU µs per message", "A group per load; the server's user + system"
                    + " time per message; " + LOWER, "µs per message", servers, perLoad(scenarios, servers,
                            (server, scenario) -> samples.throughput(server, scenario, PingPong.Result::cpuMicrosPerMessage))));
        }
        if (!samples.rates.isEmpty()) {
            charts.add(chart("connections.svg", "Connection rate: connections/s", "Connect, echo 64 B, close; " + HIGHER,
                    "connections/s", servers, List.of(one("connect, echo, close", servers,
                            (server) -> samples.rate(server, ConnectionRate.Result::connectionsPerSecond)))));
        }
        if (!samples.idle.isEmpty()) {
            int connections = samples.idle.get(0).result().connections();
            charts.add(chart("idle-memory.svg", "Memory per idle connection: bytes", "Growth of heap in use and native buffers"
                    + " after a full collection; " + LOWER, "bytes per connection", servers, List.of(one(connections
                            + " idle connections", servers, (server) -> samples.idle(server, IdleConnections.Result::bytesPerConnection)))));
        }
        return charts;
    }

    private static Chart chart(String file, String title, String subtitle, String unit, List<ServerKind> servers,
            List<BarChart.Group> groups) {
        return new Chart(file, title, new BarChart(title, subtitle, unit, servers, groups));
    }

    private static List<BarChart.Group> perLoad(List<Scenario> scenarios, List<ServerKind> servers,
            BiFunction<ServerKind, Scenario, Spread> spread) {
        List<BarChart.Group> groups = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            groups.add(one(scenario.name(), servers, (server) -> spread.apply(server, scenario)));
        }
        return groups;
    }

    private static BarChart.Group one(String label, List<ServerKind> servers, Function<ServerKind, Spread> spread) {
        Map<ServerKind, Spread> spreads = new EnumMap<>(ServerKind.class);
        for (ServerKind server : servers) {
            spreads.put(server, spread.apply(server));
        }
        return new BarChart.Group(label, spreads);
    }
}
