package dev.sockstate.benchmarks.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The backend's side of one proxied connection: replies go back to the client the way requests go
 * out ({@link FrontendHandler#forward}), one buffer at a time, the next read asked for once the
 * previous reply is written. It starts reading as soon as the backend connection is up.
 */
final class BackendHandler extends ChannelInboundHandlerAdapter {

    private final Channel inbound;

    BackendHandler(Channel inbound) {
        this.inbound = inbound;
    }

    @Override
    public void channelActive(ChannelHandlerContext context) {
        context.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        FrontendHandler.forward(message, this.inbound, context.channel());
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        FrontendHandler.closeAfterFlush(this.inbound);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        System.err.println("backend side: " + cause);
        FrontendHandler.closeAfterFlush(context.channel());
    }
}
