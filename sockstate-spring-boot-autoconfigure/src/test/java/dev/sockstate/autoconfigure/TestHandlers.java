package dev.sockstate.autoconfigure;

import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnClose;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.OnDatagram;
import dev.sockstate.spring.handler.OnError;
import dev.sockstate.spring.handler.OnHangup;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Handler beans the auto-configuration tests use. */
final class TestHandlers {

    private TestHandlers() {
    }

    @SocketHandler("echo")
    static class Echo {

        final AtomicInteger opened = new AtomicInteger();

        final AtomicInteger closed = new AtomicInteger();

        @OnOpen
        void open(Connection connection, InetSocketAddress peer) {
            this.opened.incrementAndGet();
        }

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }

        @OnClose
        void close() {
            this.closed.incrementAndGet();
        }
    }

    @SocketHandler("upper")
    static class Upper {

        @OnData
        String upper(String text, Connection connection) {
            return text.toUpperCase(java.util.Locale.ROOT);
        }

        @OnHangup
        void hangup(Connection connection) {
            connection.write("bye".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            connection.close();
        }

        @OnError
        void error(Throwable error) {
        }
    }

    @SocketHandler(listener = "udp")
    static class Reflect {

        @OnDatagram
        byte[] reflect(byte[] datagram) {
            return datagram;
        }
    }

    @SocketHandler("slow")
    static class Slow {

        final AtomicInteger overlaps = new AtomicInteger();

        @OnData
        byte[] handle(byte[] data, Connection connection) throws InterruptedException {
            if (connection.attributes().putIfAbsent("busy", true) != null) {
                this.overlaps.incrementAndGet();
            }
            Thread.sleep(100);
            connection.attributes().remove("busy");
            return data;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EchoConfiguration {

        @Bean
        Echo echoHandler() {
            return new Echo();
        }
    }

    /** Takes the peer's address only as the connection ends: after a close, or a reset. */
    @SocketHandler("echo")
    static class PeerAtTheEnd {

        final java.util.Queue<java.net.SocketAddress> failed = new java.util.concurrent.ConcurrentLinkedQueue<>();

        final java.util.Queue<java.net.SocketAddress> closed = new java.util.concurrent.ConcurrentLinkedQueue<>();

        @OnData
        ByteBuffer echo(ByteBuffer data) {
            return data;
        }

        @OnError
        void failed(Throwable error, java.net.SocketAddress peer) {
            this.failed.add(peer);
        }

        @OnClose
        void closed(java.net.SocketAddress peer) {
            this.closed.add(peer);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PeerAtTheEndConfiguration {

        @Bean
        PeerAtTheEnd peerAtTheEnd() {
            return new PeerAtTheEnd();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AllConfiguration {

        @Bean
        Echo echoHandler() {
            return new Echo();
        }

        @Bean
        Upper upperHandler() {
            return new Upper();
        }

        @Bean
        Reflect reflectHandler() {
            return new Reflect();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SlowConfiguration {

        @Bean
        Slow slowHandler() {
            return new Slow();
        }
    }
}
