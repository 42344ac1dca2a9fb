package dev.sockstate.sample.resp;

import dev.sockstate.server.Connection;
import dev.sockstate.server.framing.FramingException;
import dev.sockstate.spring.handler.OnError;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A key-value server speaking the Redis protocol (RESP2), so that {@code redis-cli} and
 * {@code redis-benchmark} work against it. The listener frames requests with {@link RespCodec}, so
 * each call gets one whole request; the replies to a pipeline of requests that arrived in one read
 * leave in one send.
 */
@SocketHandler("resp")
public class RespHandler {

    private final RespCommands commands;

    /** Each thread's reply buffer: a reply is written (copied out) before the thread's next request. */
    private final ThreadLocal<RespReply> replies = ThreadLocal.withInitial(RespReply::new);

    /** @param store the keys and values */
    public RespHandler(KeyValueStore store) {
        this.commands = new RespCommands(store);
    }

    @OnMessage
    void request(Connection connection, ByteBuffer request) {
        List<byte[]> arguments;
        try {
            arguments = RespCodec.arguments(request);
        }
        catch (FramingException ex) {
            // An inline line Redis refuses as it splits it: answered in its turn, then the connection closes.
            connection.write(("-ERR Protocol error: " + ex.getMessage() + "\r\n").getBytes(StandardCharsets.UTF_8));
            connection.close();
            return;
        }
        if (arguments.isEmpty()) {
            return;
        }
        RespReply reply = this.replies.get();
        reply.clear();
        boolean open = this.commands.execute(arguments, reply, connection);
        connection.write(reply.toBuffer());
        if (!open) {
            connection.close();
        }
    }

    // tag::on-error[]
    /** A request the codec refused: answered as Redis answers it, before the connection closes. */
    @OnError
    void refused(Connection connection, Throwable error) {
        if (error instanceof FramingException) {
            String reason = (error.getCause() != null) ? error.getCause().getMessage() : "request too large";
            connection.write(("-ERR Protocol error: " + reason + "\r\n").getBytes(StandardCharsets.UTF_8));
        }
    }
    // end::on-error[]
}
