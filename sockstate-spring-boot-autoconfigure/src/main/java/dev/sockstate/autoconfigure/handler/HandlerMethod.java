package dev.sockstate.autoconfigure.handler;

import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.PeerAddress;
import dev.sockstate.server.Connection;
import dev.sockstate.server.DatagramEndpoint;
import java.lang.annotation.Annotation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * One annotated method of a {@link SocketHandler} bean, with how each of its parameters is filled
 * and what its return value means, worked out once at start-up.
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
    }

    /** Arguments every kind of method may take. */
    static final Set<Argument> CONNECTION_EVENT = EnumSet.of(Argument.CONNECTION, Argument.ADDRESS);

    static final Set<Argument> CONNECTION_DATA = EnumSet.of(Argument.CONNECTION, Argument.ADDRESS, Argument.BUFFER,
            Argument.BYTES, Argument.TEXT);

    static final Set<Argument> CONNECTION_ERROR = EnumSet.of(Argument.CONNECTION, Argument.ADDRESS, Argument.ERROR);

    static final Set<Argument> DATAGRAM = EnumSet.of(Argument.ENDPOINT, Argument.PEER, Argument.ADDRESS, Argument.BUFFER,
            Argument.BYTES, Argument.TEXT);

    private final Object bean;

    private final Method method;

    private final Argument[] arguments;

    private final boolean replies;

    private HandlerMethod(Object bean, Method method, Argument[] arguments, boolean replies) {
        this.bean = bean;
        this.method = method;
        this.arguments = arguments;
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
        ReflectionUtils.makeAccessible(invocable);
        return new HandlerMethod(bean, invocable, arguments, replies);
    }

    /**
     * Calls the method.
     * @return what to send back, or {@code null}
     * @throws Exception what the method threw
     */
    ByteBuffer invoke(Connection connection, ByteBuffer data, Throwable error, DatagramEndpoint endpoint, PeerAddress peer)
            throws Exception {
        Object[] values = new Object[this.arguments.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = switch (this.arguments[i]) {
                case CONNECTION -> connection;
                case BUFFER -> data;
                case BYTES -> bytes(data);
                case TEXT -> StandardCharsets.UTF_8.decode(data.duplicate()).toString();
                case ADDRESS -> (peer != null) ? peer.toSocketAddress() : connection.remoteAddress();
                case ERROR -> error;
                case ENDPOINT -> endpoint;
                case PEER -> peer;
            };
        }
        Object result;
        try {
            result = this.method.invoke(this.bean, values);
        }
        catch (InvocationTargetException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            throw (Error) cause;
        }
        return this.replies ? reply(result) : null;
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
