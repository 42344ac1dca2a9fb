package dev.sockstate.autoconfigure;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.BoundListener;
import dev.sockstate.server.engine.SocketServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;

/**
 * Starts the {@link SocketServer} with the application context and stops it, gracefully, in the
 * phase in which Spring Boot shuts its web server down gracefully and as it does: asynchronously, so
 * that both drain at once, within {@code spring.lifecycle.timeout-per-shutdown-phase}. Once started,
 * each listener's bound port is published in the environment (and its parent contexts') as
 * {@code local.sockstate.<listener>.port}, as {@code local.server.port} is for the web server, and a
 * {@link SocketServerStartedEvent} follows (the
 * server logs each, as "Listener 'echo' (TCP, LEVEL_ONESHOT) bound to [::]:7007 on epoll", then one line for all, as
 * Boot's web servers do: "Socket server started on epoll with 'echo' on port 7007 (tcp)"; a graceful stop says when it
 * begins and when it is complete. With a {@linkplain #setShutdownDelay shutdown delay}, the stop first
 * makes the readiness state refuse traffic and goes on serving for the delay.
 */
public class SocketServerLifecycle implements SmartLifecycle {

    /** Spring Boot's web server graceful shutdown phase ({@code SmartLifecycle.DEFAULT_PHASE - 1024}). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private static final Log logger = LogFactory.getLog(SocketServerLifecycle.class);

    private static final String PORTS_SOURCE = "sockstate.ports";

    private final SocketServer server;

    private final Environment environment;

    private final Duration shutdownTimeout;

    private final Duration workersWithin;

    private boolean autoStartup = true;

    private Duration shutdownDelay = Duration.ZERO;

    /** Whether the last stop made the readiness state refuse traffic. */
    private volatile boolean refusedTraffic;

    /** The context that started the server: told of the start, its parents given the ports; {@code null} for none. */
    private final @Nullable ApplicationContext context;

    /**
     * @param server the server
     * @param environment where to publish the bound ports
     * @param shutdownTimeout how long a stop lets connections finish; zero to close them at once
     */
    public SocketServerLifecycle(SocketServer server, Environment environment, Duration shutdownTimeout) {
        this(server, environment, shutdownTimeout, Duration.ofSeconds(5));
    }

    /**
     * @param server the server
     * @param environment where to publish the bound ports
     * @param shutdownTimeout how long a stop lets connections finish; zero to close them at once
     * @param workersWithin how long the worker threads then get to end; one still in a handler call
     * after it is interrupted, named in a warning, and not waited for
     */
    public SocketServerLifecycle(SocketServer server, Environment environment, Duration shutdownTimeout, Duration workersWithin) {
        this(server, environment, null, shutdownTimeout, workersWithin);
    }

    /**
     * @param server the server
     * @param context the application context that starts it: its environment and its parents' get
     * the bound ports, and it publishes a {@link SocketServerStartedEvent}
     * @param shutdownTimeout how long a stop lets connections finish; zero to close them at once
     * @param workersWithin how long the worker threads then get to end
     */
    public SocketServerLifecycle(SocketServer server, ApplicationContext context, Duration shutdownTimeout, Duration workersWithin) {
        this(server, context.getEnvironment(), context, shutdownTimeout, workersWithin);
    }

    private SocketServerLifecycle(SocketServer server, Environment environment, @Nullable ApplicationContext context,
            Duration shutdownTimeout, Duration workersWithin) {
        this.server = server;
        this.environment = environment;
        this.context = context;
        this.shutdownTimeout = shutdownTimeout;
        this.workersWithin = workersWithin;
    }

    @Override
    public void start() {
        this.server.start();
        if (this.refusedTraffic) {
            // Started again after a stop that refused traffic (a context stopped, not closed): ready again.
            this.refusedTraffic = false;
            AvailabilityChangeEvent.publish(this.context, ReadinessState.ACCEPTING_TRAFFIC);
        }
        publishPorts(this.environment);
        for (ApplicationContext parent = (this.context != null) ? this.context.getParent() : null; parent != null;
                parent = parent.getParent()) {
            publishPorts(parent.getEnvironment());
        }
        logger.info(summary());
        if (this.context != null) {
            this.context.publishEvent(new SocketServerStartedEvent(this.server, this.context));
        }
    }

    /** @return one line for the log, as Boot's "Tomcat started on port 8080 (http)": the backend and each listener's port */
    private String summary() {
        StringBuilder line = new StringBuilder("Socket server started on ").append(this.server.backendName()).append(" with ");
        List<BoundListener> listeners = this.server.listeners();
        if (listeners.isEmpty()) {
            return line.append("no listener").toString();
        }
        for (int i = 0; i < listeners.size(); i++) {
            BoundListener listener = listeners.get(i);
            line.append((i == 0) ? "" : ", ").append("'").append(listener.name()).append("' on ");
            // A Unix domain socket's path, its kind said as its protocol is: "on unix:/run/app/echo.sock (stream)".
            boolean unix = listener.portNumber() < 0;
            line.append(unix ? "unix:" + listener.address() : "port " + listener.portNumber()).append(" (")
                    .append(unix ? ((listener.protocol() == Protocol.TCP) ? "stream" : "datagram")
                            : listener.protocol().name().toLowerCase(Locale.ROOT)).append(")");
        }
        return line.toString();
    }

