package dev.sockstate.server.shaping;

/**
 * Traffic shaping: the bytes a second a listener's (or a client's) connections may read from their
 * sockets and write to them, each connection on its own and all of them together; 0 leaves that
 * direction unshaped. The bytes counted are those of the socket: a TLS connection's records, not
 * their plaintext.
 * <p>
 * Each rate is a token bucket holding a tenth of a second's worth: after a quiet spell a connection
 * reads or writes that much at once, and its rate over any longer time stays within its limit. A
 * connection over its rate stops reading (what its peer sends waits in the socket, and then in the
 * peer, as TCP's flow control has it) and holds its writes in its queue, where they count towards
 * {@link dev.sockstate.server.Connection#isWritable()} and the pending-write limits as a slow reader's
 * do; no thread waits meanwhile, a timer gives the connection its turn back once its share refilled.
 *
 * @param connectionRead bytes a second each connection may read, 0 for no limit
 * @param connectionWrite bytes a second each connection may write, 0 for no limit
 * @param totalRead bytes a second the connections may read together, 0 for no limit
 * @param totalWrite bytes a second the connections may write together, 0 for no limit
 */
public record Shaping(long connectionRead, long connectionWrite, long totalRead, long totalWrite) {

    /** No shaping: every connection reads and writes as fast as its peer and its socket allow. */
    public static final Shaping NONE = new Shaping(0, 0, 0, 0);

    /** Checks the rates. */
    public Shaping {
        check("connectionRead", connectionRead);
        check("connectionWrite", connectionWrite);
        check("totalRead", totalRead);
        check("totalWrite", totalWrite);
    }

    private static void check(String rate, long bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("A shaping rate (" + rate + ") is a number of bytes a second, 0 for no limit,"
                    + " not " + bytesPerSecond);
        }
    }

    /**
     * @param read bytes a second each connection may read, 0 for no limit
     * @param write bytes a second each connection may write, 0 for no limit
     * @return a shaping of each connection only
     */
    public static Shaping perConnection(long read, long write) {
        return new Shaping(read, write, 0, 0);
    }

    /**
     * @param read bytes a second each connection may read, 0 for no limit
     * @param write bytes a second each connection may write, 0 for no limit
     * @return this shaping with those rates for each connection
     */
    public Shaping withConnection(long read, long write) {
        return new Shaping(read, write, this.totalRead, this.totalWrite);
    }

    /**
     * @param read bytes a second the connections may read together, 0 for no limit
     * @param write bytes a second the connections may write together, 0 for no limit
     * @return this shaping with those rates for all the connections together
     */
    public Shaping withTotal(long read, long write) {
        return new Shaping(this.connectionRead, this.connectionWrite, read, write);
    }

    /** @return whether any rate is set */
    public boolean isShaping() {
        return (this.connectionRead | this.connectionWrite | this.totalRead | this.totalWrite) != 0;
    }

    @Override
    public String toString() {
        if (!isShaping()) {
            return "no shaping";
        }
        return "read " + rate(this.connectionRead) + " a connection, " + rate(this.totalRead) + " in all; write "
                + rate(this.connectionWrite) + " a connection, " + rate(this.totalWrite) + " in all";
    }

    private static String rate(long bytesPerSecond) {
        return (bytesPerSecond == 0) ? "unlimited" : bytesPerSecond + " B/s";
    }
}
