package dev.sockstate.benchmarks.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A TCP proxy on Netty as its proxy example ({@code io.netty.example.proxy}) writes one: each accepted
 * connection, with auto-read off, gets one connection of its own to the backend on its own event loop,
 * and each side reads its next buffer only once the previous one is written to the other side. Nothing
 * is parsed, so it proxies RESP as it would any protocol. One event loop group, on the native epoll
 * transport when Netty has it (NIO otherwise), accepts and serves both sides, so the worker count is
 * the proxy's whole thread count, as in the echo comparison's {@code NettyEchoServer}.
 *
 * <p>{@code NettyProxy <listen port> <backend host:port> <workers>} listens on loopback, prints
 * {@code PORT <n>} and runs until killed.
 */
public final class NettyProxy {

    private NettyProxy() {
    }

    /**
     * @param args the port to listen on (0 for any), the backend as {@code host:port}, the worker count
     * @throws InterruptedException when interrupted while binding or serving
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3 || args[1].lastIndexOf(':') < 1) {
            System.err.println("usage: NettyProxy <listen port> <backend host:port> <workers>");
            System.exit(2);
        }
        int listenPort = Integer.parseInt(args[0]);
        int colon = args[1].lastIndexOf(':');
        InetSocketAddress backend = InetSocketAddress.createUnresolved(args[1].substring(0, colon),
                Integer.parseInt(args[1].substring(colon + 1)));
        int workers = Integer.parseInt(args[2]);

        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> serverChannel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(workers, io);
        Channel listener = new ServerBootstrap().group(group).channel(serverChannel)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new FrontendHandler.Initializer(backend))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort)).sync().channel();
        System.out.println("PORT " + ((InetSocketAddress) listener.localAddress()).getPort()
                + " (" + (epoll ? "epoll" : "nio, epoll unavailable: " + Epoll.unavailabilityCause()) + ", "
                + workers + " workers, backend " + args[1] + ")");
        System.out.flush();
        listener.closeFuture().sync();
    }
}
