package dev.sockstate.benchmarks.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A plain JDK NIO echo server: one selector per worker thread, the first also accepting and handing
 * connections round-robin to all. Reads go into the thread's buffer and are written back; what the
 * socket does not take waits in a copy while reading pauses, so idle connections hold no buffer.
 * Framing lines, it finds each line's end and writes the whole lines of a read back at once; an
 * unfinished line waits in a copy of its own until its end arrives.
 */
final class NioEchoServer implements EchoServer {

    private final List<Loop> loops = new ArrayList<>();

    private ServerSocketChannel listener;

    @Override
    public int start(int workers) throws IOException {
        this.listener = ServerSocketChannel.open();
        this.listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
        this.listener.configureBlocking(false);
        for (int i = 0; i < workers; i++) {
            this.loops.add(new Loop(Selector.open()));
        }
        this.listener.register(this.loops.get(0).selector, SelectionKey.OP_ACCEPT);
        for (int i = 0; i < workers; i++) {
            Thread thread = new Thread(this.loops.get(i), "nio-echo-" + (i + 1));
            thread.setDaemon(true);
            thread.start();
        }
        return ((InetSocketAddress) this.listener.getLocalAddress()).getPort();
    }

    @Override
    public void close() throws IOException {
        for (Loop loop : this.loops) {
            loop.running = false;
            loop.selector.wakeup();
        }
        this.listener.close();
    }

    /** One selector thread. */
    final class Loop implements Runnable {

        final Selector selector;

        final Queue<SocketChannel> handedOver = new ConcurrentLinkedQueue<>();

        private final ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);

        private final boolean lines = EchoServer.linesFramed();

        volatile boolean running = true;

        private int next;

        Loop(Selector selector) {
            this.selector = selector;
        }

        @Override
        public void run() {
            try {
                while (this.running) {
                    this.selector.select(this::ready, 1000);
                    SocketChannel channel;
                    while ((channel = this.handedOver.poll()) != null) {
                        channel.register(this.selector, SelectionKey.OP_READ);
                    }
                }
                for (SelectionKey key : this.selector.keys()) {
                    key.channel().close();
                }
                this.selector.close();
            }
            catch (IOException | ClosedSelectorException ex) {
                // closing
            }
        }

        private void ready(SelectionKey key) {
            try {
                if (key.isAcceptable()) {
                    accept();
                }
                else if (key.isWritable()) {
                    flush(key);
                }
                else if (key.isReadable()) {
                    if (this.lines) {
                        echoLines(key);
                    }
                    else {
                        echo(key);
                    }
                }
            }
            catch (IOException ex) {
                closeQuietly(key);
            }
        }

        private void accept() throws IOException {
            for (int i = 0; i < 256; i++) {
                SocketChannel channel = NioEchoServer.this.listener.accept();
                if (channel == null) {
                    return;
                }
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Loop target = NioEchoServer.this.loops.get(this.next++ % NioEchoServer.this.loops.size());
                if (target == this) {
                    channel.register(this.selector, SelectionKey.OP_READ);
                }
                else {
                    target.handedOver.add(channel);
                    target.selector.wakeup();
                }
            }
        }

        /** @return the bytes of one read in the thread's buffer, or {@code null} when the peer closed */
        private ByteBuffer read(SelectionKey key) throws IOException {
            ByteBuffer data = this.buffer;
            data.clear();
            if (((SocketChannel) key.channel()).read(data) < 0) {
                closeQuietly(key);
                return null;
            }
            return data.flip();
        }

        private void echo(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            ByteBuffer data = read(key);
            if (data == null) {
                return;
            }
            channel.write(data);
            if (data.hasRemaining()) {
                Connection connection = new Connection();
                connection.pending = ByteBuffer.allocate(data.remaining()).put(data).flip();
                key.attach(connection);
                key.interestOps(SelectionKey.OP_WRITE);
            }
        }

        private void flush(SelectionKey key) throws IOException {
            Connection connection = (Connection) key.attachment();
            ByteBuffer pending = connection.pending;
            ((SocketChannel) key.channel()).write(pending);
            if (!pending.hasRemaining()) {
                connection.pending = null;
                if (connection.partialLine == null) {
                    key.attach(null);
                }
                key.interestOps(SelectionKey.OP_READ);
            }
        }

        /** Line framing: the whole lines go back as they came (each line and its end), an unfinished one waits. */
        private void echoLines(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            ByteBuffer data = read(key);
            if (data == null) {
                return;
            }
            Connection connection = (Connection) key.attachment();
            ByteBuffer in = data;
            if (connection != null && connection.partialLine != null) {
                ByteBuffer partial = connection.partialLine;
                in = ByteBuffer.allocate(partial.remaining() + data.remaining());
                in.put(partial).put(data).flip();
                connection.partialLine = null;
            }
            int lineEnd = -1;
            for (int i = in.position(); i < in.limit(); i++) {
                if (in.get(i) == '\n') {
                    lineEnd = i;
                }
            }
            if (lineEnd >= 0) {
                ByteBuffer lines = in.duplicate();
                lines.limit(lineEnd + 1);
                channel.write(lines);
                if (lines.hasRemaining()) {
                    connection = (connection != null) ? connection : new Connection();
                    connection.pending = ByteBuffer.allocate(lines.remaining()).put(lines).flip();
                    key.interestOps(SelectionKey.OP_WRITE);
                }
                in.position(lineEnd + 1);
            }
            if (in.hasRemaining()) {
                connection = (connection != null) ? connection : new Connection();
                connection.partialLine = ByteBuffer.allocate(in.remaining()).put(in).flip();
            }
            key.attach((connection != null && (connection.pending != null || connection.partialLine != null)) ? connection : null);
        }

        private void closeQuietly(SelectionKey key) {
            key.cancel();
            try {
                key.channel().close();
            }
            catch (IOException ex) {
                // closed all the same
            }
        }
    }

    /** What a connection keeps only while it has to: bytes the socket did not take, an unfinished line. */
    static final class Connection {

        ByteBuffer pending;

        ByteBuffer partialLine;
    }
}
