package dev.sockstate.benchmarks.e2e;

/**
 * A closed-loop ping-pong load: connections, message size, messages kept in flight on each
 * connection (1 is plain request/response; more is pipelining), and how the connections are dealt
 * to the client's threads.
 * <p>
 * Dealt in turn (connection {@code c} to thread {@code c % threads}), the connections of one
 * client thread are every other one accepted, which is exactly the set a server that hands its
 * connections to its event loops in turn gives one loop when it has as many loops as the client has
 * threads: each client thread then talks to one server thread only, and on a machine whose cores
 * the client and the server share, each such pair can keep to one core. Dealt in blocks (the first
 * half of the connections to the first thread, and so on), every client thread talks to every
 * server thread, as independent clients do.
 *
 * @param connections the connections
 * @param size the message size in bytes
 * @param depth the messages in flight per connection
 * @param blocks whether the connections are dealt to the client threads in blocks rather than in turn
 */
record Scenario(int connections, int size, int depth, boolean blocks) {

    Scenario(int connections, int size, int depth) {
        this(connections, size, depth, false);
    }

    /**
     * @param connection a connection's number, from zero
     * @param threads the client threads
     * @return the client thread that drives it
     */
    int thread(int connection, int threads) {
        return this.blocks ? (int) ((long) connection * threads / this.connections) : connection % threads;
    }

    String name() {
        String bytes = (this.size % 1024 == 0) ? (this.size / 1024) + "KiB" : this.size + "B";
        return "c" + this.connections + " " + bytes + ((this.depth > 1) ? " pipe" + this.depth : "") + (this.blocks ? " blocks" : "");
    }

    /**
     * @param text connections x size x depth, with a trailing {@code b} for connections dealt in blocks: {@code 64x64x1b}
     * @return the load
     */
    static Scenario parse(String text) {
        boolean blocks = text.endsWith("b");
        String[] parts = (blocks ? text.substring(0, text.length() - 1) : text).split("x");
        if (parts.length != 3) {
            throw new IllegalArgumentException("A load is connections x size x depth, with a trailing b for connections dealt in"
                    + " blocks (64x64x1, 256x1024x16b), not '" + text + "'");
        }
        return new Scenario(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), blocks);
    }
}
