package dev.sockstate.spring.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.Connection;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.PeerCredentials;
import dev.sockstate.spring.handler.HandlerMethod.Replies;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How an annotated method is called: every parameter filled from the event, replies and failures passed on as they are. */
class HandlerMethodTests {

    private final Recorder bean = new Recorder();

    @Test
    void everyDataParameterIsFilledFromTheSameBytes() throws Exception {
        HandlerMethod method = method("data", OnData.class, HandlerMethod.CONNECTION_DATA, true);
        ByteBuffer data = ByteBuffer.wrap("héllo".getBytes(StandardCharsets.UTF_8));
        Object reply = method.invoke(textConnection(), data, null, null, PeerAddress.of(new InetSocketAddress("127.0.0.1", 7007)));
        assertThat(this.bean.calls).containsExactly("héllo", "héllo", "héllo", "/127.0.0.1:7007");
        assertThat(data.position()).as("the extractors read duplicates").isZero();
        assertThat(reply).isEqualTo("HÉLLO");
    }

    @Test
    void anErrorParameterOfANarrowerTypeReceivesTheNativeFailure() throws Exception {
        HandlerMethod method = method("error", OnError.class, HandlerMethod.CONNECTION_ERROR, false);
        NativeIoException reset = new NativeIoException("recv", NativeError.CONNECTION_RESET, 104, "Connection reset by peer");
        assertThat(method.invoke(null, null, reset, null, null)).isNull();
        assertThat(this.bean.calls).containsExactly("recv failed: Connection reset by peer (CONNECTION_RESET, code 104)");
    }

    @Test
    void aMethodWithoutParametersIsCalledAndAVoidOneRepliesNothing() throws Exception {
        HandlerMethod method = method("closed", OnClose.class, HandlerMethod.CONNECTION_EVENT, false);
        assertThat(method.invoke(null, null, null, null, null)).isNull();
        assertThat(this.bean.calls).containsExactly("closed");
    }

