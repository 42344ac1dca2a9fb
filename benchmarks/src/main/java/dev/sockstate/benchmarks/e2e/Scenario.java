package dev.sockstate.benchmarks.e2e;

/**
 * A closed-loop ping-pong load: connections, message size, and messages kept in flight on each
 * connection (1 is plain request/response; more is pipelining).
 *
 * @param connections the connections
 * @param size the message size in bytes
 * @param depth the messages in flight per connection
 */
record Scenario(int connections, int size, int depth) {

    String name() {
        String bytes = (this.size % 1024 == 0) ? (this.size / 1024) + "KiB" : this.size + "B";
        return "c" + this.connections + " " + bytes + ((this.depth > 1) ? " pipe" + this.depth : "");
    }
}
