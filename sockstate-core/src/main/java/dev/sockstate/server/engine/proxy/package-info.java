/**
 * The engine's PROXY protocol stage, internal: {@link dev.sockstate.server.engine.proxy.ProxyStage}
 * reads a connection's header (version 1 or 2, strictly) before any other stage sees a byte, and knows
 * its connection only as a {@link dev.sockstate.server.engine.proxy.ProxyHost}. Users configure it with
 * {@link dev.sockstate.server.proxy.ProxyProtocol}.
 */
package dev.sockstate.server.engine.proxy;
