package dev.sockstate.benchmarks.e2e;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

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

    /**
     * @param servers the servers, in the legend's order
     * @param figures each server's figures, a round each
     * @return the TLS comparison's charts: echo messages/s and CPU per message, handshakes/s and CPU per handshake,
     * bytes per idle connection
     */
    static List<Chart> tls(List<ServerKind> servers, Map<ServerKind, List<TlsComparison.Figures>> figures) {
        Function<ToDoubleFunction<TlsComparison.Figures>, Function<ServerKind, Spread>> spread = (value) -> (server) -> Spread
                .of(figures.getOrDefault(server, List.of()).stream().map((f) -> value.applyAsDouble(f)).toList());
        return List.of(
                chart("tls-messages.svg", "TLS 1.3 echo: messages/s", "1 KiB on 64 connections; " + HIGHER, "messages/s", servers,
                        List.of(one("echo 1 KiB x64", servers, spread.apply(TlsComparison.Figures::messagesPerSecond)))),
                chart("tls-cpu-per-message.svg", "TLS 1.3 echo: server CPU µs per message", "1 KiB on 64 connections; " + LOWER,
                        "µs per message", servers, List.of(one("echo 1 KiB x64", servers,
                                spread.apply(TlsComparison.Figures::cpuMicrosPerMessage)))),
                chart("tls-connections.svg", "TLS 1.3 connections/s", "Connect, full handshake, echo 1 KiB, close, from 4 threads; "
                        + HIGHER, "connections/s", servers, List.of(one("full handshake", servers,
                                spread.apply(TlsComparison.Figures::connectionsPerSecond)))),
                chart("tls-cpu-per-connection.svg", "TLS 1.3: server CPU µs per connection", "Connect, full handshake, echo 1 KiB,"
                        + " close; " + LOWER, "µs per connection", servers, List.of(one("full handshake", servers,
                                spread.apply(TlsComparison.Figures::cpuMicrosPerConnection)))),
                chart("tls-cpu-per-resumed.svg", "TLS 1.3: server CPU µs per resumed connection", "Connect, resumed handshake (a"
                        + " ticket), echo 1 KiB, close; " + LOWER, "µs per connection", servers, List.of(one("resumed handshake",
                                servers, spread.apply(TlsComparison.Figures::cpuMicrosPerResumed)))),
                chart("tls-idle-memory.svg", "Memory per idle TLS connection: bytes", "Growth of heap in use and native buffers"
                        + " after a full collection; " + LOWER, "bytes per connection", servers, List.of(one("idle TLS connections",
                                servers, spread.apply((f) -> f.heapPerIdle() + f.nativePerIdle())))));
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
