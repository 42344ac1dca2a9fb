package dev.sockstate.sample.resp;

import dev.sockstate.autoconfigure.handler.SocketHandler;
import dev.sockstate.server.Connection;
import dev.sockstate.server.ConnectionHandler;
import java.nio.ByteBuffer;

/**
 * A key-value server speaking the Redis protocol (RESP2), so that {@code redis-cli} and
 * {@code redis-benchmark} work against it. A connection carries a parser only while a request is
 * unfinished; every read's replies leave in one write.
 */
@SocketHandler("resp")
public class RespHandler implements ConnectionHandler {

    private final RespCommands commands;

    /** @param store the keys and values */
    public RespHandler(KeyValueStore store) {
        this.commands = new RespCommands(store);
    }

    @Override
    public void onData(Connection connection, ByteBuffer data) {
        RespParser parser = (connection.attachment() instanceof RespParser attached) ? attached : new RespParser();
        RespReply reply = new RespReply();
        boolean[] open = { true };
        try {
            parser.feed(data, (arguments) -> {
                open[0] = this.commands.execute(arguments, reply);
                return open[0];
            });
        }
        catch (RespProtocolException ex) {
            reply.error("ERR Protocol error: " + ex.getMessage());
            open[0] = false;
        }
        connection.attach(parser.hasPending() ? parser : null);
        if (!reply.isEmpty()) {
            connection.write(reply.toBuffer());
        }
        if (!open[0]) {
            connection.close();
        }
    }
}
