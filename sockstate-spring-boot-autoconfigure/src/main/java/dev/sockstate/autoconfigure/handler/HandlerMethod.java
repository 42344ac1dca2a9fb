package dev.sockstate.autoconfigure.handler;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.Connection;
import dev.sockstate.server.DatagramEndpoint;
import java.lang.annotation.Annotation;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.UndeclaredThrowableException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * One annotated method of a {@link SocketHandler} bean, with how each of its parameters is filled
 * and what its return value means, worked out once at start-up: a method handle that takes what
 * the runtime has for every event and calls the method with its own parameters, so that a call
 * allocates no argument array and goes through no reflection.
 */
final class HandlerMethod {

    /** What a parameter receives. */
    enum Argument {

        CONNECTION(Connection.class, "Connection"),
        BUFFER(ByteBuffer.class, "ByteBuffer"),
        BYTES(byte[].class, "byte[]"),
        TEXT(String.class, "String"),
        ADDRESS(InetSocketAddress.class, "InetSocketAddress"),
        ERROR(Throwable.class, "Throwable"),
        ENDPOINT(DatagramEndpoint.class, "DatagramEndpoint"),
        PEER(PeerAddress.class, "PeerAddress");

        private final Class<?> type;

        private final String label;

        Argument(Class<?> type, String label) {
            this.type = type;
            this.label = label;
        }

        static Argument of(Class<?> parameter) {
            for (Argument argument : values()) {
                if (argument == ERROR ? parameter.isAssignableFrom(NativeIoException.class) : argument.type == parameter) {
                    return argument;
                }
            }
            return null;
        }

        /** @return a handle that picks or computes this argument from what the runtime passes ({@link #EVENT}) */
        MethodHandle extractor() {
            String name = name().toLowerCase(Locale.ROOT) + "Argument";
            try {
                return MethodHandles.lookup().findStatic(HandlerMethod.class, name, EVENT.changeReturnType(this.type));
            }
            catch (ReflectiveOperationException ex) {
                throw new IllegalStateException("No extractor " + name, ex);
            }
        }
    }

    /** What the runtime passes for every event; the parameters that do not apply are {@code null}. */
    static final MethodType EVENT = MethodType.methodType(Object.class, Connection.class, ByteBuffer.class, Throwable.class,
            DatagramEndpoint.class, PeerAddress.class);

    /** Arguments every kind of method may take. */
    static final Set<Argument> CONNECTION_EVENT = EnumSet.of(Argument.CONNECTION, Argument.ADDRESS);

    static final Set<Argument> CONNECTION_DATA = EnumSet.of(Argument.CONNECTION, Argument.ADDRESS, Argument.BUFFER,
            Argument.BYTES, Argument.TEXT);

    static final Set<Argument> CONNECTION_ERROR = EnumSet.of(Argument.CONNECTION, Argument.ADDRESS, Argument.ERROR);

    static final Set<Argument> DATAGRAM = EnumSet.of(Argument.ENDPOINT, Argument.PEER, Argument.ADDRESS, Argument.BUFFER,
            Argument.BYTES, Argument.TEXT);

    private final Method method;

    /** The bean's method behind the arguments' extractors, of type {@link #EVENT}. */
    private final MethodHandle call;

    private final boolean replies;

    private HandlerMethod(Method method, MethodHandle call, boolean replies) {
        this.method = method;
        this.call = call;
        this.replies = replies;
    }

    /**
     * Works out how to call a method, or explains why it cannot be called.
     * @param beanName the bean's name, for messages
     * @param bean the bean
     * @param method the annotated method
     * @param kind its annotation
     * @param allowed the arguments that annotation offers
     * @param mayReply whether a return value is written back
     * @return the handler method
     * @throws SocketHandlerDefinitionException naming the method and the unsupported type
     */
    static HandlerMethod of(String beanName, Object bean, Method method, Class<? extends Annotation> kind, Set<Argument> allowed,
            boolean mayReply) {
        String where = "Method " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + " of bean '" + beanName
                + "', annotated @" + kind.getSimpleName() + ",";
        String offered = allowed.stream().map((argument) -> argument.label).collect(Collectors.joining(", "));
        Class<?>[] types = method.getParameterTypes();
        Argument[] arguments = new Argument[types.length];
        for (int i = 0; i < types.length; i++) {
            Argument argument = Argument.of(types[i]);
            if (argument == null || !allowed.contains(argument)) {
                throw new SocketHandlerDefinitionException(where + " has a parameter of unsupported type "
                        + types[i].getSimpleName(), "Give @" + kind.getSimpleName() + " methods parameters of these types only: "
                        + offered + ".");
            }
            arguments[i] = argument;
        }
        Class<?> returned = method.getReturnType();
        boolean replies = returned != void.class;
        if (replies && !(mayReply && (returned == ByteBuffer.class || returned == byte[].class || returned == String.class))) {
            throw new SocketHandlerDefinitionException(where + " returns " + returned.getSimpleName(), mayReply
                    ? "Return void, or a ByteBuffer, byte[] or String to send back." : "Return void from @"
                            + kind.getSimpleName() + " methods.");
        }
        Method invocable = ClassUtils.getMostSpecificMethod(method, bean.getClass());
        if (!Modifier.isStatic(invocable.getModifiers()) && !invocable.getDeclaringClass().isInstance(bean)) {
            throw new SocketHandlerDefinitionException(where + " is not a method of the bean, a " + bean.getClass().getName()
                    + " (a JDK proxy of the class that declares it?)", "Proxy the bean by its class (proxyTargetClass = true),"
                            + " or declare the method on an interface the bean implements.");
        }
        ReflectionUtils.makeAccessible(invocable);
        return new HandlerMethod(invocable, call(bean, invocable, arguments), replies);
    }

