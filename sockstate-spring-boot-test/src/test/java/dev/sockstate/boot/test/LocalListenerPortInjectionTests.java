package dev.sockstate.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.DependencyDescriptor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.MethodParameter;
import org.springframework.core.env.Environment;

/**
 * {@link LocalListenerPort} wherever {@code @Value} goes, as {@code @LocalServerPort}: a test
 * constructor's parameter, a test method's parameter, a field, and a bean of a
 * {@code @TestConfiguration} that asks for it lazily; a listener that is not bound fails naming
 * those that are.
 */
@SpringBootTest(classes = { EchoApplication.class, LocalListenerPortInjectionTests.Clients.class },
        properties = { "sockstate.workers.threads=1", "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.port=7" })
class LocalListenerPortInjectionTests {

    private final int fromConstructor;

    @LocalListenerPort("echo")
    private String fromField;

    @Autowired
    private Environment environment;

    @Autowired
    private ObjectProvider<Client> client;

    LocalListenerPortInjectionTests(@LocalListenerPort("echo") int fromConstructor) {
        this.fromConstructor = fromConstructor;
    }

    @Test
    void theBoundPortReachesAConstructorAMethodAFieldAndALazyBean(@LocalListenerPort("echo") Integer fromMethod) {
        int bound = this.environment.getProperty("local.sockstate.echo.port", Integer.class);
        assertThat(bound).as("an ephemeral port, not the configured 7").isNotEqualTo(7).isPositive();
        assertThat(this.fromConstructor).isEqualTo(bound);
        assertThat(fromMethod).isEqualTo(bound);
        assertThat(this.fromField).isEqualTo(Integer.toString(bound));
        assertThat(this.client.getObject().port).isEqualTo(bound);
    }

    @Test
    void aListenerThatIsNotBoundFailsNamingTheBoundOnes(@Autowired ConfigurableListableBeanFactory beans) throws Exception {
        MethodParameter parameter = new MethodParameter(Unknown.class.getDeclaredMethod("port", int.class), 0);
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> beans.resolveDependency(new DependencyDescriptor(parameter, true), null))
                .withMessageContaining("@LocalListenerPort(\"nope\")").withMessageContaining("bound listeners: [echo]");
    }

    /** A parameter naming a listener the application does not have. */
    static class Unknown {

        void port(@LocalListenerPort("nope") int port) {
        }
    }

    /** A bean of the test's that needs the port: made on first use, once the server started. */
    static class Client {

        final int port;

        Client(int port) {
            this.port = port;
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Clients {

        @Bean
        @Lazy
        Client client(@LocalListenerPort("echo") int port) {
            return new Client(port);
        }
    }
}
