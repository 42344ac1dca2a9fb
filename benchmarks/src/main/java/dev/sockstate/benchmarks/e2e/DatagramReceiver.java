package dev.sockstate.benchmarks.e2e;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.DatagramPacket;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;

/**
 * A peer of the UDP rate comparison ({@link DatagramRate}) in a process of its own, doing what the
 * sample's counting listener does: each datagram counted and answered with the count in ASCII decimal.
 * {@code DatagramReceiver <netty-epoll|jdk-nio> <port>} binds 127.0.0.1, prints {@code READY}, and stops
 * when its input closes.
 * <ul>
 * <li>{@code netty-epoll}: Netty's epoll datagram channel on one event loop with its batch reads on
 * ({@code recvmmsg}: a payload size set and a receive buffer {@value #BATCH} times it), the answers
 * written and flushed once a read is complete (Netty sends what is flushed together with
 * {@code sendmmsg});</li>
 * <li>{@code jdk-nio}: the JDK's {@code DatagramChannel} on a selector, one thread, a direct buffer:
 * receive until none is left, each answered at once.</li>
 * </ul>
 */
public final class DatagramReceiver {

    /** The most datagrams a Netty read takes, as the sockstate receiver's batch (the sample's 32). */
    static final int BATCH = 32;

    /** The room for each datagram (the sample's max-datagram-size). */
    static final int ROOM = 2048;

    private DatagramReceiver() {
    }

    /**
     * @param args the receiver and the port
     * @throws Exception when it cannot bind
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: DatagramReceiver <netty-epoll|jdk-nio> <port>");
            System.exit(2);
        }
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]));
        switch (args[0]) {
            case "netty-epoll" -> netty(address);
            case "jdk-nio" -> jdk(address);
            default -> throw new IllegalArgumentException("Unknown receiver " + args[0]);
        }
        System.exit(0);
    }

    // RCVBUF_ALLOCATOR is deprecated in Netty 4.2, and still how a datagram channel's batch reads are sized.
    @SuppressWarnings("deprecation")
    private static void netty(InetSocketAddress address) throws Exception {
        Epoll.ensureAvailability();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            Channel channel = new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                    .option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, ROOM)
                    .option(io.netty.channel.ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(ROOM * BATCH))
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {

                        private long count;

                        @Override
                        protected void channelRead0(ChannelHandlerContext context, DatagramPacket packet) {
                            byte[] answer = Long.toString(++this.count).getBytes(StandardCharsets.US_ASCII);
                            ByteBuf buffer = context.alloc().directBuffer(answer.length).writeBytes(answer);
                            context.write(new DatagramPacket(buffer, packet.sender()));
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext context) {
                            context.flush();
                        }
                    }).bind(address).sync().channel();
            ready();
            channel.close().sync();
        }
        finally {
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    private static void jdk(InetSocketAddress address) throws Exception {
        try (DatagramChannel channel = DatagramChannel.open(); Selector selector = Selector.open()) {
            channel.bind(address);
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            Thread receiving = new Thread(() -> {
                ByteBuffer in = ByteBuffer.allocateDirect(ROOM);
                ByteBuffer out = ByteBuffer.allocateDirect(24);
                long count = 0;
                try {
                    while (selector.isOpen()) {
                        selector.select();
                        selector.selectedKeys().clear();
                        SocketAddress sender;
                        while ((sender = channel.receive(in.clear())) != null) {
                            byte[] answer = Long.toString(++count).getBytes(StandardCharsets.US_ASCII);
                            channel.send(out.clear().put(answer).flip(), sender);
                        }
                    }
                }
                catch (java.nio.channels.ClosedSelectorException | java.io.IOException ex) {
                    // stopped
                }
            }, "jdk-nio-receiver");
            receiving.start();
            ready();
            selector.close();
            receiving.join(5000);
        }
    }

    /** Says it is bound, and waits for its input to close. */
    private static void ready() throws Exception {
        System.out.println("READY");
        System.out.flush();
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        while (input.readLine() != null) {
            // until the harness closes it
        }
    }
}
