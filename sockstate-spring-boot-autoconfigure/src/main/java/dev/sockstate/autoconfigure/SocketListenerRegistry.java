package dev.sockstate.autoconfigure;

import dev.sockstate.server.BoundListener;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.admission.Admission;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.client.SocketClient;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.shaping.Shaping;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Listeners and clients added to and removed from the running socket server, for gateways whose
 * tenants, routes or backends come and go without a restart: each is described by the same
 * properties as {@code sockstate.listeners.<name>} and {@code sockstate.clients.<name>} (checked the
 * same way, a bad value refused naming its property) and served by a handler given here, adapted as
 * a {@code @SocketHandler} bean's is and wrapped by the {@link HandlerDecorator}s. A removed
 * listener or client closes its connections as a graceful stop does, within
 * {@code sockstate.shutdown.timeout} unless told otherwise, while the rest of the server goes on.
 * The actuator endpoint, the health indicator and the meters follow what is added and removed.
 * What is added lives until it is removed or the application context closes; it is not written
 * back to the properties.
 */
public class SocketListenerRegistry {

    private final SocketServer server;

    private final ServerSettingsFactory settings;

    private final ListenerHandlers handlers;

    private final BeanFactory beans;

    private final Supplier<List<ListenerCustomizer>> customizers;

    private final ApplicationEventPublisher events;

    private final Duration removalTimeout;

    SocketListenerRegistry(SocketServer server, ServerSettingsFactory settings, ListenerHandlers handlers, BeanFactory beans,
            Supplier<List<ListenerCustomizer>> customizers, ApplicationEventPublisher events, Duration removalTimeout) {
        this.server = server;
        this.settings = settings;
        this.handlers = handlers;
        this.beans = beans;
        this.customizers = customizers;
        this.events = events;
        this.removalTimeout = removalTimeout;
    }

    /**
     * Adds a listener: bound and served at once on the running server, or at its start.
     * @param name its name, not taken by another listener
     * @param properties its properties, as {@code sockstate.listeners.<name>} would hold them (its port set: 0 for an ephemeral one)
     * @param handler a {@code ConnectionHandler} or {@code DatagramHandler}, or an object with {@code @OnData},
     * {@code @OnMessage} or {@code @OnDatagram} methods as a {@code @SocketHandler} bean has
     * @return the listener as bound, with its port; {@code null} when the server does not run
     * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException naming
     * the property of a value that does not fit
     * @throws dev.sockstate.server.InvalidSettingException when the name is taken or the group unknown
     * @throws dev.sockstate.server.ListenerBindException when it cannot bind; it is then not added
     */
    public @Nullable BoundListener addListener(String name, ListenerProperties properties, Object handler) {
        Object adapted = this.handlers.runtimeHandler(name, this.settings.kind(name, properties), handler);
        ListenerSettings listener = this.settings.listener(name, properties, adapted, this.beans, this.customizers.get());
        return addListener(listener);
    }

    /**
     * Adds a listener made with the runtime's builder: bound and served at once on the running server,
     * or at its start.
     * @param listener the listener's settings
     * @return the listener as bound; {@code null} when the server does not run
     * @throws dev.sockstate.server.InvalidSettingException when its name is taken or its group unknown
     * @throws dev.sockstate.server.ListenerBindException when it cannot bind; it is then not added
     */
    public @Nullable BoundListener addListener(ListenerSettings listener) {
        BoundListener bound = this.server.addListener(listener);
        this.events.publishEvent(new SocketListenerAddedEvent(this.server, listener, bound));
        return bound;
    }

    /**
     * Removes a listener, closing its connections within {@code sockstate.shutdown.timeout}.
     * @param name its name
     * @return whether there was such a listener
     */
    public boolean removeListener(String name) {
        return removeListener(name, this.removalTimeout);
    }

