package dev.sockstate.autoconfigure;

import java.util.Map;
import org.springframework.beans.factory.config.AutowireCapableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Defines a {@link dev.sockstate.server.client.SocketClient} bean per client configured under
 * {@code sockstate.clients}, named after it ({@link ClientBean}), as Spring Framework's HTTP service
 * registry defines a bean per interface: {@code @Qualifier("redis") SocketClient} or a parameter named
 * {@code redis} injects the client {@code redis}, and with one client its type alone does.
 */
final class ClientBeansRegistrar implements ImportBeanDefinitionRegistrar {

    private final Environment environment;

    ClientBeansRegistrar(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Map<String, Object> clients = Binder.get(this.environment).bind("sockstate.clients", Bindable.mapOf(String.class, Object.class))
                .orElse(Map.of());
        for (String name : clients.keySet()) {
            if (registry.containsBeanDefinition(name)) {
                throw new InvalidConfigurationPropertyValueException("sockstate.clients." + name, name, "The client's SocketClient bean"
                        + " is named after it, and a bean named '" + name + "' exists already: rename the client or the bean.");
            }
            RootBeanDefinition client = new RootBeanDefinition(ClientBean.class);
            client.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
            client.setAutowireMode(AutowireCapableBeanFactory.AUTOWIRE_CONSTRUCTOR);
            registry.registerBeanDefinition(name, client);
        }
    }
}
