/**
 * Support for Spring tests of applications on sockstate's starter: every listener binds a free port in
 * a test's context (unless a {@code @SpringBootTest} asks for {@code webEnvironment = DEFINED_PORT}),
 * {@link dev.sockstate.boot.test.LocalListenerPort} injects the port a listener bound, and
 * {@link dev.sockstate.boot.test.SocketHandlerTest} is a test slice of the handlers. They are
 * registered in this module's {@code META-INF/spring.factories}, so they are active in every test
 * context once the module is on the test class path ({@code sockstate-spring-boot-starter-test}
 * brings it). They know the server only by the properties the auto-configuration reads and publishes
 * ({@code sockstate.listeners.*}, {@code local.sockstate.<name>.port}).
 */
@NullMarked
package dev.sockstate.boot.test;

import org.jspecify.annotations.NullMarked;
