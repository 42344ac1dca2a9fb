package dev.sockstate.sample.resp;

import dev.sockstate.server.Connection;
import dev.sockstate.server.proxy.ProxyHeader;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * The commands of the RESP listeners: PING, ECHO, SET, GET, DEL, INCR, EXISTS, CLIENT ID and CLIENT INFO
 * (the address the client is seen from, behind a load balancer too), and what clients ask on connecting.
 */
public final class RespCommands {

    /** The error a write gets when the store is full, in the words Redis uses past its maxmemory. */
    static final String STORE_FULL = "OOM command not allowed when the store is full (sample.resp.store.max-keys or max-size)";

    private final KeyValueStore store;

    /** @param store the keys and values */
    public RespCommands(KeyValueStore store) {
        this.store = store;
    }

    /**
     * Runs one request, appending its reply.
     * @param arguments the command and its arguments
     * @param reply where the reply goes
     * @return false when the connection should close after the reply (QUIT)
     */
    public boolean execute(List<byte[]> arguments, RespReply reply) {
        return execute(arguments, reply, null);
    }

    /**
     * Runs one request of a client, appending its reply.
     * @param arguments the command and its arguments
     * @param reply where the reply goes
     * @param client the connection the request came on, for CLIENT; {@code null} for none
     * @return false when the connection should close after the reply (QUIT)
     */
    public boolean execute(List<byte[]> arguments, RespReply reply, Connection client) {
        String command = new String(arguments.get(0), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
        int count = arguments.size();
        switch (command) {
            case "ping" -> {
                if (count == 1) {
                    reply.simple("PONG");
                }
                else if (count == 2) {
                    reply.bulk(arguments.get(1));
                }
                else {
                    arity(reply, command);
                }
            }
            case "echo" -> {
                if (count == 2) {
                    reply.bulk(arguments.get(1));
                }
                else {
                    arity(reply, command);
                }
            }
            case "set" -> {
                if (count != 3) {
                    if (count < 3) {
                        arity(reply, command);
                    }
                    else {
                        reply.error("ERR syntax error");
                    }
                }
                else if (this.store.set(arguments.get(1), arguments.get(2))) {
                    reply.simple("OK");
                }
                else {
                    reply.error(STORE_FULL);
                }
            }
            case "get" -> {
                if (count == 2) {
                    reply.bulk(this.store.get(arguments.get(1)));
                }
                else {
                    arity(reply, command);
                }
            }
            case "del", "exists" -> {
                if (count < 2) {
                    arity(reply, command);
                    break;
                }
                long found = 0;
                for (int i = 1; i < count; i++) {
                    found += ("del".equals(command) ? this.store.delete(arguments.get(i)) : this.store.exists(arguments.get(i))) ? 1 : 0;
                }
                reply.integer(found);
            }
            case "incr" -> {
                if (count != 2) {
                    arity(reply, command);
                    break;
                }
                try {
                    reply.integer(this.store.increment(arguments.get(1)));
                }
                catch (NumberFormatException | ArithmeticException ex) {
                    reply.error("ERR value is not an integer or out of range");
                }
                catch (KeyValueStore.StoreFullException ex) {
                    reply.error(STORE_FULL);
                }
            }
            case "client" -> client(arguments, reply, client);
            case "config", "command" -> reply.array(0);
            case "quit" -> {
                reply.simple("OK");
                return false;
            }
            default -> reply.error("ERR unknown command '" + printable(arguments.get(0)) + "', with args beginning with: ");
        }
        return true;
    }

    /** CLIENT ID and CLIENT INFO, as Redis answers them: the address is the client's, as the load balancer's header names it. */
    private static void client(List<byte[]> arguments, RespReply reply, Connection client) {
        String subcommand = (arguments.size() == 2) ? new String(arguments.get(1), StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT) : "";
        if (client == null || !(subcommand.equals("id") || subcommand.equals("info"))) {
            reply.error("ERR unknown subcommand or wrong number of arguments for 'client': try CLIENT ID or CLIENT INFO");
            return;
        }
        if (subcommand.equals("id")) {
            reply.integer(client.id());
            return;
        }
        ProxyHeader header = client.proxyHeader();
        String info = "id=" + client.id() + " addr=" + address(client.remoteAddress()) + " laddr=" + address(client.localAddress())
                + " proxy=" + ((header != null) ? address(header.proxyAddress()) : "none") + "\n";
        reply.bulk(info.getBytes(StandardCharsets.US_ASCII));
    }

    private static String address(SocketAddress address) {
        if (!(address instanceof InetSocketAddress inet)) {
            // A Unix domain socket's: its path, empty for an unnamed client.
            return address.toString();
        }
        String host = inet.getAddress().getHostAddress();
        return ((host.indexOf(':') >= 0) ? "[" + host + "]" : host) + ":" + inet.getPort();
    }

    private static void arity(RespReply reply, String command) {
        reply.error("ERR wrong number of arguments for '" + command + "' command");
    }

    private static String printable(byte[] name) {
        String text = new String(name, 0, Math.min(name.length, 64), StandardCharsets.UTF_8);
        return text.replaceAll("[\\p{Cntrl}]", "?");
    }
}
