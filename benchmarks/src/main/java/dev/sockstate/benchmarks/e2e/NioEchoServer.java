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
                    echo(key);
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

        private void echo(SelectionKey key) throws IOException {
            SocketChannel channel = (SocketChannel) key.channel();
            ByteBuffer data = this.buffer;
            data.clear();
            int read = channel.read(data);
            if (read < 0) {
                closeQuietly(key);
                return;
            }
            data.flip();
            channel.write(data);
            if (data.hasRemaining()) {
                ByteBuffer pending = ByteBuffer.allocate(data.remaining());
                pending.put(data).flip();
                key.attach(pending);
                key.interestOps(SelectionKey.OP_WRITE);
            }
        }

        private void flush(SelectionKey key) throws IOException {
            ByteBuffer pending = (ByteBuffer) key.attachment();
            ((SocketChannel) key.channel()).write(pending);
            if (!pending.hasRemaining()) {
                key.attach(null);
                key.interestOps(SelectionKey.OP_READ);
            }
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
}
