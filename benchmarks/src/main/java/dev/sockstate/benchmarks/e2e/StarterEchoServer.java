package dev.sockstate.benchmarks.e2e;

import dev.sockstate.port.Backend;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * sockstate as a user runs it: a Spring Boot application on the starter, its listener configured by
 * properties, its handler a {@code @SocketHandler} bean; optionally with a Prometheus registry, to
 * measure what metrics cost.
 */
final class StarterEchoServer implements EchoServer {

    static final String EXCLUSIVE_EDGE = "sockstate.listeners.echo.exclusive-edge=true";

    /** A listening socket per worker (SO_REUSEPORT), the connections served where accepted. */
    static final String ACCEPT_PER_WORKER = "sockstate.listeners.echo.accept=per-worker";

    /** One port the workers share, the reference's model (a port per worker is the default). */
    static final String SHARED_PORT = "sockstate.workers.port-per-worker=false";

    /** Properties beside those every variant has. */
    final List<String> options;

    /** Whether every meter of the starter is updated (a Prometheus registry). */
    final boolean metrics;

    private ConfigurableApplicationContext context;

    /**
     * @param options properties beside those every variant has
     * @param metrics whether to update every meter of the starter (a Prometheus registry)
     */
    StarterEchoServer(List<String> options, boolean metrics) {
        this.options = options;
        this.metrics = metrics;
    }

    @Override
    public int start(int workers) {
        List<String> properties = new ArrayList<>(List.of("spring.main.banner-mode=off", "logging.level.root=warn",
                "sockstate.workers.threads=" + workers, "sockstate.listeners.echo.address=127.0.0.1",
                "sockstate.listeners.echo.port=0", "sockstate.listeners.echo.backlog=4096",
                "sockstate.listeners.echo.max-connections=30000", "sockstate.shutdown.timeout=2s"));
        properties.addAll(this.options);
        if (EchoServer.linesFramed()) {
            properties.add("sockstate.listeners.echo.framing.type=line");
        }
        String batchSize = System.getProperty("sockstate.batch-size");
        if (batchSize != null) {
            properties.add("sockstate.batch-size=" + batchSize);
        }
        Class<?> application = this.metrics ? MeteredStarterEchoApplication.class : StarterEchoApplication.class;
        this.context = new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new)).run();
        return this.context.getEnvironment().getRequiredProperty("local.sockstate.echo.port", Integer.class);
    }

    @Override
    public String backend() {
        Backend backend = this.context.getBean(Backend.class);
        return backend.name() + ": " + backend.availability().reason();
    }

    @Override
    public void close() {
        if (this.context != null) {
            this.context.close();
        }
    }
}