    /**
     * @return the method as a handle of type {@link #EVENT}: each parameter filled by its argument's
     * extractor from the same five values, the result (null for void) as an Object
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
        int width = EVENT.parameterCount();
        Class<?>[] parameters = method.getParameterTypes();
        // Each parameter in turn is replaced by its extractor's five parameters (extractors must have no
        // side effects: they run last parameter first)...
        for (int i = 0; i < arguments.length; i++) {
            MethodHandle extractor = arguments[i].extractor();
            target = MethodHandles.collectArguments(target, i * width,
                    extractor.asType(extractor.type().changeReturnType(parameters[i])));
        }
        // ...and every group of five is then fed from the same five values.
        int[] reorder = new int[arguments.length * width];
        for (int i = 0; i < reorder.length; i++) {
            reorder[i] = i % width;
        }
        return MethodHandles.permuteArguments(target, EVENT, reorder);
    }

    /**
     * Calls the method.
     * @return what to send back, or {@code null}
     * @throws Exception what the method threw (an Error is rethrown as it is, any other Throwable
     * wrapped in an {@link UndeclaredThrowableException})
     */
    ByteBuffer invoke(Connection connection, ByteBuffer data, Throwable error, DatagramEndpoint endpoint, PeerAddress peer)
            throws Exception {
        Object result;
        try {
            result = (Object) this.call.invokeExact(connection, data, error, endpoint, peer);
        }
        catch (Exception | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            throw new UndeclaredThrowableException(ex);
        }
        return this.replies ? reply(result) : null;
    }

    // ---- the extractors: one per Argument, named after it, all taking what EVENT takes ----

    private static Connection connectionArgument(Connection connection, ByteBuffer data, Throwable error,
            DatagramEndpoint endpoint, PeerAddress peer) {
        return connection;
    }

    private static ByteBuffer bufferArgument(Connection connection, ByteBuffer data, Throwable error, DatagramEndpoint endpoint,
            PeerAddress peer) {
        return data;
    }

    private static byte[] bytesArgument(Connection connection, ByteBuffer data, Throwable error, DatagramEndpoint endpoint,
            PeerAddress peer) {
        return bytes(data);
    }

    private static String textArgument(Connection connection, ByteBuffer data, Throwable error, DatagramEndpoint endpoint,
            PeerAddress peer) {
        return StandardCharsets.UTF_8.decode(data.duplicate()).toString();
    }

    private static InetSocketAddress addressArgument(Connection connection, ByteBuffer data, Throwable error,
            DatagramEndpoint endpoint, PeerAddress peer) {
        return (peer != null) ? peer.toSocketAddress() : connection.remoteAddress();
    }

    private static Throwable errorArgument(Connection connection, ByteBuffer data, Throwable error, DatagramEndpoint endpoint,
            PeerAddress peer) {
        return error;
    }

    private static DatagramEndpoint endpointArgument(Connection connection, ByteBuffer data, Throwable error,
            DatagramEndpoint endpoint, PeerAddress peer) {
        return endpoint;
    }

    private static PeerAddress peerArgument(Connection connection, ByteBuffer data, Throwable error, DatagramEndpoint endpoint,
            PeerAddress peer) {
        return peer;
    }

    private static byte[] bytes(ByteBuffer data) {
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return bytes;
    }

    private static ByteBuffer reply(Object result) {
        if (result instanceof ByteBuffer buffer) {
            return buffer;
        }
        if (result instanceof byte[] bytes) {
            return ByteBuffer.wrap(bytes);
        }
        if (result instanceof String text) {
            return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        }
        return null;
    }

    @Override
    public String toString() {
        return this.method.toGenericString();
    }
}
