package dev.sockstate.benchmarks.e2e;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Netty's echo server on the native epoll transport, as its own example writes it: write each read,
 * flush when the read burst completes. One event loop group serves the listener and the connections,
 * so it has exactly the worker count the others have. With TLS, Netty's {@code SslHandler} on the
 * JDK's provider comes first in each pipeline.
 */
final class NettyEchoServer implements EchoServer {

    /** The provider of the {@code SslHandler} first in each pipeline ({@link TlsKeys}), {@code null} for none. */
    private final SslProvider tls;

    private EventLoopGroup group;

    private Channel channel;

    NettyEchoServer() {
        this(null);
    }

    /** @param tls the provider of an {@code SslHandler} first in each pipeline, {@code null} for none */
    NettyEchoServer(SslProvider tls) {
        this.tls = tls;
    }

    @Override
    public int start(int workers) throws Exception {
        if (!Epoll.isAvailable()) {
            throw new IllegalStateException("Netty's native epoll transport is unavailable", Epoll.unavailabilityCause());
        }
        this.group = new MultiThreadIoEventLoopGroup(workers, EpollIoHandler.newFactory());
        EchoHandler echo = new EchoHandler();
        LineEchoHandler lineEcho = new LineEchoHandler();
        boolean lines = EchoServer.linesFramed();
        SslContext ssl = (this.tls != null) ? SslContextBuilder.forServer(TlsKeys.keyManagers()).sslProvider(this.tls).build() : null;
        ServerBootstrap bootstrap = new ServerBootstrap().group(this.group).channel(EpollServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096).childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (ssl != null) {
                            channel.pipeline().addLast(ssl.newHandler(channel.alloc()));
                        }
                        if (lines) {
                            // Netty's line framing, the delimiter stripped, and written back after each line.
                            channel.pipeline().addLast(new LineBasedFrameDecoder(64 * 1024), lineEcho);
                        }
                        else {
                            channel.pipeline().addLast(echo);
                        }
                    }
                });
        this.channel = bootstrap.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        return ((InetSocketAddress) this.channel.localAddress()).getPort();
    }

    @Override
    public long untrackedNativeBytes() {
        return Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
    }

    @Override
    public void close() throws Exception {
        if (this.channel != null) {
            this.channel.close().sync();
        }
        if (this.group != null) {
            this.group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    /** Echoes each line with its line end; shared by every channel since it keeps no state. */
    @Sharable
    static final class LineEchoHandler extends EchoHandler {

        private static final ByteBuf LF = Unpooled.unreleasableBuffer(Unpooled.directBuffer(1).writeByte('\n'));

        @Override
        public void channelRead(ChannelHandlerContext context, Object message) {
            context.write(message, context.voidPromise());
            context.write(LF.duplicate(), context.voidPromise());
        }
    }

    /** Echoes; shared by every channel since it keeps no state. */
    @Sharable
    static class EchoHandler extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext context, Object message) {
            context.write(message, context.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext context) {
            context.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
            context.close();
        }
    }
}