    /** Publishes each listener's port in the environment, as Spring Boot publishes {@code local.server.port}. */
    private void publishPorts(Environment environment) {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return;
        }
        MutablePropertySources sources = configurable.getPropertySources();
        Map<String, Object> ports = new LinkedHashMap<>();
        if (sources.get(PORTS_SOURCE) instanceof MapPropertySource existing) {
            ports.putAll(existing.getSource());
        }
        for (BoundListener listener : this.server.listeners()) {
            if (listener.portNumber() < 0) {
                // A Unix domain socket, whose path is configured: no port to publish.
                continue;
            }
            ports.put("local.sockstate." + listener.name() + ".port", listener.portNumber());
        }
        sources.addFirst(new MapPropertySource(PORTS_SOURCE, ports));
    }

    @Override
    public void stop() {
        boolean interrupted = false;
        if (!this.shutdownDelay.isZero() && this.server.isRunning() && !this.server.listeners().isEmpty()) {
            interrupted = goOnServingRefusingTraffic();
        }
        try {
            stopServer();
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void stopServer() {
        boolean graceful = !this.shutdownTimeout.isZero() && this.server.isRunning();
        if (graceful) {
            logger.info("Commencing graceful shutdown of the socket server. Waiting up to " + this.shutdownTimeout
                    + " for active connections to complete");
        }
        this.server.stop(this.shutdownTimeout, this.workersWithin);
        if (graceful) {
            logger.info("Graceful shutdown of the socket server complete");
        }
    }

    /**
     * The shutdown delay: the readiness state refuses traffic (as Spring Boot's web server contexts
     * make it as they close), and the server goes on serving and accepting meanwhile, so that a load
     * balancer that checks the readiness probe stops sending new connections before the listeners
     * close.
     */
    private boolean goOnServingRefusingTraffic() {
        if (this.context != null) {
            AvailabilityChangeEvent.publish(this.context, ReadinessState.REFUSING_TRAFFIC);
            this.refusedTraffic = true;
        }
        logger.info("The socket server goes on serving for " + this.shutdownDelay + " before it stops accepting, its readiness"
                + " refusing traffic meanwhile");
        try {
            Thread.sleep(this.shutdownDelay.toMillis());
            return false;
        }
        catch (InterruptedException ex) {
            // The delay is cut short; the stop that follows keeps its own timeout, and the interrupt is kept for after it.
            return true;
        }
    }

    /**
     * Not paused with its context, as Spring Boot's web servers are not: a cached test context that
     * Spring pauses keeps serving on the ports it published, instead of draining and rebinding on new
     * ones when it is restarted.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    /**
     * Stops on a thread of its own, so that the context stops the other beans of this phase (the web
     * server's graceful shutdown) meanwhile, and calls back once the server stopped.
     */
    @Override
    public void stop(Runnable callback) {
        Runnable stopping = () -> {
            try {
                stop();
            }
            finally {
                callback.run();
            }
        };
        Thread thread = new Thread(stopping, "sockstate-shutdown");
        try {
            thread.start();
        }
        catch (OutOfMemoryError ex) {
            // No thread to be had: stop on this one, which only delays the web server's drain.
            stopping.run();
        }
    }

    /**
     * The graceful drain a shutdown phase of the given length leaves room for: the phase less 5 s
     * (a quarter of it when shorter), so that the workers stop and the ports close before Spring
     * Boot gives up on the phase and moves on.
     * @param phase {@code spring.lifecycle.timeout-per-shutdown-phase}
     * @return how long connections get to finish
     */
    public static Duration drainWithin(Duration phase) {
        return phase.minus(margin(phase));
    }

    /**
     * @param phase {@code spring.lifecycle.timeout-per-shutdown-phase}
     * @param drain how long connections get to finish, shorter than the phase
     * @return how long the workers then get to end: half of what the phase leaves (the other half is
     * the stop's own: interrupts, closing the ports, the timer), at most 5 s
     */
    public static Duration workersWithin(Duration phase, Duration drain) {
        Duration half = phase.minus(drain).dividedBy(2);
        return (half.compareTo(MARGIN) > 0) ? MARGIN : half;
    }

    private static final Duration MARGIN = Duration.ofSeconds(5);

    /** @return the part of the phase kept for the workers to end: 5 s, or a quarter of a phase shorter than 20 s */
    private static Duration margin(Duration phase) {
        Duration quarter = phase.dividedBy(4);
        return (quarter.compareTo(MARGIN) < 0) ? quarter : MARGIN;
    }

    /**
     * @param shutdownDelay how long a stop goes on serving and accepting, the readiness state refusing
     * traffic, before it stops accepting (see {@code sockstate.shutdown.delay}); zero for none
     */
    public void setShutdownDelay(Duration shutdownDelay) {
        this.shutdownDelay = shutdownDelay;
    }

    /** @param autoStartup whether the server starts with the context (see {@code sockstate.auto-startup}) */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
        return this.autoStartup;
    }

    @Override
    public boolean isRunning() {
        return this.server.isRunning();
    }

    /** @return how long a stop lets connections finish */
    public Duration shutdownTimeout() {
        return this.shutdownTimeout;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
