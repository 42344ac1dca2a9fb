package dev.sockstate.spring.handler;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.Connection;
import dev.sockstate.server.DatagramEndpoint;
import dev.sockstate.server.InvalidMessageException;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.PeerCredentials;
import dev.sockstate.server.proxy.ProxyHeader;
import java.lang.annotation.Annotation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.UndeclaredThrowableException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.security.Principal;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * One annotated method of a {@link SocketHandler} bean, with how each of its parameters is filled
 * and what its return value means, worked out once at start-up: a method handle that takes what
 * the runtime has for every event and calls the method with its own parameters, so that a call
 * allocates no argument array and goes through no reflection.
 */
final class HandlerMethod {

    /** The positions of the values in {@link #EVENT}. */
    private static final int CONNECTION_VALUE = 0;

    private static final int DATA_VALUE = 1;

    private static final int ERROR_VALUE = 2;

    private static final int ENDPOINT_VALUE = 3;

    private static final int PEER_VALUE = 4;

    /** What the runtime passes for every event; the values that do not apply are {@code null}. */
    static final MethodType EVENT = MethodType.methodType(Object.class, Connection.class, ByteBuffer.class, Throwable.class,
            DatagramEndpoint.class, PeerAddress.class);

    /** What a parameter receives: one of the {@link #EVENT} values as it is, or computed from some of them. */
    enum Argument {

        CONNECTION(Connection.class, "Connection", null, CONNECTION_VALUE),
        BUFFER(ByteBuffer.class, "ByteBuffer", null, DATA_VALUE),
        BYTES(byte[].class, "byte[]", "bytes", DATA_VALUE),
        TEXT(String.class, "String", "text", CONNECTION_VALUE, DATA_VALUE, ENDPOINT_VALUE),
        /** The peer's IP address and port: TCP and UDP listeners only. */
        ADDRESS(InetSocketAddress.class, "InetSocketAddress", "inetAddress", CONNECTION_VALUE, PEER_VALUE),
        /** The peer's address, an IP one or a Unix domain socket's path. */
        SOCKET_ADDRESS(SocketAddress.class, "SocketAddress", "address", CONNECTION_VALUE, PEER_VALUE),
        /** The process at the other end of a Unix domain stream socket, {@code null} for TCP or where the backend tells none. */
        CREDENTIALS(PeerCredentials.class, "PeerCredentials", "credentials", CONNECTION_VALUE),
        ERROR(Throwable.class, "Throwable", null, ERROR_VALUE),
        ENDPOINT(DatagramEndpoint.class, "DatagramEndpoint", null, ENDPOINT_VALUE),
        PEER(PeerAddress.class, "PeerAddress", null, PEER_VALUE),
        /** A TLS connection's verified client, {@code null} for plaintext or a client that sent no certificate. */
        PRINCIPAL(Principal.class, "Principal", "principal", CONNECTION_VALUE),
        /** The PROXY protocol header a connection began with, {@code null} on a listener without the protocol. */
        PROXY_HEADER(ProxyHeader.class, "ProxyHeader", "proxyHeader", CONNECTION_VALUE),
        /** Any other type, read from the message by the listener's {@link MessageMapper}. */
        PAYLOAD(Object.class, "a type of your own (read by a Converter<byte[], T> bean, or from JSON with Jackson)", "payload",
                CONNECTION_VALUE, DATA_VALUE, ENDPOINT_VALUE);

        private final Class<?> type;

        private final String label;

        /** The static method of {@link HandlerMethod} that computes the argument, or null to pass the value on. */
        private final @Nullable String computation;

        /** The positions in {@link #EVENT} of the values the argument is taken or computed from. */
        private final int[] sources;

        Argument(Class<?> type, String label, @Nullable String computation, int... sources) {
            this.type = type;
            this.label = label;
            this.computation = computation;
            this.sources = sources;
        }

