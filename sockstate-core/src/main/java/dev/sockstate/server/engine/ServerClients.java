package dev.sockstate.server.engine;

import dev.sockstate.port.NativeSockets;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.turn.WorkerGroup;
import dev.sockstate.server.observer.ServerObserver;
import dev.sockstate.server.tls.Tls;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A server's outbound clients: made with its listeners, started once its workers run, stopped with
 * it, and the thread where they resolve names and open sockets (never a worker, since a lookup may
 * block). The server's lifecycle lock orders {@link #make}, {@link #start} and {@link #closed};
 * {@link #client(String)} and {@link #clients()} read without it.
 */
final class ServerClients {

    /** The server's log, where each client's start is said as each listener's is. */
    private final System.Logger logger;

    /** Makes the profile a client's connections share, on its group. */
    @FunctionalInterface
    interface SideMaker {

        /**
         * @param side the settings of the client's connections, as a listener's
         * @param label how messages name the client
         * @param tls its TLS, {@code null} for plaintext
         * @param replies its seam on its route
         * @param counts what its meters read when asked
         * @param group the client's worker group
         * @return the profile
         */
        ConnectionProfile make(ListenerSettings side, String label, @Nullable Tls tls, HandlerCalls.Replies replies,
                ServerObserver.ActiveCounts counts, WorkerGroup group);
    }

    /** The clients the server runs: those it was made with, and those added since, but those removed; replaced whole. */
    private volatile List<ClientSettings> settings;

    /** Made and not started yet; under the server's lock. */
    private Map<String, Client> made = Map.of();

    /** The running clients by name; replaced whole at start and stop, so that it is read without the lock. */
    private volatile Map<String, Client> running = Map.of();

    /**
     * Where clients resolve names and open sockets, each in a lane of its own ({@link ConnectLane}), so at
     * most one thread per client; while running, under the server's lock.
     */
    private @Nullable ThreadPoolExecutor connectThread;

    /**
     * @param settings the clients' settings
     * @param logger the server's log
     */
    ServerClients(List<ClientSettings> settings, System.Logger logger) {
        this.settings = List.copyOf(settings);
        this.logger = logger;
    }

    /** @return the clients the server runs: those it was made with, added and not removed */
    List<ClientSettings> settings() {
        return this.settings;
    }

    /**
     * Adds a client; under the server's lock.
     * @param client the client
     * @param running whether the server runs: the client is then made and connects at once, else at the next start
     * @param groups the server's worker groups, while it runs
     * @param sockets the backend's sockets
     * @param sides makes the profile of the client's connections
     * @return the client made, {@code null} when the server does not run
     */
    @Nullable Client add(ClientSettings client, boolean running, Map<String, WorkerGroup> groups, NativeSockets sockets, SideMaker sides) {
        List<ClientSettings> all = new ArrayList<>(this.settings);
        all.add(client);
        this.settings = List.copyOf(all);
        if (!running) {
            return null;
        }
        if (this.connectThread == null) {
            this.connectThread = connectThread();
        }
        Client made = make(client, groups, sockets, sides);
        Map<String, Client> clients = new LinkedHashMap<>(this.running);
        clients.put(client.name(), made);
        this.running = Map.copyOf(clients);
        made.start();
        return made;
    }

    /**
     * Takes a client out: no longer found by its name, nothing connected again; under the server's lock.
     * @param name the client's name
     * @return the running client, to close its connections; {@code null} when it did not run
     * @throws IllegalArgumentException when there is no client of that name
     */
    @Nullable Client remove(String name) {
        if (this.settings.stream().noneMatch((client) -> client.name().equals(name))) {
            throw new IllegalArgumentException("No client '" + name + "'");
        }
        this.settings = this.settings.stream().filter((client) -> !client.name().equals(name)).collect(Collectors.toUnmodifiableList());
        Client client = this.running.get(name);
        if (client != null) {
            Map<String, Client> clients = new LinkedHashMap<>(this.running);
            clients.remove(name);
            this.running = Map.copyOf(clients);
            client.stopping();
        }
        return client;
    }

    private Client make(ClientSettings client, Map<String, WorkerGroup> groups, NativeSockets sockets, SideMaker sides) {
        WorkerGroup group = groups.get(client.connection().group());
        return new Client(client, (side, label, tls, replies, counts) -> sides.make(side, label, tls, replies, counts, group), sockets,
                new ConnectLane(this.connectThread));
    }

    /** Makes each client, its connections to be served by its group's workers; started by {@link #start()}. */
    void make(Map<String, WorkerGroup> groups, NativeSockets sockets, SideMaker sides) {
        if (!this.settings.isEmpty()) {
            this.connectThread = connectThread();
        }
        Map<String, Client> clients = new LinkedHashMap<>();
        for (ClientSettings client : this.settings) {
            clients.put(client.name(), make(client, groups, sockets, sides));
        }
        this.made = clients;
    }

    /** The workers run: the clients made are published and connect. */
    void start() {
        this.running = Map.copyOf(this.made);
        this.made.values().forEach(Client::start);
        this.made = Map.of();
    }

    /** Logs where each client connects, once the server started. */
    void logStarted(String backend) {
        for (ClientSettings client : this.settings) {
            this.logger.log(Level.INFO, "Client '" + client.name() + "' connects to " + client.addresses().stream()
                    .map(AddressText::of).collect(Collectors.joining(", then ")) + " (a pool of " + client.poolSize()
                    + ((client.connection().tls() != null) ? ", TLS" : "") + ") on " + backend);
        }
    }

    /** The server stops: nothing is connected again from now on. */
    void stopping() {
        this.running.values().forEach(Client::stopping);
    }

    /**
     * The workers are gone: the clients' meters let go, and the connects still queued run (they find
     * the clients stopped and fail their futures); a name lookup that hangs is interrupted after a second.
     * @param deadline the {@link System#nanoTime()} by which the connect thread must have ended at the latest
     */
    void closed(long deadline) {
        this.running.values().forEach((client) -> client.closed(deadline));
        this.made.values().forEach((client) -> client.closed(deadline));
        if (this.connectThread != null) {
            this.connectThread.shutdown();
            try {
                if (!this.connectThread.awaitTermination(1, TimeUnit.SECONDS)) {
                    this.connectThread.shutdownNow();
                    this.connectThread.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            this.connectThread = null;
        }
        this.running = Map.of();
        this.made = Map.of();
    }

    /**
     * @param name a client's name
     * @return the running client
     * @throws IllegalArgumentException when no running client has that name
     */
    SocketClient client(String name) {
        Client client = this.running.get(name);
        if (client == null) {
            throw new IllegalArgumentException("No running client '" + name + "'; clients: "
                    + this.settings.stream().map(ClientSettings::name).collect(Collectors.toList()));
        }
        return client;
    }

    /** @return the running clients */
    List<SocketClient> clients() {
        return List.copyOf(this.running.values());
    }

    /**
     * @return the threads where clients resolve names and open sockets: made as the clients' lanes need
     * them, one per client at most, each ended after 10 s idle
     */
    private static ThreadPoolExecutor connectThread() {
        AtomicLong threads = new AtomicLong();
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), (task) -> {
            Thread thread = new Thread(task, "sockstate-connect-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }
}
