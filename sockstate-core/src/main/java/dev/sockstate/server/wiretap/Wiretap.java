package dev.sockstate.server.wiretap;

import dev.sockstate.server.Connection;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A stage that logs what passes through it, for debugging a protocol: each connection's open,
 * bytes in and out (as hex and text, {@value HexLines#BYTES_PER_LINE} bytes a line, at most
 * {@value HexLines#MOST_LINES} lines an event), hang-up, end of output and close, at DEBUG on the
 * logger {@code dev.sockstate.wiretap.<listener>}, so that one listener's traffic can be turned on
 * alone. It changes nothing that passes. Placed after TLS (when the listener has TLS) and before
 * the other stages and the framing, it shows the bytes the application's protocol sees.
 * <p>
 * Cheap when the logger is off: each event asks the logger once and formats nothing (the stage is
 * still called); a listener without a wiretap has no such stage at all.
 */
public final class Wiretap implements Stage {

    /** The logger names' prefix; the listener's name follows. */
    public static final String LOGGER_PREFIX = "dev.sockstate.wiretap.";

    private final Logger logger;

    private Wiretap(Logger logger) {
        this.logger = logger;
    }

    /**
     * @param listener the listener's name, the last part of the logger's name
     * @return the maker of each connection's wiretap, for {@code ConnectionSettings.Builder#stage}: the
     * logger is looked up once, here
     */
    public static Supplier<Stage> of(String listener) {
        Logger logger = System.getLogger(LOGGER_PREFIX + listener);
        return () -> new Wiretap(logger);
    }

    @Override
    public void open(StageContext context) throws Exception {
        if (this.logger.isLoggable(Level.DEBUG)) {
            Connection connection = context.connection();
            log(context, "OPEN from " + hostAndPort(connection.remoteAddress()) + " to " + hostAndPort(connection.localAddress()));
        }
        context.passOpen();
    }

    @Override
    public void data(StageContext context, ByteBuffer data) throws Exception {
        if (this.logger.isLoggable(Level.DEBUG)) {
            log(context, "READ " + HexLines.of(data));
        }
        context.passData(data);
    }

    @Override
    public void write(StageContext context, ByteBuffer data) throws Exception {
        if (this.logger.isLoggable(Level.DEBUG)) {
            log(context, "WRITE " + HexLines.of(data));
        }
        context.write(data);
    }

    @Override
    public void hangup(StageContext context) throws Exception {
        if (this.logger.isLoggable(Level.DEBUG)) {
            log(context, "HANGUP (the peer's input ended)");
        }
        context.passHangup();
    }

    @Override
    public void outputEnding(StageContext context) throws Exception {
        if (this.logger.isLoggable(Level.DEBUG)) {
            log(context, "OUTPUT ENDING");
        }
    }

    @Override
    public void closed(StageContext context) {
        if (this.logger.isLoggable(Level.DEBUG)) {
            log(context, "CLOSED");
        }
    }

    /**
     * @return {@code 127.0.0.1:7007} or {@code [::1]:7007}, as users write addresses; {@code unix:/run/app/echo.sock},
     * {@code unix:} for an unnamed Unix domain socket
     */
    private static String hostAndPort(@Nullable SocketAddress socketAddress) {
        if (!(socketAddress instanceof InetSocketAddress address)) {
            return (socketAddress == null) ? "?" : "unix:" + socketAddress;
        }
        String host = address.getAddress().getHostAddress();
        return ((address.getAddress() instanceof Inet6Address) ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    private void log(StageContext context, String event) {
        Connection connection = context.connection();
        this.logger.log(Level.DEBUG, "[" + connection.listenerName() + " #" + connection.id() + "] " + event);
    }
}