        /**
         * @param parameter a parameter's type
         * @param allowed what the method's kind offers: an error parameter only where errors are
         * @return what it receives, or {@code null}
         */
        static @Nullable Argument of(Class<?> parameter, Set<Argument> allowed) {
            for (Argument argument : values()) {
                if (argument == PAYLOAD || (argument == ERROR && !allowed.contains(ERROR))) {
                    continue;
                }
                if (argument == ERROR ? parameter.isAssignableFrom(NativeIoException.class) : argument.type == parameter) {
                    return argument;
                }
            }
            return parameter.isPrimitive() ? null : PAYLOAD;
        }

        /**
         * @param parameter the parameter's type
         * @return a handle from the values at {@link #sources} to the argument
         */
        MethodHandle fromSources(Class<?> parameter) {
            if (this.computation == null) {
                return MethodHandles.identity(this.type);
            }
            Class<?>[] inputs = Arrays.stream(this.sources).mapToObj(EVENT::parameterType).toArray(Class<?>[]::new);
            try {
                if (this == PAYLOAD) {
                    MethodHandle read = MethodHandles.lookup().findStatic(HandlerMethod.class, this.computation,
                            MethodType.methodType(Object.class, inputs).appendParameterTypes(Class.class));
                    return MethodHandles.insertArguments(read, inputs.length, parameter);
                }
                return MethodHandles.lookup().findStatic(HandlerMethod.class, this.computation,
                        MethodType.methodType(this.type, inputs));
            }
            catch (ReflectiveOperationException ex) {
                throw new IllegalStateException("No computation " + this.computation + " for " + this, ex);
            }
        }
    }

    /** What a method's return value may be. */
    enum Replies {

        /** Nothing: the method returns void. */
        NONE("Return void from @%s methods."),

        /** Bytes or text, sent back as they are. */
        BYTES("Return void, or a ByteBuffer, byte[] or String to send back."),

        /** Any message, sent back as {@link Connection#send} sends it. */
        MESSAGES("Return void, a ByteBuffer, byte[] or String, or an object a Converter<T, byte[]> bean or Jackson writes.");

        private final String advice;

        Replies(String advice) {
            this.advice = advice;
        }
    }

    /** Arguments every kind of method may take. */
    static final Set<Argument> CONNECTION_EVENT = EnumSet.of(Argument.CONNECTION, Argument.ADDRESS, Argument.SOCKET_ADDRESS,
            Argument.CREDENTIALS, Argument.PRINCIPAL, Argument.PROXY_HEADER);

    static final Set<Argument> CONNECTION_DATA = with(CONNECTION_EVENT, Argument.BUFFER, Argument.BYTES, Argument.TEXT);

    static final Set<Argument> CONNECTION_ERROR = with(CONNECTION_EVENT, Argument.ERROR);

    static final Set<Argument> DATAGRAM = EnumSet.of(Argument.ENDPOINT, Argument.PEER, Argument.ADDRESS, Argument.SOCKET_ADDRESS,
            Argument.BUFFER, Argument.BYTES, Argument.TEXT);

    static final Set<Argument> CONNECTION_MESSAGE = with(CONNECTION_DATA, Argument.PAYLOAD);

    static final Set<Argument> DATAGRAM_MESSAGE = with(DATAGRAM, Argument.PAYLOAD);

    private static Set<Argument> with(Set<Argument> base, Argument... more) {
        Set<Argument> all = EnumSet.copyOf(base);
        all.addAll(Arrays.asList(more));
        return all;
    }

    private final Method method;

    /** The bean's method behind its arguments' sources, of type {@link #EVENT}. */
    private final MethodHandle call;

    /** Whether a parameter is the connection's peer address. */
    private final boolean takesPeerAddress;

    /** Whether a parameter is the bytes' buffer itself, which the method consumes as far as it reads. */
    private final boolean takesBuffer;

    private HandlerMethod(Method method, MethodHandle call, boolean takesPeerAddress, boolean takesBuffer) {
        this.method = method;
        this.call = call;
        this.takesPeerAddress = takesPeerAddress;
        this.takesBuffer = takesBuffer;
    }

