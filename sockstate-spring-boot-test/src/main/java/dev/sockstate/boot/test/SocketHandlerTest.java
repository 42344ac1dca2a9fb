package dev.sockstate.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.autoconfigure.OverrideAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTestContextBootstrapper;
import org.springframework.boot.test.context.filter.annotation.TypeExcludeFilters;
import org.springframework.test.context.BootstrapWith;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * A test of an application's socket handlers alone, as {@code @WebMvcTest} is of its controllers:
 * the application context holds the {@code @SocketHandler} beans and the beans that read and write
 * messages (converters, frame decoders and encoders, message mappers, handler decorators), with
 * sockstate's auto-configuration and those it needs (Jackson, task execution, SSL bundles); other
 * components and {@code @Configuration} classes are not scanned, as in Spring Boot's own slices
 * (provide what a handler needs with {@code @Import} or {@code @MockitoBean}). The server is built from the configuration
 * but not started: no socket is opened, and a test runs a listener's connections in memory with
 * {@code EmbeddedConnection.open(server.listenerSettings("resp"))}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@BootstrapWith(SpringBootTestContextBootstrapper.class)
@ExtendWith(SpringExtension.class)
@OverrideAutoConfiguration(enabled = false)
@TypeExcludeFilters(SocketHandlerTypeExcludeFilter.class)
@ImportAutoConfiguration
@TestPropertySource(properties = "sockstate.auto-startup=false")
public @interface SocketHandlerTest {
}
