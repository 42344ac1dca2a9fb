package dev.sockstate.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the socket servers: the backend, the worker pool, extra worker groups, the
 * listeners, the outbound clients and the shutdown.
 */
@ConfigurationProperties("sockstate")
public class SockstateProperties {

    /** Whether to run the socket servers at all. */
    private boolean enabled = true;

    /** Whether the server starts, binding its listeners, with the application context; off, it is built but not started (a test slice's handlers). */
    private boolean autoStartup = true;

    /** Notification backend: auto (the operating system's own), epoll, winsock or nio. */
    private String backend = "auto";

    /** Where handler calls run for listeners that name no handler-executor: none (the workers), application (the application task executor) or a TaskExecutor bean's name. */
    private String handlerExecutor = "none";

    /** Most notifications one dequeue call returns. */
    private int batchSize = 64;

    /** How long one dequeue call waits for notifications before the worker loops. */
    private Duration dequeueTimeout = Duration.ofSeconds(1);

    /** The default worker pool, which serves every listener that names no other group. */
    private final Workers workers = new Workers();

    /** Further worker groups by name, each with a notification port and threads of its own. */
    private Map<String, Workers> groups = new LinkedHashMap<>();

    /** Listeners by name. */
    private Map<String, ListenerProperties> listeners = new LinkedHashMap<>();

    /** Outbound TCP clients by name, served by the same workers; each is a SocketClient bean of that name. */
    private Map<String, ClientProperties> clients = new LinkedHashMap<>();

    /** How the servers stop. */
    private final Shutdown shutdown = new Shutdown();

    /** Micrometer observations of handler calls. */
    private final Observations observations = new Observations();

    public boolean isAutoStartup() {
        return this.autoStartup;
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getBackend() {
        return this.backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public String getHandlerExecutor() {
        return this.handlerExecutor;
    }

    public void setHandlerExecutor(String handlerExecutor) {
        this.handlerExecutor = handlerExecutor;
    }

    public int getBatchSize() {
        return this.batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public Duration getDequeueTimeout() {
        return this.dequeueTimeout;
    }

    public void setDequeueTimeout(Duration dequeueTimeout) {
        this.dequeueTimeout = dequeueTimeout;
    }

    public Workers getWorkers() {
        return this.workers;
    }

    public Map<String, Workers> getGroups() {
        return this.groups;
    }

    public void setGroups(Map<String, Workers> groups) {
        this.groups = groups;
    }

    public Map<String, ListenerProperties> getListeners() {
        return this.listeners;
    }

    public void setListeners(Map<String, ListenerProperties> listeners) {
        this.listeners = listeners;
    }

    public Map<String, ClientProperties> getClients() {
        return this.clients;
    }

    public void setClients(Map<String, ClientProperties> clients) {
        this.clients = clients;
    }

    public Shutdown getShutdown() {
        return this.shutdown;
    }

    public Observations getObservations() {
        return this.observations;
    }

    /** Micrometer observations of handler calls. */
    public static class Observations {

        /** Whether to run every handler call in an observation (a span per call with a tracer); costs a few allocations a call. */
        private boolean enabled;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** A worker group: threads dequeuing from one notification port. */
    public static class Workers {

        /** Worker threads; the number of available processors when not set. */
        private @Nullable Integer threads;

        /** Prefix of the worker threads' names, followed by the group's name and a number. */
        private String threadNamePrefix = "sockstate-";

        /** Size of each worker's read buffer. */
        private DataSize readBufferSize = DataSize.ofKilobytes(64);

        /**
         * Whether each worker dequeues from a notification port of its own, each socket pinned to
         * one worker (round-robin as accepted), instead of all workers sharing one port.
         */
        private boolean portPerWorker = true;

        /**
         * Whether a worker that served sockets yields its processor once before a dequeue that may
         * wait, so that a peer sharing its processor answers before the worker sleeps; off, a busy
         * thread beside the worker does not delay its answers by a time slice.
         */
        private boolean yieldBeforeWait;

        public @Nullable Integer getThreads() {
            return this.threads;
        }

        public void setThreads(@Nullable Integer threads) {
            this.threads = threads;
        }

        public String getThreadNamePrefix() {
            return this.threadNamePrefix;
        }

        public void setThreadNamePrefix(String threadNamePrefix) {
            this.threadNamePrefix = threadNamePrefix;
        }

        public DataSize getReadBufferSize() {
            return this.readBufferSize;
        }

        public void setReadBufferSize(DataSize readBufferSize) {
            this.readBufferSize = readBufferSize;
        }

        public boolean isPortPerWorker() {
            return this.portPerWorker;
        }

        public void setPortPerWorker(boolean portPerWorker) {
            this.portPerWorker = portPerWorker;
        }

        public boolean isYieldBeforeWait() {
            return this.yieldBeforeWait;
        }

        public void setYieldBeforeWait(boolean yieldBeforeWait) {
            this.yieldBeforeWait = yieldBeforeWait;
        }
    }

    /** How the servers stop with the application. */
    public static class Shutdown {

        /** Whether to let handlers in flight finish and queued writes drain before closing connections. */
        private boolean graceful = true;

        /** How long a graceful shutdown waits before aborting the connections still busy; the shutdown phase's timeout less 5s when not set. */
        private @Nullable Duration timeout;

        /** How long a shutdown goes on serving and accepting, the readiness state refusing traffic, before the listeners close, so that load balancers stop sending connections first. */
        private Duration delay = Duration.ZERO;

        public boolean isGraceful() {
            return this.graceful;
        }

        public void setGraceful(boolean graceful) {
            this.graceful = graceful;
        }

        public @Nullable Duration getTimeout() {
            return this.timeout;
        }

        public void setTimeout(@Nullable Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getDelay() {
            return this.delay;
        }

        public void setDelay(Duration delay) {
            this.delay = delay;
        }
    }
}
