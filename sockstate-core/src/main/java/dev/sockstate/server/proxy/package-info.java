/**
 * The PROXY protocol for a TCP listener behind a load balancer: {@link dev.sockstate.server.proxy.ProxyProtocol}
 * says which header versions are read, from which balancers, within what time and size; given to
 * {@link dev.sockstate.server.ListenerSettings.Builder#proxyProtocol}, it puts a stage first in each
 * connection's pipeline, below TLS, that reads the header before anything else sees a byte. Handlers
 * find the header as {@link dev.sockstate.server.proxy.ProxyHeader} on the connection, whose peer
 * address becomes the client's. This package knows only the JDK and the address ranges of
 * {@link dev.sockstate.server.admission}.
 */
@NullMarked
package dev.sockstate.server.proxy;

import org.jspecify.annotations.NullMarked;