    @Test
    void aDatagramMethodReceivesTheEndpointAndTheSender() throws Exception {
        HandlerMethod method = method("datagram", OnDatagram.class, HandlerMethod.DATAGRAM, true);
        PeerAddress sender = PeerAddress.of(new InetSocketAddress("::1", 9));
        DatagramEndpoint endpoint = (DatagramEndpoint) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { DatagramEndpoint.class }, (proxy, called, args) -> "endpoint");
        Object reply = method.invoke(null, ByteBuffer.wrap(new byte[] { 1, 2 }), null, endpoint, sender);
        assertThat(this.bean.calls).containsExactly("endpoint", sender.toString());
        assertThat(reply).isEqualTo(new byte[] { 1, 2 });
    }

    @Test
    void aUnixDatagramsSenderIsASocketAddressAndAConnectionsPeerComesWithItsCredentials() throws Exception {
        HandlerMethod datagram = method("unixDatagram", OnDatagram.class, HandlerMethod.DATAGRAM, false);
        PeerAddress sender = PeerAddress.of(UnixDomainSocketAddress.of("/run/client.sock"));
        datagram.invoke(null, ByteBuffer.allocate(0), null, null, sender);
        assertThat(this.bean.calls).containsExactly("/run/client.sock");
        HandlerMethod open = method("who", OnOpen.class, HandlerMethod.CONNECTION_EVENT, false);
        PeerCredentials credentials = new PeerCredentials(42, 1000, 100);
        Connection unix = (Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { Connection.class }, (proxy, called, args) -> called.getName().equals("peerCredentials") ? credentials
                        : called.getName().equals("remoteAddress") ? UnixDomainSocketAddress.of("") : null);
        open.invoke(unix, null, null, null, null);
        assertThat(this.bean.calls).containsExactly("/run/client.sock", "", "PeerCredentials[pid=42, uid=1000, gid=100]");
    }

    @Test
    void anInetSocketAddressParameterIsRefusedOnAUnixListenerNamingTheFix() {
        Method data = Arrays.stream(Recorder.class.getDeclaredMethods()).filter((candidate) -> candidate.getName().equals("data"))
                .findFirst().orElseThrow();
        assertThatExceptionOfType(SocketHandlerDefinitionException.class)
                .isThrownBy(() -> HandlerMethod.of("recorder", this.bean, data, OnData.class, HandlerMethod.CONNECTION_DATA,
                        Replies.BYTES, null, true))
                .withMessageContaining("Method Recorder.data of bean 'recorder'").withMessageContaining("takes an InetSocketAddress")
                .satisfies((ex) -> assertThat(ex.action()).contains("Take a SocketAddress"));
    }

    @Test
    void aCheckedExceptionThrownByTheMethodReachesTheCallerUnwrapped() {
        HandlerMethod method = method("refuse", OnOpen.class, HandlerMethod.CONNECTION_EVENT, false);
        assertThatExceptionOfType(IOException.class).isThrownBy(() -> method.invoke(null, null, null, null, null))
                .withMessage("refused");
    }

    @Test
    void anErrorThrownByTheMethodReachesTheCallerUnwrapped() {
        HandlerMethod method = method("fail", OnOpen.class, HandlerMethod.CONNECTION_EVENT, false);
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> method.invoke(null, null, null, null, null))
                .withMessage("failed");
    }

    @Test
    void theConnectionIsPassedAsItIs() throws Exception {
        HandlerMethod method = method("opened", OnOpen.class, HandlerMethod.CONNECTION_EVENT, false);
        Connection connection = (Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { Connection.class }, (proxy, called, args) -> called.getName().equals("toString") ? "conn" : null);
        method.invoke(connection, null, null, null, null);
        assertThat(this.bean.calls).containsExactly("conn");
    }

    @Test
    void errorParametersOfWiderTypesReceiveTheFailureToo() throws Exception {
        NativeIoException reset = new NativeIoException("recv", NativeError.CONNECTION_RESET, 104, "Connection reset by peer");
        method("errorAsIo", OnError.class, HandlerMethod.CONNECTION_ERROR, false).invoke(null, null, reset, null, null);
        method("errorAsThrowable", OnError.class, HandlerMethod.CONNECTION_ERROR, false).invoke(null, null, reset, null, null);
        assertThat(this.bean.calls).containsExactly("io: CONNECTION_RESET", "throwable: CONNECTION_RESET");
    }

    @Test
    void anInheritedMethodReturningTheBufferAndAStaticMethodReturningTextAreCalled() throws Exception {
        HandlerMethod inherited = HandlerMethod.of("recorder", this.bean, Base.class.getDeclaredMethod("echo", ByteBuffer.class),
                OnData.class, HandlerMethod.CONNECTION_DATA, Replies.BYTES, null, false);
        ByteBuffer data = ByteBuffer.wrap(new byte[] { 7 });
        assertThat(inherited.invoke(null, data, null, null, null)).isSameAs(data);
        HandlerMethod shout = method("shout", OnData.class, HandlerMethod.CONNECTION_DATA, true);
        Object reply = shout.invoke(textConnection(), ByteBuffer.wrap("hi".getBytes(StandardCharsets.UTF_8)), null, null, null);
        assertThat(reply).isEqualTo("HI!");
    }

    @Test
    void aMethodTheBeanDoesNotHaveIsRefusedNamingTheBeanAndTheFix() {
        Method closed = Arrays.stream(Recorder.class.getDeclaredMethods()).filter((candidate) -> candidate.getName().equals("closed"))
                .findFirst().orElseThrow();
        Object proxy = java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Runnable.class },
                (target, called, args) -> null);
        assertThatExceptionOfType(SocketHandlerDefinitionException.class)
                .isThrownBy(() -> HandlerMethod.of("proxied", proxy, closed, OnClose.class, HandlerMethod.CONNECTION_EVENT, Replies.NONE,
                        null, false))
                .withMessageContaining("Method Recorder.closed of bean 'proxied'").withMessageContaining("is not a method of the bean");
    }

    private HandlerMethod method(String name, Class<? extends Annotation> kind, Set<HandlerMethod.Argument> allowed,
            boolean mayReply) {
        Method method = Arrays.stream(Recorder.class.getDeclaredMethods()).filter((candidate) -> candidate.getName().equals(name))
                .findFirst().orElseThrow();
        return HandlerMethod.of("recorder", this.bean, method, kind, allowed, mayReply ? Replies.BYTES : Replies.NONE, null, false);
    }

    /** A connection that reads text in UTF-8, as a listener does by default. */
    private Connection textConnection() {
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
                (proxy, called, args) -> called.getName().equals("readMessage")
                        ? StandardCharsets.UTF_8.decode(((ByteBuffer) args[0]).duplicate()).toString() : null);
    }

    static class Base {

        ByteBuffer echo(ByteBuffer data) {
            return data;
        }
    }

    static class Recorder extends Base {

        static String shout(String text) {
            return text.toUpperCase(java.util.Locale.ROOT) + "!";
        }

        void errorAsIo(IOException failure) {
            this.calls.add("io: " + ((NativeIoException) failure).error());
        }

        void errorAsThrowable(Throwable failure) {
            this.calls.add("throwable: " + ((NativeIoException) failure).error());
        }

        final List<String> calls = new ArrayList<>();

        void unixDatagram(SocketAddress sender) {
            this.calls.add(((UnixDomainSocketAddress) sender).getPath().toString());
        }

        void who(SocketAddress peer, PeerCredentials credentials) {
            this.calls.add(((UnixDomainSocketAddress) peer).getPath().toString());
            this.calls.add(credentials.toString());
        }

        String data(ByteBuffer buffer, byte[] bytes, String text, InetSocketAddress peer) {
            this.calls.add(StandardCharsets.UTF_8.decode(buffer.duplicate()).toString());
            this.calls.add(new String(bytes, StandardCharsets.UTF_8));
            this.calls.add(text);
            this.calls.add(peer.toString());
            return text.toUpperCase(java.util.Locale.ROOT);
        }

        void error(NativeIoException failure) {
            this.calls.add(failure.getMessage());
        }

        void closed() {
            this.calls.add("closed");
        }

        byte[] datagram(DatagramEndpoint endpoint, PeerAddress sender, ByteBuffer data) {
            this.calls.add(endpoint.toString());
            this.calls.add(sender.toString());
            byte[] copy = new byte[data.remaining()];
            data.get(copy);
            return copy;
        }

        void refuse() throws IOException {
            throw new IOException("refused");
        }

        void fail() {
            throw new AssertionError("failed");
        }

        void opened(Connection connection) {
            this.calls.add(connection.toString());
        }
    }
}