    /** @return whether a parameter is the bytes' {@code ByteBuffer} itself (a {@code byte[]}, text or payload is a copy of them all) */
    boolean takesBuffer() {
        return this.takesBuffer;
    }

    /** @return whether a parameter is the peer's address ({@code SocketAddress} or {@code InetSocketAddress}) */
    boolean takesPeerAddress() {
        return this.takesPeerAddress;
    }

    /**
     * Works out how to call a method, or explains why it cannot be called.
     * @param beanName the bean's name, for messages
     * @param bean the bean
     * @param method the annotated method
     * @param kind its annotation
     * @param allowed the arguments that annotation offers
     * @param replies what it may return
     * @param mapper the listener's mapper of messages of other types, or {@code null}
     * @param unix whether the listener is on a Unix domain socket, whose addresses are no {@code InetSocketAddress}
     * @return the handler method
     * @throws SocketHandlerDefinitionException naming the method and the unsupported type
     */
    static HandlerMethod of(String beanName, Object bean, Method method, Class<? extends Annotation> kind, Set<Argument> allowed,
            Replies replies, @Nullable MessageMapper mapper, boolean unix) {
        String where = "Method " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + " of bean '" + beanName
                + "', annotated @" + kind.getSimpleName() + ",";
        String offered = allowed.stream().map((argument) -> argument.label).collect(Collectors.joining(", "));
        Class<?>[] types = method.getParameterTypes();
        Argument[] arguments = new Argument[types.length];
        for (int i = 0; i < types.length; i++) {
            Argument argument = Argument.of(types[i], allowed);
            if (argument == null || !allowed.contains(argument)) {
                throw new SocketHandlerDefinitionException(where + " has a parameter of unsupported type "
                        + types[i].getSimpleName(), "Give @" + kind.getSimpleName() + " methods parameters of these types only: "
                        + offered + ".");
            }
            if (argument == Argument.PAYLOAD && (mapper == null || !mapper.canRead(types[i]))) {
                throw new SocketHandlerDefinitionException(where + " takes a " + types[i].getName() + ", which nothing reads from a"
                        + " message", "Add Jackson (spring-boot-starter-jackson) to read JSON messages, or a Converter<byte[], "
                                + types[i].getSimpleName() + "> bean; or take a ByteBuffer, byte[] or String.");
            }
            if (argument == Argument.ADDRESS && unix) {
                throw new SocketHandlerDefinitionException(where + " takes an InetSocketAddress, but its listener is on a Unix"
                        + " domain socket, whose addresses are UnixDomainSocketAddress", "Take a SocketAddress, which is either,"
                                + " or PeerCredentials to know the process at the other end.");
            }
            arguments[i] = argument;
        }
        Class<?> returned = method.getReturnType();
        boolean bytes = returned == ByteBuffer.class || returned == byte[].class || returned == String.class;
        boolean valid = switch (replies) {
            case NONE -> returned == void.class;
            case BYTES -> returned == void.class || bytes;
            case MESSAGES -> returned == void.class || bytes || returned == Object.class
                    || (!returned.isPrimitive() && mapper != null && mapper.canWrite(returned));
        };
        if (!valid) {
            throw new SocketHandlerDefinitionException(where + " returns " + returned.getSimpleName()
                    + ((replies == Replies.MESSAGES) ? ", which nothing writes as a message" : ""),
                    String.format(replies.advice, kind.getSimpleName()));
        }
        Method invocable = ClassUtils.getMostSpecificMethod(method, bean.getClass());
        if (!Modifier.isStatic(invocable.getModifiers()) && !invocable.getDeclaringClass().isInstance(bean)) {
            throw new SocketHandlerDefinitionException(where + " is not a method of the bean, a " + bean.getClass().getName()
                    + " (a JDK proxy of the class that declares it?)", "Proxy the bean by its class (proxyTargetClass = true),"
                            + " or declare the method on an interface the bean implements.");
        }
        ReflectionUtils.makeAccessible(invocable);
        boolean peerAddress = java.util.Arrays.stream(arguments)
                .anyMatch((argument) -> argument == Argument.ADDRESS || argument == Argument.SOCKET_ADDRESS);
        return new HandlerMethod(invocable, call(bean, invocable, arguments), peerAddress, Arrays.asList(arguments).contains(Argument.BUFFER));
    }

