package dev.sockstate.sample.resp;

import dev.sockstate.server.Connection;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.spring.handler.OnError;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.OnWritable;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * A Redis proxy: each request its clients send goes to a real Redis through the {@code redis}
 * client's pool of connections, whose requests pipeline, and each reply comes back to the client
 * that asked, in the order it asked ({@link RepliesInOrder}). Many clients share a few connections to
 * the server, so only commands that keep no state on the server's connection and never block it
 * are passed on ({@link #SERVED}): transactions, subscriptions, a database chosen, blocking reads,
 * scripts and the server's administration are refused here, as a proxy that multiplexes must. What
 * is checked is what the server will read: an inline request is split into its arguments as Redis
 * splits it (quotes, escapes, every blank) and passed on as the multibulk it is, unless its line is
 * plain enough that both read it alike. {@code PING} is answered here, as twemproxy answers it.
 * <p>
 * With a password ({@code sample.resp-proxy.password}) a client must give it with {@code AUTH}, as to
 * Redis' default user, before any request is passed on; the password stays here (the server behind
 * may have one of its own, or none). Without one, the proxy turns away every client that is not on
 * its own host, as Redis does in its protected mode: bound to a public address with no password, it
 * would open the server behind it to the network.
 */
@SocketHandler("resp-proxy")
public class RespProxyHandler {

    /**
     * The commands passed on: they keep no state on the server's connection and do not block it (no
     * MULTI, SELECT, SUBSCRIBE, MONITOR, CLIENT, blocking pops, XREAD, WAIT), run no script, and
     * leave the server's data and settings as a whole alone (no KEYS, FLUSHALL, CONFIG, SHUTDOWN,
     * MIGRATE, REPLICAOF, DEBUG).
     */
    static final Set<String> SERVED = Set.of("ECHO", "TIME",
            "GET", "SET", "SETNX", "SETEX", "PSETEX", "GETSET", "GETDEL", "GETEX", "MGET", "MSET", "MSETNX", "APPEND", "STRLEN",
            "GETRANGE", "SETRANGE", "SUBSTR", "INCR", "DECR", "INCRBY", "DECRBY", "INCRBYFLOAT", "LCS",
            "DEL", "UNLINK", "EXISTS", "TOUCH", "TYPE", "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT", "EXPIRETIME", "PEXPIRETIME",
            "TTL", "PTTL", "PERSIST", "RENAME", "RENAMENX",
            "HGET", "HSET", "HSETNX", "HMGET", "HMSET", "HDEL", "HEXISTS", "HLEN", "HKEYS", "HVALS", "HGETALL", "HINCRBY",
            "HINCRBYFLOAT", "HSTRLEN", "HRANDFIELD", "HSCAN",
            "LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LPOP", "RPOP", "LLEN", "LRANGE", "LINDEX", "LSET", "LREM", "LTRIM", "LINSERT",
            "LPOS", "LMOVE", "RPOPLPUSH", "LMPOP",
            "SADD", "SREM", "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SPOP", "SRANDMEMBER", "SINTER", "SINTERCARD", "SUNION",
            "SDIFF", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE", "SMOVE", "SSCAN",
            "ZADD", "ZREM", "ZSCORE", "ZMSCORE", "ZINCRBY", "ZCARD", "ZCOUNT", "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE",
            "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZRANK", "ZREVRANK", "ZPOPMIN", "ZPOPMAX", "ZRANDMEMBER",
            "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZREMRANGEBYLEX", "ZSCAN", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZUNION",
            "ZINTER", "ZDIFF", "ZINTERCARD", "ZMPOP", "ZRANGESTORE",
            "PFADD", "PFCOUNT", "PFMERGE",
            "SETBIT", "GETBIT", "BITCOUNT", "BITPOS", "BITOP", "BITFIELD", "BITFIELD_RO",
            "GEOADD", "GEOPOS", "GEODIST", "GEOHASH", "GEOSEARCH", "GEOSEARCHSTORE",
            "XADD", "XLEN", "XRANGE", "XREVRANGE", "XDEL", "XTRIM");

    /** The names passed on ({@link #SERVED}), upper case, by length: matched as bytes, so that a request passed on makes no string. */
    private static final byte[][][] SERVED_BY_LENGTH = byLength(SERVED);

    private static final byte[] DENIED = ("-DENIED this proxy has no password set (sample.resp-proxy.password),"
            + " so it serves only clients on its own host\r\n").getBytes(StandardCharsets.US_ASCII);

    private static final ByteBuffer PONG = ByteBuffer.wrap("+PONG\r\n".getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();

    private static final String NO_AUTH = "-NOAUTH Authentication required.\r\n";

    private static final String WRONG_PASSWORD = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";

    private final SocketClient redis;

    /** The password clients give, {@code null} when none is set. */
    private final byte[] password;

    /**
     * @param redis the client of the server behind the proxy
     * @param properties the proxy's password, if it has one
     */
    public RespProxyHandler(@Qualifier("redis") SocketClient redis, RespProxyProperties properties) {
        this.redis = redis;
        this.password = properties.requiresPassword() ? properties.getPassword().getBytes(StandardCharsets.UTF_8) : null;
    }

    /** Without a password, a client that is not on this host is answered as Redis answers it in protected mode, and let go. */
    @OnOpen
    void opened(Connection connection) {
        if (this.password == null && !onThisHost(connection.remoteAddress())) {
            connection.write(DENIED);
            connection.close();
        }
    }

    /** @return whether the peer is on this host: a loopback address, or a Unix domain socket */
    static boolean onThisHost(SocketAddress peer) {
        return !(peer instanceof InetSocketAddress inet) || (inet.getAddress() != null && inet.getAddress().isLoopbackAddress());
    }

    @OnMessage
    void request(Connection connection, ByteBuffer request) {
        RepliesInOrder replies = RepliesInOrder.of(connection, this.redis);
        if (request.hasRemaining() && request.get(request.position()) != '*' && !RespCodec.plainInline(request)) {
            // Read as Redis reads it, and passed on as the multibulk Redis would have made of it.
            List<byte[]> arguments;
            try {
                arguments = RespCodec.arguments(request);
            }
            catch (FramingException ex) {
                replies.local("-ERR Protocol error: " + ex.getMessage() + "\r\n");
                replies.closeWhenAnswered();
                return;
            }
            if (arguments.isEmpty()) {
                return;
            }
            request = RespCodec.multibulk(arguments);
        }
        if (!replies.authenticated && this.password != null) {
            unauthenticated(replies, request);
            return;
        }
        long bounds = RespCodec.commandBounds(request);
        if (bounds < 0) {
            return;
        }
        int start = (int) (bounds >>> 32);
        int end = (int) bounds;
        if (isPing(request, start, end)) {
            ping(replies, request, end);
            return;
        }
        if (served(request, start, end)) {
            replies.forward(request);
            return;
        }
        String command = RespCodec.commandName(request);
        if (command.equals("AUTH")) {
            replies.local((this.password != null) ? authenticate(replies, request) : authenticateWithoutPassword(request));
            return;
        }
        if (command.equals("QUIT")) {
            replies.local("+OK\r\n");
            replies.closeWhenAnswered();
            return;
        }
        replies.local("-ERR '" + printable(command) + "' is not served through this proxy: its connection to the server is shared,"
                + " and it passes on only commands that keep no state there and do not block it\r\n");
    }

    /**
     * A request of a client that has not given the password: {@code AUTH} and {@code QUIT} are
     * answered, anything else refused as Redis refuses it.
     */
    private void unauthenticated(RepliesInOrder replies, ByteBuffer request) {
        String command = RespCodec.commandName(request);
        if ("QUIT".equals(command)) {
            replies.local("+OK\r\n");
            replies.closeWhenAnswered();
        }
        else if ("AUTH".equals(command)) {
            replies.local(authenticate(replies, request));
        }
        else if (command != null) {
            replies.local(NO_AUTH);
        }
    }

    /** @return the answer to an AUTH request: the connection is authenticated when the password is the proxy's */
    private String authenticate(RepliesInOrder replies, ByteBuffer request) {
        List<byte[]> arguments;
        try {
            arguments = RespCodec.arguments(request);
        }
        catch (FramingException ex) {
            return "-ERR Protocol error: " + ex.getMessage() + "\r\n";
        }
        if (arguments.size() < 2 || arguments.size() > 3) {
            return "-ERR wrong number of arguments for 'auth' command\r\n";
        }
        boolean defaultUser = arguments.size() == 2 || new String(arguments.get(1), StandardCharsets.UTF_8).equals("default");
        // Compared in a time that tells nothing of how much of the password was right.
        boolean right = MessageDigest.isEqual(arguments.get(arguments.size() - 1), this.password);
        if (!defaultUser || !right) {
            return WRONG_PASSWORD;
        }
        replies.authenticated = true;
        return "+OK\r\n";
    }

    /** @return the answer to an AUTH request when the proxy has no password: Redis' to its default user without one */
    private static String authenticateWithoutPassword(ByteBuffer request) {
        int count;
        try {
            count = RespCodec.arguments(request).size();
        }
        catch (FramingException ex) {
            return "-ERR Protocol error: " + ex.getMessage() + "\r\n";
        }
        return switch (count) {
            case 2 -> "-ERR AUTH <password> called without any password configured for the default user\r\n";
            case 3 -> "+OK\r\n";
            default -> "-ERR wrong number of arguments for 'auth' command\r\n";
        };
    }

    /** @return whether the name in request[start, end) is PING, in any case */
    private static boolean isPing(ByteBuffer request, int start, int end) {
        return end - start == 4 && upperCase(request.get(start)) == 'P' && upperCase(request.get(start + 1)) == 'I'
                && upperCase(request.get(start + 2)) == 'N' && upperCase(request.get(start + 3)) == 'G';
    }

    /**
     * PING is the proxy's to answer, as twemproxy answers it: it says the proxy is up, and costs the
     * server nothing (the server's state is the client's health to say). Answered in its turn among the
     * replies owed, as the server would.
     */
    private static void ping(RepliesInOrder replies, ByteBuffer request, int nameEnd) {
        int after = request.limit() - nameEnd;
        if ((after == 2 && request.get(nameEnd) == '\r') || (after == 1 && request.get(nameEnd) == '\n')) {
            // Nothing after the name but its line's end (a multibulk's or an inline line's): the plain PING.
            replies.local(PONG.duplicate());
            return;
        }
        List<byte[]> arguments;
        try {
            arguments = RespCodec.arguments(request);
        }
        catch (FramingException ex) {
            replies.local("-ERR Protocol error: " + ex.getMessage() + "\r\n");
            return;
        }
        if (arguments.size() == 1) {
            replies.local(PONG.duplicate());
        }
        else if (arguments.size() == 2) {
            byte[] message = arguments.get(1);
            byte[] header = ("$" + message.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
            replies.local(ByteBuffer.allocate(header.length + message.length + 2).put(header).put(message).put((byte) '\r')
                    .put((byte) '\n').flip());
        }
        else {
            replies.local("-ERR wrong number of arguments for 'ping' command\r\n");
        }
    }

    /** @return whether the name in request[start, end) is one the proxy passes on, in any case */
    static boolean served(ByteBuffer request, int start, int end) {
        int length = end - start;
        if (length >= SERVED_BY_LENGTH.length) {
            return false;
        }
        for (byte[] name : SERVED_BY_LENGTH[length]) {
            int i = 0;
            while (i < length && upperCase(request.get(start + i)) == name[i]) {
                i++;
            }
            if (i == length) {
                return true;
            }
        }
        return false;
    }

    /** @return the name with what is not printable ASCII escaped, for an error reply: one line, whatever the client sent */
    private static String printable(String name) {
        StringBuilder out = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (c >= 0x20 && c < 0x7f && c != '\'') {
                out.append(c);
            }
            else {
                out.append(String.format("\\x%02x", (int) c & 0xff));
            }
        }
        return out.toString();
    }

    /** @return an ASCII letter in upper case, any other byte as it is (the names matched are ASCII letters) */
    private static int upperCase(byte value) {
        return (value >= 'a' && value <= 'z') ? value - ('a' - 'A') : value;
    }

    private static byte[][][] byLength(Set<String> served) {
        Set<String> names = new TreeSet<>(served);
        int longest = names.stream().mapToInt(String::length).max().orElse(0);
        byte[][][] byLength = new byte[longest + 1][][];
        for (int length = 0; length <= longest; length++) {
            int size = length;
            byLength[length] = names.stream().filter((name) -> name.length() == size)
                    .map((name) -> name.getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
        }
        return byLength;
    }

    /** The client's connection sent what waited: requests held back meanwhile go on. */
    @OnWritable
    void drained(Connection connection) {
        RepliesInOrder.of(connection, this.redis).drained();
    }

    /**
     * A request the codec refused: answered as Redis answers it, in its turn after the replies owed to
     * the requests before it, which the connection, closing, still writes as they come.
     */
    @OnError
    void refused(Connection connection, Throwable error) {
        if (error instanceof FramingException) {
            String reason = (error.getCause() != null) ? error.getCause().getMessage() : "request too large";
            RepliesInOrder.of(connection, this.redis).local("-ERR Protocol error: " + reason + "\r\n");
        }
    }
}
