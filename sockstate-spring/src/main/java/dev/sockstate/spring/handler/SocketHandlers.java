package dev.sockstate.spring.handler;

import dev.sockstate.port.Protocol;
import dev.sockstate.server.ConnectionHandler;
import dev.sockstate.server.DatagramHandler;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.spring.handler.HandlerMethod.Replies;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The handler of each listener, found among the {@link SocketHandler} beans and checked against the
 * configured listeners: every listener has exactly one handler (or one per application protocol its
 * TLS negotiates, and one for the rest), every handler names a configured
 * listener (or a configured client, which may have one handler or none), and every annotated method
 * has a signature the runtime can call. Spring Boot's
 * auto-configuration resolves them as the context starts; a plain Spring application calls
 * {@link #resolve} on its context and gives each listener's settings the handler found:
 *
 * <pre>{@code
 * SocketHandlers handlers = SocketHandlers.resolve(context, Map.of("echo", new ListenerKind(Protocol.TCP, false, null)));
 * ListenerSettings echo = ListenerSettings.tcp("echo").portNumber(7007).handler(handlers.connectionHandler("echo")).build();
 * }</pre>
 */
public final class SocketHandlers {

    private static final List<Class<? extends Annotation>> CONNECTION_ANNOTATIONS = List.of(OnOpen.class, OnData.class,
            OnWritable.class, OnHangup.class, OnError.class, OnClose.class);

    /**
     * What the handlers need to know of a configured listener.
     * @param protocol its transport
     * @param framed whether its TCP connections are framed, so that a handler can take whole messages
     * @param mapper reads and writes its messages of other types than bytes and text, or {@code null}
     * @param unix whether it is on a Unix domain socket, whose addresses are no {@code InetSocketAddress}
     * @param applicationProtocols the application protocols its TLS negotiates (ALPN), which handler beans may name; empty for none
     * @param plaintextServed whether its TLS serves plaintext connections beside it, which have no application protocol
     * @param startTls whether its TLS starts on the handler's request (STARTTLS): its connections open in plaintext,
     * before any application protocol is negotiated
     */
    public record ListenerKind(Protocol protocol, boolean framed, @Nullable MessageMapper mapper, boolean unix,
            List<String> applicationProtocols, boolean plaintextServed, boolean startTls) {

        /**
         * A listener whose TLS, if any, begins with the connection.
         * @param protocol its transport
         * @param framed whether its TCP connections are framed
         * @param mapper reads and writes its messages of other types, or {@code null}
         * @param unix whether it is on a Unix domain socket
         * @param applicationProtocols the application protocols its TLS negotiates; empty for none
         * @param plaintextServed whether its TLS serves plaintext connections beside it
         */
        public ListenerKind(Protocol protocol, boolean framed, @Nullable MessageMapper mapper, boolean unix,
                List<String> applicationProtocols, boolean plaintextServed) {
            this(protocol, framed, mapper, unix, applicationProtocols, plaintextServed, false);
        }

        /**
         * A listener that negotiates no application protocol.
         * @param protocol its transport
         * @param framed whether its TCP connections are framed
         * @param mapper reads and writes its messages of other types, or {@code null}
         * @param unix whether it is on a Unix domain socket
         */
        public ListenerKind(Protocol protocol, boolean framed, @Nullable MessageMapper mapper, boolean unix) {
            this(protocol, framed, mapper, unix, List.of(), false, false);
        }

        /**
         * A listener on an IP address and port.
         * @param protocol its transport
         * @param framed whether its TCP connections are framed
         * @param mapper reads and writes its messages of other types, or {@code null}
         */
        public ListenerKind(Protocol protocol, boolean framed, @Nullable MessageMapper mapper) {
            this(protocol, framed, mapper, false);
        }
    }

    private final Map<String, Object> handlers;

    private final Map<String, ConnectionHandler> clientHandlers;

    private SocketHandlers(Map<String, Object> handlers, Map<String, ConnectionHandler> clientHandlers) {
        this.handlers = handlers;
        this.clientHandlers = clientHandlers;
    }

    /**
     * @param beans where the {@link SocketHandler} beans are
     * @param listeners the configured listeners by name
     * @return the handler of every listener
     * @throws SocketHandlerDefinitionException when the beans and the listeners do not fit
     */
    public static SocketHandlers resolve(ListableBeanFactory beans, Map<String, ListenerKind> listeners) {
        return resolve(beans, listeners, Map.of());
    }

    /**
     * @param beans where the {@link SocketHandler} beans are
     * @param listeners the configured listeners by name
     * @param clients the configured outbound clients by name (TCP), whose handlers are those beans
     * that name them in {@link SocketHandler#client()}
     * @return the handler of every listener, and of every client that has one
     * @throws SocketHandlerDefinitionException when the beans and the listeners or clients do not fit
     */
    public static SocketHandlers resolve(ListableBeanFactory beans, Map<String, ListenerKind> listeners,
            Map<String, ListenerKind> clients) {
        // The bean of each listener, by the application protocol it serves ("" for the connections of any or none).
        Map<String, Map<String, String>> beansOfListener = new LinkedHashMap<>();
        Map<String, Map<String, ConnectionHandler>> byProtocol = new LinkedHashMap<>();
        Map<String, String> beanOfClient = new LinkedHashMap<>();
        Map<String, Object> handlers = new LinkedHashMap<>();
        Map<String, ConnectionHandler> clientHandlers = new LinkedHashMap<>();
        for (String beanName : beans.getBeanNamesForAnnotation(SocketHandler.class)) {
            SocketHandler annotation = beans.findAnnotationOnBean(beanName, SocketHandler.class);
            String listener = (annotation != null) ? annotation.value() : "";
            String client = (annotation != null) ? annotation.client() : "";
            String applicationProtocol = (annotation != null) ? annotation.applicationProtocol() : "";
            if (!client.isBlank()) {
                if (!listener.isBlank()) {
                    throw new SocketHandlerDefinitionException("Bean '" + beanName + "' names both listener '" + listener
                            + "' and client '" + client + "'", "Give each a @SocketHandler bean of its own.");
                }
                if (!applicationProtocol.isEmpty()) {
                    throw new SocketHandlerDefinitionException("Bean '" + beanName + "' serves client '" + client
                            + "' and names application protocol '" + applicationProtocol + "'", "A client has one handler, whatever"
                                    + " the server chose (its connections' applicationProtocol() tells it): remove applicationProtocol.");
                }
                clientHandlers.put(client, clientHandler(beans, beanName, client, clients, beanOfClient));
                continue;
            }
            if (listener.isBlank()) {
                throw new SocketHandlerDefinitionException("Bean '" + beanName + "' is annotated @SocketHandler without naming a listener",
                        "Name the listener it serves, as in @SocketHandler(\"echo\"), or the client, as in @SocketHandler(client ="
                                + " \"redis\"); configured listeners: " + listeners.keySet() + ", clients: " + clients.keySet() + ".");
            }
            ListenerKind kind = listeners.get(listener);
            if (kind == null) {
                throw new SocketHandlerDefinitionException("Bean '" + beanName + "' handles listener '" + listener
                        + "', which is not configured", "Configure it under sockstate.listeners." + listener
                                + ", or name one of the configured listeners: " + listeners.keySet() + ". If the listener is"
                                + " configured in a profile that is not active, give the bean that profile too (@Profile), as any"
                                + " bean that only makes sense with it.");
            }
            if (!applicationProtocol.isEmpty() && !kind.applicationProtocols().contains(applicationProtocol)) {
                throw new SocketHandlerDefinitionException("Bean '" + beanName + "' serves the '" + applicationProtocol
                        + "' connections of listener '" + listener + "', which does not negotiate it", kind.protocol() != Protocol.TCP
                                ? "Application protocols are negotiated in a TLS handshake, which a UDP listener has not: remove"
                                        + " applicationProtocol."
                                : kind.applicationProtocols().isEmpty()
                                ? "Name it in sockstate.listeners." + listener + ".ssl.application-protocols (with ssl.bundle)."
                                : "Name one of its ssl.application-protocols " + kind.applicationProtocols() + ", or add it there.");
            }
            if (!applicationProtocol.isEmpty() && kind.startTls()) {
                throw new SocketHandlerDefinitionException("Bean '" + beanName + "' serves the '" + applicationProtocol
                        + "' connections of listener '" + listener + "', whose TLS starts on the handler's request: its connections"
                        + " open in plaintext, before any application protocol is negotiated",
                        "Serve the listener with one @SocketHandler(\"" + listener + "\") bean naming no application protocol (it reads"
                                + " connection.applicationProtocol() once TLS started), or remove sockstate.listeners." + listener
                                + ".ssl.start-tls.");
            }
            Map<String, String> beansByProtocol = beansOfListener.computeIfAbsent(listener, (name) -> new LinkedHashMap<>());
            String other = beansByProtocol.putIfAbsent(applicationProtocol, beanName);
            if (other != null) {
                throw new SocketHandlerDefinitionException("Listener '" + listener + "' has two handlers" + (applicationProtocol.isEmpty()
                        ? "" : " for application protocol '" + applicationProtocol + "'") + ": beans '" + other + "' and '" + beanName + "'",
                        "Keep one @SocketHandler(\"" + listener + "\") bean" + (applicationProtocol.isEmpty() ? "" : " for it") + ".");
            }
            Object handler = adapt(beanName, beans.getBean(beanName), new Served("listener", listener), kind);
            if (!applicationProtocol.isEmpty()) {
                byProtocol.computeIfAbsent(listener, (name) -> new LinkedHashMap<>()).put(applicationProtocol, (ConnectionHandler) handler);
            }
            else {
                handlers.put(listener, handler);
            }
        }
        // A listener with beans by application protocol: one handler picks among them, the bean naming none the otherwise.
        byProtocol.forEach((listener, routes) -> {
            ConnectionHandler otherwise = (ConnectionHandler) handlers.get(listener);
            ListenerKind kind = listeners.get(listener);
            if (otherwise == null) {
                List<String> unserved = kind.applicationProtocols().stream().filter((name) -> !routes.containsKey(name)).toList();
                if (!unserved.isEmpty() || kind.plaintextServed()) {
                    throw new SocketHandlerDefinitionException("Listener '" + listener + "' has handlers by application protocol,"
                            + " and none for " + (unserved.isEmpty() ? "" : "the connections of " + unserved
                                    + (kind.plaintextServed() ? " and " : "")) + (kind.plaintextServed() ? "its plaintext connections" : ""),
                            "Add a @SocketHandler(\"" + listener + "\") bean that names no application protocol: it serves the"
                                    + " connections no other bean does" + (unserved.isEmpty() ? "" : ", or a bean for each of " + unserved
                                    + (kind.plaintextServed() ? " and" : ""))
                                    + (kind.plaintextServed() ? ", or remove sockstate.listeners." + listener + ".ssl.serve-plaintext" : "")
                                    + ".");
                }
            }
            handlers.put(listener, ConnectionHandler.byApplicationProtocol(routes, otherwise));
        });
        for (String listener : listeners.keySet()) {
            if (!handlers.containsKey(listener)) {
                throw new SocketHandlerDefinitionException("Listener '" + listener + "' has no handler",
                        "Add a bean annotated @SocketHandler(\"" + listener + "\"), or remove sockstate.listeners." + listener + ".");
            }
        }
        return new SocketHandlers(handlers, clientHandlers);
    }

    /** @return the handler of a client's connections that the bean is, checked against the configured clients */
    private static ConnectionHandler clientHandler(ListableBeanFactory beans, String beanName, String client,
            Map<String, ListenerKind> clients, Map<String, String> beanOf) {
        ListenerKind kind = clients.get(client);
        if (kind == null) {
            throw new SocketHandlerDefinitionException("Bean '" + beanName + "' handles client '" + client + "', which is not configured",
                    "Configure it under sockstate.clients." + client + ", or name one of the configured clients: " + clients.keySet()
                            + ".");
        }
        String other = beanOf.putIfAbsent(client, beanName);
        if (other != null) {
            throw new SocketHandlerDefinitionException("Client '" + client + "' has two handlers: beans '" + other + "' and '"
                    + beanName + "'", "Keep one @SocketHandler(client = \"" + client + "\") bean.");
        }
        return (ConnectionHandler) adapt(beanName, beans.getBean(beanName), new Served("client", client), kind);
    }

    /**
     * What a handler serves, for its errors.
     * @param kind listener or client
     * @param name its name
     */
    private record Served(String kind, String name) {

        boolean client() {
            return this.kind.equals("client");
        }

        /** @return its properties' prefix, as the starter names them */
        String properties() {
            return "sockstate." + this.kind + "s." + this.name;
        }

        @Override
        public String toString() {
            return this.kind + " '" + this.name + "'";
        }
    }

    /**
     * Adapts the handler of a listener added while the server runs, as a {@code @SocketHandler} bean's
     * is adapted: a {@code ConnectionHandler} or {@code DatagramHandler} as it is, an object with
     * {@code @OnData}, {@code @OnMessage} or {@code @OnDatagram} methods behind one.
     * @param handler the handler
     * @param listener the listener's name
     * @param kind what the handler needs to know of the listener
     * @return a {@code ConnectionHandler} for a TCP listener, a {@code DatagramHandler} for a UDP one
     * @throws SocketHandlerDefinitionException when the handler does not fit the listener
     */
    public static Object listenerHandler(Object handler, String listener, ListenerKind kind) {
        return adapt("handler of listener '" + listener + "'", handler, new Served("listener", listener), kind);
    }

    /**
     * Adapts the handler of a client added while the server runs, as a {@code @SocketHandler(client = ...)}
     * bean's is adapted.
     * @param handler the handler
     * @param client the client's name
     * @param kind what the handler needs to know of the client
     * @return the connection handler
     * @throws SocketHandlerDefinitionException when the handler does not fit the client
     */
    public static ConnectionHandler clientHandler(Object handler, String client, ListenerKind kind) {
        return (ConnectionHandler) adapt("handler of client '" + client + "'", handler, new Served("client", client), kind);
    }

    private static Object adapt(String beanName, Object bean, Served served, ListenerKind kind) {
        Class<?> type = AopUtils.getTargetClass(bean);
        boolean messages = find(beanName, type, OnMessage.class) != null;
        String listener = served.name();
        if (kind.protocol() == Protocol.TCP) {
            if (find(beanName, type, OnDatagram.class) != null) {
                if (served.client()) {
                    throw new SocketHandlerDefinitionException("Bean '" + beanName + "' handles " + served + ", but @OnDatagram is for"
                            + " UDP listeners", "A client's connections are TCP: use @OnData or @OnMessage.");
                }
                throw mismatch(beanName, listener, "TCP", "@OnDatagram is for UDP listeners");
            }
            if (bean instanceof ConnectionHandler handler) {
                return handler;
            }
            Method data = find(beanName, type, OnData.class);
            if (data != null && messages) {
                throw new SocketHandlerDefinitionException("Bean '" + beanName + "' has both an @OnData and an @OnMessage method",
                        "Keep @OnMessage for whole messages of a framed listener, or @OnData for raw reads.");
            }
            if (data == null && !messages && !served.client()) {
                throw new SocketHandlerDefinitionException("Bean '" + beanName + "' handles TCP listener '" + listener
                        + "' but has no @OnData or @OnMessage method", "Add an @OnMessage method (with framing) or an @OnData"
                                + " method (raw reads), or implement ConnectionHandler.");
            }
            if (messages && !kind.framed()) {
                throw new SocketHandlerDefinitionException("Bean '" + beanName + "' has an @OnMessage method, but " + served
                        + " has no framing, so its reads are not whole messages", "Set " + served.properties()
                                + ".framing.type (line, delimiter, length-field, fixed, octet-counting or custom), or use @OnData"
                                + " for raw reads.");
            }
            // A client's handler may hear only of its connections' events: the frames no request is owed are then dropped.
            HandlerMethod onData = messages
                    ? method(beanName, bean, type, OnMessage.class, HandlerMethod.CONNECTION_MESSAGE, Replies.MESSAGES, kind)
                    : method(beanName, bean, type, OnData.class, HandlerMethod.CONNECTION_DATA, Replies.BYTES, kind);
            return new AnnotatedConnectionHandler(method(beanName, bean, type, OnOpen.class, HandlerMethod.CONNECTION_EVENT,
                    Replies.NONE, kind), onData,
                    method(beanName, bean, type, OnWritable.class, HandlerMethod.CONNECTION_EVENT, Replies.NONE, kind),
                    method(beanName, bean, type, OnHangup.class, HandlerMethod.CONNECTION_EVENT, Replies.NONE, kind),
                    method(beanName, bean, type, OnError.class, HandlerMethod.CONNECTION_ERROR, Replies.NONE, kind),
                    method(beanName, bean, type, OnClose.class, HandlerMethod.CONNECTION_EVENT, Replies.NONE, kind));
        }
        for (Class<? extends Annotation> connectionKind : CONNECTION_ANNOTATIONS) {
            if (find(beanName, type, connectionKind) != null) {
                throw mismatch(beanName, listener, "UDP", "@" + connectionKind.getSimpleName() + " is for TCP connections");
            }
        }
        if (bean instanceof DatagramHandler handler) {
            return handler;
        }
        boolean datagrams = find(beanName, type, OnDatagram.class) != null;
        if (datagrams && messages) {
            throw new SocketHandlerDefinitionException("Bean '" + beanName + "' has both an @OnDatagram and an @OnMessage method",
                    "Keep one: on a UDP listener each datagram is one message.");
        }
        HandlerMethod datagram = messages
                ? method(beanName, bean, type, OnMessage.class, HandlerMethod.DATAGRAM_MESSAGE, Replies.MESSAGES, kind)
                : method(beanName, bean, type, OnDatagram.class, HandlerMethod.DATAGRAM, Replies.BYTES, kind);
        if (datagram == null) {
            throw new SocketHandlerDefinitionException("Bean '" + beanName + "' handles UDP listener '" + listener
                    + "' but has no @OnDatagram or @OnMessage method", "Add an @OnMessage or @OnDatagram method, or implement"
                            + " DatagramHandler.");
        }
        return new AnnotatedDatagramHandler(datagram);
    }

    private static SocketHandlerDefinitionException mismatch(String beanName, String listener, String protocol, String why) {
        return new SocketHandlerDefinitionException("Bean '" + beanName + "' handles " + protocol + " listener '" + listener
                + "', but " + why, "Use the annotations of the listener's protocol, or change sockstate.listeners." + listener
                        + ".protocol.");
    }

    private static @Nullable HandlerMethod method(String beanName, Object bean, Class<?> type, Class<? extends Annotation> kind,
            Set<HandlerMethod.Argument> allowed, Replies replies, ListenerKind listener) {
        Method method = find(beanName, type, kind);
        return (method != null) ? HandlerMethod.of(beanName, bean, method, kind, allowed, replies, listener.mapper(), listener.unix()) : null;
    }

    private static @Nullable Method find(String beanName, Class<?> type, Class<? extends Annotation> kind) {
        Map<Method, Annotation> found = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<Annotation>) (method) -> AnnotatedElementUtils.findMergedAnnotation(method, kind));
        if (found.size() > 1) {
            throw new SocketHandlerDefinitionException("Bean '" + beanName + "' has " + found.size() + " @" + kind.getSimpleName()
                    + " methods", "Keep one @" + kind.getSimpleName() + " method per handler.");
        }
        return found.isEmpty() ? null : found.keySet().iterator().next();
    }

    /**
     * @param listener a TCP listener's name
     * @return its handler
     */
    public ConnectionHandler connectionHandler(String listener) {
        return (ConnectionHandler) this.handlers.get(listener);
    }

    /**
     * @param listener a UDP listener's name
     * @return its handler
     */
    public DatagramHandler datagramHandler(String listener) {
        return (DatagramHandler) this.handlers.get(listener);
    }

    /**
     * @param client an outbound client's name
     * @return the handler of its connections, {@code null} when no bean serves it (the core then drops
     * the frames no request is owed)
     */
    public @Nullable ConnectionHandler clientHandler(String client) {
        return this.clientHandlers.get(client);
    }
}