    /**
     * @return the method as a handle of type {@link #EVENT}: each parameter taken or computed from
     * the values its argument names, the result (null for void) as an Object
     */
    private static MethodHandle call(Object bean, Method method, Argument[] arguments) {
        MethodHandle target;
        try {
            target = MethodHandles.lookup().unreflect(method);
        }
        catch (IllegalAccessException ex) {
            throw new IllegalStateException("Cannot call " + method.toGenericString(), ex);
        }
        if (!Modifier.isStatic(method.getModifiers())) {
            target = target.bindTo(bean);
        }
        target = target.asType(target.type().changeReturnType(Object.class));
        Class<?>[] parameters = method.getParameterTypes();
        // Each parameter in turn is replaced by the values it is taken or computed from (computations
        // must have no side effects: they run last parameter first)...
        int[] reorder = new int[0];
        for (int i = 0; i < arguments.length; i++) {
            MethodHandle argument = arguments[i].fromSources(parameters[i]);
            target = MethodHandles.collectArguments(target, reorder.length,
                    argument.asType(argument.type().changeReturnType(parameters[i])));
            reorder = IntStream.concat(Arrays.stream(reorder), Arrays.stream(arguments[i].sources)).toArray();
        }
        // ...which are then fed from the EVENT values at those positions.
        return MethodHandles.permuteArguments(target, EVENT, reorder);
    }

    /**
     * Calls the method.
     * @return what to send back (a message, as {@link Connection#send} takes it), or {@code null}
     * @throws Exception what the method threw (an Error is rethrown as it is, any other Throwable
     * wrapped in an {@link UndeclaredThrowableException})
     */
    @Nullable Object invoke(@Nullable Connection connection, @Nullable ByteBuffer data, @Nullable Throwable error,
            @Nullable DatagramEndpoint endpoint, @Nullable PeerAddress peer) throws Exception {
        @Nullable Object result;
        try {
            result = (Object) this.call.invokeExact(connection, data, error, endpoint, peer);
        }
        catch (Exception | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            throw new UndeclaredThrowableException(ex);
        }
        return result;
    }

    // ---- the computed arguments (see Argument.computation) ----

    private static byte[] bytes(ByteBuffer data) {
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return bytes;
    }

    /** @return the message as text, in the listener's charset */
    private static String text(@Nullable Connection connection, ByteBuffer data, @Nullable DatagramEndpoint endpoint)
            throws InvalidMessageException {
        return (connection != null) ? connection.readMessage(data, String.class) : endpoint.readMessage(data, String.class);
    }

    /** @return the message read as the parameter's type by the listener's mapper */
    private static Object payload(@Nullable Connection connection, ByteBuffer data, @Nullable DatagramEndpoint endpoint, Class<?> type)
            throws InvalidMessageException {
        return (connection != null) ? connection.readMessage(data, type) : endpoint.readMessage(data, type);
    }

    private static @Nullable Principal principal(Connection connection) {
        SSLSession session = connection.tlsSession();
        if (session == null) {
            return null;
        }
        try {
            return session.getPeerPrincipal();
        }
        catch (SSLPeerUnverifiedException ex) {
            return null;
        }
    }

    private static @Nullable ProxyHeader proxyHeader(Connection connection) {
        return connection.proxyHeader();
    }

    private static SocketAddress address(@Nullable Connection connection, @Nullable PeerAddress peer) {
        return (peer != null) ? peer.toSocketAddress() : connection.remoteAddress();
    }

    private static InetSocketAddress inetAddress(@Nullable Connection connection, @Nullable PeerAddress peer) {
        return (InetSocketAddress) address(connection, peer);
    }

    private static @Nullable PeerCredentials credentials(Connection connection) {
        return connection.peerCredentials();
    }

    @Override
    public String toString() {
        return this.method.toGenericString();
    }
}
