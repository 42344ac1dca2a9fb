package dev.sockstate.benchmarks.e2e;

import java.util.List;
import java.util.Locale;

/** The results as Markdown: medians over rounds with their range, ratios to Netty, and the targets. */
final class Report {

    private final Samples samples;

    private final List<ServerKind> servers;

    private final List<Scenario> scenarios;

    Report(Samples samples, List<ServerKind> servers, List<Scenario> scenarios) {
        this.samples = samples;
        this.servers = servers;
        this.scenarios = scenarios;
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        if (!this.scenarios.isEmpty()) {
            pingPong(out);
        }
        if (!this.samples.rates.isEmpty() || !this.samples.idle.isEmpty()) {
            rateAndIdle(out);
        }
        out.append(targets());
        return out.toString();
    }

    private void pingPong(StringBuilder out) {
        out.append(EchoServer.linesFramed() ? "### Closed-loop ping-pong, line-framed (every server finds each line's end)\n\n"
                : "### Closed-loop ping-pong\n\n");
        out.append("Messages/s and server CPU per message: median (min–max) over rounds; latency: medians over rounds of each"
                + " round's percentile; ×Netty: ratio of medians.\n\n");
        out.append("| load | server | messages/s | ×Netty | p50 µs | p99 µs | p99.9 µs | server CPU µs/msg | ×Netty |\n");
        out.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Scenario scenario : this.scenarios) {
            double nettyRate = this.samples.throughput(ServerKind.NETTY, scenario, PingPong.Result::messagesPerSecond).median();
            double nettyCpu = this.samples.throughput(ServerKind.NETTY, scenario, PingPong.Result::cpuMicrosPerMessage).median();
            for (ServerKind server : this.servers) {
                Spread rate = this.samples.throughput(server, scenario, PingPong.Result::messagesPerSecond);
                Spread cpu = this.samples.throughput(server, scenario, PingPong.Result::cpuMicrosPerMessage);
                out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.0f | %.0f | %.0f | %s | %s |\n", scenario.name(),
                        server.label, rate.format("%.0f"), ratio(rate.median(), nettyRate),
                        quantile(server, scenario, 0.5), quantile(server, scenario, 0.99), quantile(server, scenario, 0.999),
                        cpu.format("%.2f"), ratio(cpu.median(), nettyCpu)));
            }
        }
    }

    private void rateAndIdle(StringBuilder out) {
        out.append("\n### Connection rate and idle connections\n\n");
        out.append("Bytes per idle connection: growth of the heap in use plus direct and other native buffers after a full"
                + " collection; resident: growth of the resident set (noisy at this size). Server CPU in user space: the"
                + " server's own code, its binding's and its runtime's (the rest is the kernel's).\n\n");
        out.append("| server | connections/s | ×Netty | server CPU µs/connection | of which user space | bytes per idle connection"
                + " | ×Netty | resident bytes per idle connection |\n");
        out.append("|---|---|---|---|---|---|---|---|\n");
        double nettyConnections = this.samples.rate(ServerKind.NETTY, ConnectionRate.Result::connectionsPerSecond).median();
        double nettyIdle = this.samples.idle(ServerKind.NETTY, IdleConnections.Result::bytesPerConnection).median();
        for (ServerKind server : this.servers) {
            Spread connections = this.samples.rate(server, ConnectionRate.Result::connectionsPerSecond);
            Spread cpu = this.samples.rate(server, ConnectionRate.Result::cpuMicrosPerConnection);
            Spread user = this.samples.rate(server, ConnectionRate.Result::userMicrosPerConnection);
            Spread idle = this.samples.idle(server, IdleConnections.Result::bytesPerConnection);
            Spread resident = this.samples.idle(server, IdleConnections.Result::residentBytesPerConnection);
            out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", server.label,
                    connections.format("%.0f"), ratio(connections.median(), nettyConnections), cpu.format("%.1f"), user.format("%.1f"),
                    idle.format("%.0f"), ratio(idle.median(), nettyIdle), resident.format("%.0f")));
        }
    }

    private double quantile(ServerKind server, Scenario scenario, double quantile) {
        return this.samples.throughput(server, scenario, (result) -> result.latency().quantile(quantile) / 1000.0).median();
    }

    private String targets() {
        if (!this.servers.contains(ServerKind.NETTY)) {
            return "";
        }
        List<ServerKind> ours = this.servers.stream().filter((kind) -> kind.label.startsWith("sockstate")).toList();
        StringBuilder out = new StringBuilder("\n### Targets (sockstate against Netty and NIO, same run)\n\n| target |");
        ours.forEach((kind) -> out.append(' ').append(kind.label).append(" |"));
        out.append("\n|---|").append("---|".repeat(ours.size())).append('\n');
        for (boolean blocks : new boolean[] {false, true}) {
            List<Scenario> loads = this.scenarios.stream().filter((scenario) -> scenario.connections() >= 64
                    && scenario.blocks() == blocks).toList();
            if (loads.isEmpty()) {
                continue;
            }
            String dealt = blocks ? "connections dealt to the client threads in blocks" : "connections dealt to the client threads in turn";
            out.append("| messages/s ≥ Netty and ≥ NIO at 64 and 256 connections, ").append(dealt).append(" (loads met) |");
            for (ServerKind kind : ours) {
                long met = loads.stream().filter((scenario) -> {
                    double rate = median(kind, scenario, PingPong.Result::messagesPerSecond);
                    return rate >= median(ServerKind.NETTY, scenario, PingPong.Result::messagesPerSecond)
                            && (!this.servers.contains(ServerKind.NIO)
                                    || rate >= median(ServerKind.NIO, scenario, PingPong.Result::messagesPerSecond));
                }).count();
                out.append(' ').append(met).append('/').append(loads.size()).append(" |");
            }
            out.append("\n| server CPU per message ≤ Netty's at 64 and 256 connections, ").append(dealt).append(" (loads met) |");
            for (ServerKind kind : ours) {
                long met = loads.stream().filter((scenario) -> median(kind, scenario, PingPong.Result::cpuMicrosPerMessage)
                        <= median(ServerKind.NETTY, scenario, PingPong.Result::cpuMicrosPerMessage)).count();
                out.append(' ').append(met).append('/').append(loads.size()).append(" |");
            }
            out.append('\n');
        }
        double nettyConnections = this.samples.rate(ServerKind.NETTY, ConnectionRate.Result::connectionsPerSecond).median();
        double nettyIdle = this.samples.idle(ServerKind.NETTY, IdleConnections.Result::bytesPerConnection).median();
        if (!Double.isNaN(nettyConnections)) {
            out.append("| connections/s ≥ 1.5× Netty's |");
            for (ServerKind server : ours) {
                double ratio = this.samples.rate(server, ConnectionRate.Result::connectionsPerSecond).median() / nettyConnections;
                out.append(String.format(Locale.ROOT, " %s (%.2f×) |", (ratio >= 1.5) ? "met" : "missed", ratio));
            }
            out.append('\n');
        }
        if (Double.isNaN(nettyIdle)) {
            return out.toString();
        }
        out.append("| memory per idle connection ≤ ¼ of Netty's |");
        for (ServerKind server : ours) {
            double ratio = this.samples.idle(server, IdleConnections.Result::bytesPerConnection).median() / nettyIdle;
            out.append(String.format(Locale.ROOT, " %s (%.2f×) |", (ratio <= 0.25) ? "met" : "missed", ratio));
        }
        out.append('\n');
        return out.toString();
    }

    private double median(ServerKind server, Scenario scenario, java.util.function.ToDoubleFunction<PingPong.Result> metric) {
        return this.samples.throughput(server, scenario, metric).median();
    }

    private static String ratio(double value, double reference) {
        if (Double.isNaN(value) || Double.isNaN(reference) || reference == 0) {
            return "–";
        }
        return String.format(Locale.ROOT, "%.2f", value / reference);
    }
}
