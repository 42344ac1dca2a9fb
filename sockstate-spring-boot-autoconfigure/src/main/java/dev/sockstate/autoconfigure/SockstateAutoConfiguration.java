package dev.sockstate.autoconfigure;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;
import dev.sockstate.server.InvalidSettingException;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.WorkerGroupSettings;
import dev.sockstate.server.client.ClientSettings;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.server.observer.ServerObserver;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the socket servers: the backend, the {@link SocketServer} built from
 * {@code sockstate.*} properties and the {@link dev.sockstate.spring.handler.SocketHandler}
 * beans, and its lifecycle; a {@link dev.sockstate.server.client.SocketClient} bean per configured
 * client ({@link ClientBeansRegistrar}).
 */
@AutoConfiguration(after = { TaskExecutionAutoConfiguration.class, SslAutoConfiguration.class })
@ConditionalOnClass(name = "com.sun.jna.Native")
@ConditionalOnBooleanProperty(name = "sockstate.enabled", matchIfMissing = true)
@Conditional({ OnListenersCondition.class, OnAvailableBackendCondition.class })
@EnableConfigurationProperties(SockstateProperties.class)
@ImportRuntimeHints(SockstateRuntimeHints.class)
@Import(ClientBeansRegistrar.class)
public final class SockstateAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    Backend sockstateBackend(SockstateProperties properties) {
        try {
            return Backends.select(properties.getBackend());
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException("sockstate.backend", properties.getBackend(), ex.getMessage());
        }
    }

    /** The listeners' handlers, found once every singleton exists (a handler may inject the server). */
    @Bean
    static ListenerHandlers sockstateListenerHandlers(ListableBeanFactory beans, ObjectProvider<SockstateProperties> properties,
            ObjectProvider<MessageMapper> messageMapper, ObjectProvider<HandlerDecorator> decorators) {
        return new ListenerHandlers(beans,
                () -> new ServerSettingsFactory(properties.getObject(), messageMapper.getIfAvailable()).listenerKinds(),
                () -> new ServerSettingsFactory(properties.getObject(), messageMapper.getIfAvailable()).clientKinds(),
                () -> decorators.orderedStream().collect(Collectors.toList()));
    }

    /** The clients' live counts, as the auto-configured server reports them. */
    @Bean
    ClientCounts sockstateClientCounts() {
        return new ClientCounts();
    }

    @Bean
    @ConditionalOnMissingBean
    SocketServer sockstateSocketServer(Backend backend, SockstateProperties properties, ListableBeanFactory beans,
            ObjectProvider<ServerObserver> observer, ObjectProvider<WorkerGroupCustomizer> groupCustomizers,
            ObjectProvider<ListenerCustomizer> listenerCustomizers, ObjectProvider<MessageMapper> messageMapper,
            ListenerHandlers handlers, ObjectProvider<SslBundles> sslBundles, ClientCounts clientCounts, Environment environment) {
        UnknownProperties.refuse(environment);
        ServerSettingsFactory factory = new ServerSettingsFactory(properties, messageMapper.getIfAvailable(),
                sslBundles.getIfAvailable());
        try {
            List<WorkerGroupSettings> groups = factory.groups(groupCustomizers.orderedStream().collect(Collectors.toList()));
            List<ListenerSettings> listeners = factory.listeners(handlers, beans,
                    listenerCustomizers.orderedStream().collect(Collectors.toList()));
            List<ClientSettings> clients = factory.clients(handlers, beans);
            return new SocketServer(backend, groups, listeners, clients,
                    clientCounts.observing(observer.getIfAvailable(() -> ServerObserver.NONE)));
        }
        catch (InvalidSettingException ex) {
            throw factory.asProperty(ex);
        }
    }

    /** Adds listeners and clients to the running server, and removes them. */
    @Bean
    @ConditionalOnMissingBean
    SocketListenerRegistry sockstateListenerRegistry(SocketServer server, SockstateProperties properties, ListableBeanFactory beans,
            ObjectProvider<ListenerCustomizer> listenerCustomizers, ObjectProvider<MessageMapper> messageMapper, ListenerHandlers handlers,
            ObjectProvider<SslBundles> sslBundles, ApplicationEventPublisher events) {
        Duration timeout = properties.getShutdown().getTimeout();
        return new SocketListenerRegistry(server, new ServerSettingsFactory(properties, messageMapper.getIfAvailable(), sslBundles.getIfAvailable()),
                handlers, beans, () -> listenerCustomizers.orderedStream().collect(Collectors.toList()), events,
                (timeout != null) ? timeout : Duration.ofSeconds(30));
    }

    @Bean
    @ConditionalOnMissingBean
    SocketServerLifecycle sockstateSocketServerLifecycle(SocketServer server, SockstateProperties properties,
            ApplicationContext context) {
        Environment environment = context.getEnvironment();
        Duration configured = properties.getShutdown().getTimeout();
        Duration delay = properties.getShutdown().getDelay();
        Duration phase = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(Duration.ofSeconds(30));
        Duration most = SocketServerLifecycle.drainWithin(phase);
        boolean graceful = properties.getShutdown().isGraceful();
        if (delay.isNegative() || delay.compareTo(most) >= 0) {
            throw new InvalidConfigurationPropertyValueException("sockstate.shutdown.delay", delay, "It must be zero or positive and"
                    + " leave the stop room within spring.lifecycle.timeout-per-shutdown-phase (" + phase + "), the time Spring Boot"
                    + " gives the socket server and the web server to stop: less than " + most + " (the phase less 5 s, or less a"
                    + " quarter of a shorter one); shorten it, or raise the phase's timeout.");
        }
        if (configured != null && graceful && configured.plus(delay).compareTo(most) > 0) {
            throw new InvalidConfigurationPropertyValueException("sockstate.shutdown.timeout", configured, "It must leave the stop"
                    + " room within spring.lifecycle.timeout-per-shutdown-phase (" + phase + "), the time Spring Boot gives the socket"
                    + " server and the web server to stop: at most " + most + " (the phase less 5 s, or less a quarter of a shorter"
                    + " one)" + (delay.isZero() ? "" : " less sockstate.shutdown.delay (" + delay + ")")
                    + ", so that the workers end before the phase does; leave it unset for that, or raise the phase's timeout.");
        }
        Duration timeout = !graceful ? Duration.ZERO : (configured != null) ? configured : most.minus(delay);
        SocketServerLifecycle lifecycle = new SocketServerLifecycle(server, context, timeout,
                SocketServerLifecycle.workersWithin(phase, timeout.plus(delay)));
        lifecycle.setShutdownDelay(delay);
        lifecycle.setAutoStartup(properties.isAutoStartup());
        return lifecycle;
    }
}