    /**
     * Removes a listener: it accepts no more, and its connections answer what arrived and close, those
     * still busy when the timeout ends aborted.
     * @param name its name
     * @param timeout how long its connections get to finish
     * @return whether there was such a listener
     */
    public boolean removeListener(String name, Duration timeout) {
        return this.server.removeListener(name, timeout);
    }

    /**
     * Adds a client: it connects at once on the running server, or at its start.
     * @param name its name, not taken by another client
     * @param properties its properties, as {@code sockstate.clients.<name>} would hold them
     * @param handler what handles the frames no request is owed (a {@code ConnectionHandler}, or an object
     * with {@code @OnData} or {@code @OnMessage} methods); {@code null} to drop them
     * @return the running client; {@code null} when the server does not run
     * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException naming
     * the property of a value that does not fit
     */
    public @Nullable SocketClient addClient(String name, ClientProperties properties, @Nullable Object handler) {
        ClientSettings client = this.settings.client(name, properties, handler, this.beans);
        return this.server.addClient(client);
    }

    /**
     * Removes a client, closing its connections within {@code sockstate.shutdown.timeout} (those that
     * await replies wait for them until then).
     * @param name its name
     * @return whether there was such a client
     */
    public boolean removeClient(String name) {
        return this.server.removeClient(name, this.removalTimeout);
    }

    /**
     * Removes a client: it connects no more, and its connections close once the replies they are owed
     * came, those still waiting when the timeout ends aborted.
     * @param name its name
     * @param timeout how long its connections get to finish
     * @return whether there was such a client
     */
    public boolean removeClient(String name, Duration timeout) {
        return this.server.removeClient(name, timeout);
    }

    /**
     * Changes a listener's most open connections: lowered, those open over it stay, and new ones are
     * refused until fewer are open.
     * @param name the listener's name
     * @param maxConnections the most open connections from now on
     * @return the maximum it replaces
     * @throws IllegalArgumentException when no listener has that name
     * @throws dev.sockstate.server.InvalidSettingException when the maximum does not fit, naming it
     */
    public int changeMaxConnections(String name, int maxConnections) {
        return this.server.changeMaxConnections(name, maxConnections);
    }

    /**
     * Changes a TCP listener's admission, from properties as {@code sockstate.listeners.<name>.admission}
     * would hold them: the next accept is judged by the new rules, the connections open stay.
     * @param name the listener's name
     * @param admission the rules from now on; none set for none
     * @return the rules they replace
     * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
     * naming the property of a value that does not fit
     * @throws dev.sockstate.server.InvalidSettingException when the rules do not fit the listener (a UDP one's)
     * @throws IllegalArgumentException when no listener has that name
     */
    public Admission changeAdmission(String name, AdmissionProperties admission) {
        Admission rules = ServerSettingsFactory.admission("listeners." + name + ".admission.", admission);
        return this.server.changeAdmission(name, (rules != null) ? rules : Admission.NONE);
    }

    /**
     * Changes a listener's traffic shaping: its connections take the new rates from their next read or
     * send on.
     * @param name the listener's name
     * @param shaping the rates from now on, {@link Shaping#NONE} to lift them
     * @return the rates they replace
     * @throws IllegalArgumentException when no listener has that name
     * @throws dev.sockstate.server.InvalidSettingException when the rates do not fit the listener (a UDP one's)
     */
    public Shaping changeShaping(String name, Shaping shaping) {
        return this.server.changeShaping(name, shaping);
    }

    /**
     * Changes a running client's traffic shaping, until it stops.
     * @param name the client's name
     * @param shaping the rates from now on, {@link Shaping#NONE} to lift them
     * @return the rates they replace
     * @throws IllegalArgumentException when no running client has that name
     */
    public Shaping changeClientShaping(String name, Shaping shaping) {
        return this.server.client(name).changeShaping(shaping);
    }

    /** @return the listeners running now, those configured and those added */
    public List<BoundListener> listeners() {
        return this.server.listeners();
    }
}
