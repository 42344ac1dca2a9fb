package dev.sockstate.benchmarks.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;

/**
 * The client's side of one proxied connection. Once the client's connection is up, it opens the
 * backend connection on the same event loop (so both sides of the pair share a thread and never hand
 * over), then reads the client's first buffer once that connection is made. Each buffer read is
 * written and flushed to the backend, and the next read is asked for only when that write completes:
 * auto-read off, one buffer in flight per direction, which is all the back-pressure there is.
 */
final class FrontendHandler extends ChannelInboundHandlerAdapter {

    private final InetSocketAddress backend;

    /** The backend connection; set on the event loop in {@link #channelActive} and read only there. */
    private Channel outbound;

    FrontendHandler(InetSocketAddress backend) {
        this.backend = backend;
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        Channel inbound = context.channel();
        ChannelFuture connect = new Bootstrap().group(inbound.eventLoop()).channel(inbound.getClass())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new BackendHandler(inbound))
                .connect(this.backend.getHostString(), this.backend.getPort());
        this.outbound = connect.channel();
        connect.addListener((ChannelFutureListener) (future) -> {
            if (future.isSuccess()) {
                inbound.read();
            }
            else {
                inbound.close();
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        forward(message, this.outbound, context.channel());
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        if (this.outbound != null) {
            closeAfterFlush(this.outbound);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        System.err.println("client side: " + cause);
        closeAfterFlush(context.channel());
    }

    /**
     * Writes a buffer read from one side to the other and reads the next one from {@code source} once
     * it is written; a failed write closes the side written to, whose close then closes the other.
     */
    static void forward(Object message, Channel target, Channel source) {
        target.writeAndFlush(message).addListener((ChannelFutureListener) (future) -> {
            if (future.isSuccess()) {
                source.read();
            }
            else {
                future.channel().close();
            }
        });
    }

    /** Closes a channel once what is queued on it is written, so that a side's last bytes still get through. */
    static void closeAfterFlush(Channel channel) {
        if (channel.isActive()) {
            channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Puts a fresh {@link FrontendHandler} in each accepted connection's pipeline. */
    static final class Initializer extends ChannelInitializer<Channel> {

        private final InetSocketAddress backend;

        Initializer(InetSocketAddress backend) {
            this.backend = backend;
        }

        @Override
        protected void initChannel(Channel channel) {
            channel.pipeline().addLast(new FrontendHandler(this.backend));
        }
    }
}
