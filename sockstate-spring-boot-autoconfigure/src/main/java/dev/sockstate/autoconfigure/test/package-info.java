/**
 * Support for {@code @SpringBootTest}s of socket servers: every listener binds a free port in a
 * test's context (unless the test asks for {@code webEnvironment = DEFINED_PORT}),
 * {@link LocalListenerPort} injects the port a listener bound. Active only
 * with Spring's TestContext framework on the class path.
 */
package dev.sockstate.autoconfigure.test;
