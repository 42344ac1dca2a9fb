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

    private final SocketClient redis;

    /** @param redis the client of the server behind the proxy */
    public RespProxyHandler(@Qualifier("redis") SocketClient redis) {
        this.redis = redis;
    }

    @OnMessage
    void request(Connection connection, ByteBuffer request) {
        String command = RespCodec.commandName(request);
        if (command == null) {
            return;
        }
        RepliesInOrder replies = RepliesInOrder.of(connection, this.redis);
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
