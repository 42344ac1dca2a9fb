package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Every measurement of a run, kept for the report and appended to a CSV file as it is taken. */
final class Samples {

    /** One ping-pong run of one server in one round. */
    record Throughput(ServerKind server, Scenario scenario, int round, PingPong.Result result) {
    }

    /** One connection-rate run. */
    record Rate(ServerKind server, int round, ConnectionRate.Result result) {
    }

    /** One idle run. */
    record Idle(ServerKind server, int round, IdleConnections.Result result) {
    }

    final List<Throughput> throughput = new ArrayList<>();

    final List<Rate> rates = new ArrayList<>();

    final List<Idle> idle = new ArrayList<>();

    private final Path csv;

    Samples(Path csv) throws IOException {
        this.csv = csv;
        Files.writeString(csv, "kind,server,round,scenario,value1,value2,value3,value4,value5,value6\n", StandardCharsets.UTF_8);
    }

    void add(Throughput sample) {
        this.throughput.add(sample);
        PingPong.Result r = sample.result();
        append("throughput", sample.server(), sample.round(), sample.scenario().name(), r.messagesPerSecond(),
                r.latency().quantile(0.5) / 1000.0, r.latency().quantile(0.99) / 1000.0, r.latency().quantile(0.999) / 1000.0,
                r.cpuMicrosPerMessage(), r.errors());
    }

    void add(Rate sample) {
        this.rates.add(sample);
        ConnectionRate.Result r = sample.result();
        append("rate", sample.server(), sample.round(), "connect-echo-close", r.connectionsPerSecond(), r.cpuMicrosPerConnection(),
                r.errors(), r.userMicrosPerConnection(), 0, 0);
    }

    void add(Idle sample) {
        this.idle.add(sample);
        IdleConnections.Result r = sample.result();
        append("idle", sample.server(), sample.round(), r.connections() + " idle", r.bytesPerConnection(),
                r.residentBytesPerConnection(), r.before().total(), r.after().total(), r.residentBefore(), r.residentAfter());
    }

    private void append(String kind, ServerKind server, int round, String scenario, double... values) {
        String line = kind + "," + server.label + "," + round + "," + scenario + ","
                + java.util.Arrays.stream(values).mapToObj((v) -> String.format(Locale.ROOT, "%.3f", v))
                        .collect(Collectors.joining(","))
                + "\n";
        try (Writer writer = Files.newBufferedWriter(this.csv, StandardCharsets.UTF_8, StandardOpenOption.APPEND)) {
            writer.write(line);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    Spread throughput(ServerKind server, Scenario scenario, ToDoubleFunction<PingPong.Result> value) {
        return Spread.of(this.throughput.stream().filter((s) -> s.server() == server && s.scenario().equals(scenario))
                .map((s) -> value.applyAsDouble(s.result())).collect(Collectors.toList()));
    }

    Spread rate(ServerKind server, ToDoubleFunction<ConnectionRate.Result> value) {
        return Spread.of(this.rates.stream().filter((s) -> s.server() == server).map((s) -> value.applyAsDouble(s.result()))
                .collect(Collectors.toList()));
    }

    Spread idle(ServerKind server, ToDoubleFunction<IdleConnections.Result> value) {
        return Spread.of(this.idle.stream().filter((s) -> s.server() == server).map((s) -> value.applyAsDouble(s.result()))
                .collect(Collectors.toList()));
    }
}
