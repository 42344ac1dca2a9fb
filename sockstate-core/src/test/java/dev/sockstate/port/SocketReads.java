package dev.sockstate.port;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Reading what a server under test sends, for the tests of the core and of the starter. */
public final class SocketReads {

    private SocketReads() {
    }

    /**
     * @param client a connected socket
     * @return the next line, its LF left out
     * @throws IOException when the peer closes before the line's end, or the read times out
     */
    public static String readLine(Socket client) throws IOException {
        InputStream in = client.getInputStream();
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("Closed before the line's end: " + line);
            }
            line.append((char) b);
        }
        return line.toString();
    }

    /**
     * @param in a connection's input
     * @return what arrived until the peer closed, or nothing when it reset the connection
     */
    public static String readUntilClosed(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
        catch (IOException reset) {
            return "";
        }
    }
}
