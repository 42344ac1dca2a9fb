package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A run's measurements made up, the same every time: three servers, two loads, three rounds each
 * (the median round in the middle, the others 3% under and 2% over it), a connection-rate run and
 * an idle run per server and round.
 */
final class FixedSamples {

    static final List<ServerKind> SERVERS = List.of(ServerKind.NETTY, ServerKind.SOCKSTATE, ServerKind.NIO);

    static final Scenario C64 = new Scenario(64, 64, 1);

    static final Scenario C256 = new Scenario(256, 64, 1);

    static final List<Scenario> SCENARIOS = List.of(C64, C256);

    private static final double[] ROUNDS = {0.97, 1.0, 1.02};

    private FixedSamples() {
    }

    /**
     * @param csv where the samples' CSV goes
     * @return the samples
     * @throws IOException when the CSV cannot be written
     */
    static Samples of(Path csv) throws IOException {
        Samples samples = new Samples(csv);
        for (int round = 1; round <= ROUNDS.length; round++) {
            double factor = ROUNDS[round - 1];
            for (ServerKind server : SERVERS) {
                for (Scenario scenario : SCENARIOS) {
                    long messages = Math.round(messagesPerSecond(server, scenario) * factor);
                    long cpuNanos = Math.round(messages * cpuMicrosPerMessage(server, scenario) * 1000);
                    samples.add(new Samples.Throughput(server, scenario, round,
                            new PingPong.Result(messages, 1.0, new LatencyHistogram(), cpuNanos, 0, 1.0)));
                }
                long connections = Math.round(connectionsPerSecond(server) * factor);
                samples.add(new Samples.Rate(server, round, new ConnectionRate.Result(connections, 1.0, connections * 40_000L, connections * 34_000L, 0)));
                long grown = Math.round(idleBytes(server) * 10_000 * factor);
                ServerProcess.Memory before = new ServerProcess.Memory(50_000_000, 1_000_000);
                ServerProcess.Memory after = new ServerProcess.Memory(50_000_000 + grown, 1_000_000);
                samples.add(new Samples.Idle(server, round, new IdleConnections.Result(10_000, before, after, 200_000_000,
                        200_000_000 + grown)));
            }
        }
        return samples;
    }

    /** @return the median round's messages/s */
    static double messagesPerSecond(ServerKind server, Scenario scenario) {
        double base = switch (server) {
            case NETTY -> 200_000;
            case SOCKSTATE -> 205_000;
            default -> 190_000;
        };
        return scenario.equals(C256) ? base * ((server == ServerKind.SOCKSTATE) ? 1.12 : 1.05) : base;
    }

    /** @return the median round's server CPU µs per message */
    static double cpuMicrosPerMessage(ServerKind server, Scenario scenario) {
        double base = switch (server) {
            case NETTY -> 4.8;
            case SOCKSTATE -> 4.6;
            default -> 5.1;
        };
        return scenario.equals(C256) ? base - 0.3 : base;
    }

    /** @return the median round's connections/s */
    static double connectionsPerSecond(ServerKind server) {
        return switch (server) {
            case NETTY -> 20_000;
            case SOCKSTATE -> 21_000;
            default -> 19_000;
        };
    }

    /** @return the median round's bytes per idle connection */
    static double idleBytes(ServerKind server) {
        return switch (server) {
            case NETTY -> 1271;
            case SOCKSTATE -> 183;
            default -> 691;
        };
    }
}
