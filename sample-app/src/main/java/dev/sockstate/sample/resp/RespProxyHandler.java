package dev.sockstate.sample.resp;

import dev.sockstate.server.Connection;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.spring.handler.OnError;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.OnWritable;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.annotation.Qualifier;

/**
 * A Redis proxy: each request its clients send goes to a real Redis through the {@code redis}
 * client's pool of connections, whose requests pipeline, and each reply comes back to the client
 * that asked, in the order it asked ({@link RepliesInOrder}). Many clients share a few connections to
 * the server, so the commands that change a connection's state (transactions, subscriptions, a
 * database chosen, blocking pops) are refused here, as a proxy that multiplexes must.
 */
@SocketHandler("resp-proxy")
public class RespProxyHandler {

    /** Commands whose effect stays with the server's connection, which other clients share. */
    static final Set<String> CONNECTION_STATE = Set.of("MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH", "SELECT", "SWAPDB",
            "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "MONITOR", "RESET", "AUTH",
            "HELLO", "CLIENT", "WAIT", "BLPOP", "BRPOP", "BLMOVE", "BRPOPLPUSH", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP",
            "READONLY", "READWRITE");

    /**
     * The names the proxy answers itself (QUIT and {@link #CONNECTION_STATE}), upper case, by length: a
     * request's name is matched against those of its length as bytes, so that a request forwarded makes
     * no string of its name.
     */
    private static final byte[][][] ANSWERED_HERE = byLength(CONNECTION_STATE);

    private final SocketClient redis;

    /** @param redis the client of the server behind the proxy */
    public RespProxyHandler(@Qualifier("redis") SocketClient redis) {
        this.redis = redis;
    }

    @OnMessage
    void request(Connection connection, ByteBuffer request) {
        long bounds = RespCodec.commandBounds(request);
        if (bounds < 0) {
            return;
        }
        RepliesInOrder replies = RepliesInOrder.of(connection, this.redis);
        if (!answeredHere(request, (int) (bounds >>> 32), (int) bounds)) {
            replies.forward(request);
            return;
        }
        String command = RespCodec.commandName(request);
        if (command.equals("QUIT")) {
            replies.local("+OK\r\n");
            replies.closeWhenAnswered();
            return;
        }
        if (CONNECTION_STATE.contains(command)) {
            replies.local("-ERR '" + command + "' is not served through this proxy: its connection to the server is shared\r\n");
            return;
        }
        replies.forward(request);
    }

    /** @return whether the name in request[start, end) is one the proxy answers itself, in any case */
    static boolean answeredHere(ByteBuffer request, int start, int end) {
        int length = end - start;
        if (length >= ANSWERED_HERE.length) {
            return false;
        }
        for (byte[] name : ANSWERED_HERE[length]) {
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

    /** @return an ASCII letter in upper case, any other byte as it is (the names matched are ASCII letters) */
    private static int upperCase(byte value) {
        return (value >= 'a' && value <= 'z') ? value - ('a' - 'A') : value;
    }

    private static byte[][][] byLength(Set<String> refused) {
        Set<String> names = new TreeSet<>(refused);
        names.add("QUIT");
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

    /** A request the codec refused: answered as Redis answers it, before the connection closes. */
    @OnError
    void refused(Connection connection, Throwable error) {
        if (error instanceof FramingException) {
            String reason = (error.getCause() != null) ? error.getCause().getMessage() : "request too large";
            connection.write(("-ERR Protocol error: " + reason + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
    }
}
