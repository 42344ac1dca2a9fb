package dev.sockstate.server.engine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Idle clients in a process of their own, so that their sockets take nothing from the heap of the
 * server they connect to: opens {@code args[1]} connections to the loopback port {@code args[0]},
 * echoes one byte on each (the server accepted and served it), prints {@code OPEN <n>}, and closes
 * them all when its standard input closes.
 */
public final class IdleClientsMain {

    private IdleClientsMain() {
    }

    public static void main(String[] args) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0]));
        int count = Integer.parseInt(args[1]);
        List<Socket> clients = new ArrayList<>(count);
        System.out.println("READY");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (in.readLine() == null) {
            return;
        }
        try {
            for (int i = 0; i < count; i++) {
                Socket client = new Socket();
                clients.add(client);
                client.connect(server, 5000);
                client.setSoTimeout(10_000);
                client.getOutputStream().write(i);
                if (client.getInputStream().read() != (i & 0xff)) {
                    throw new IOException("connection " + i + " was not echoed");
                }
            }
            System.out.println("OPEN " + clients.size());
            System.out.flush();
            while (in.readLine() != null) {
                // Held until the parent closes our input.
            }
        }
        finally {
            for (Socket client : clients) {
                client.close();
            }
        }
    }
}
