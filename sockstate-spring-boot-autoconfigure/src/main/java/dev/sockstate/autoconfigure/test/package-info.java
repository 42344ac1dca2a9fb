/**
 * Support for {@code @SpringBootTest}s of socket servers: {@link EphemeralListenerPorts} puts every
 * listener on a free port, {@link LocalListenerPort} injects the port a listener bound. Active only
 * with Spring's TestContext framework on the class path.
 */
package dev.sockstate.autoconfigure.test;
