/**
 * The engine's PROXY protocol stage, internal: {@link dev.sockstate.server.engine.proxy.ProxyStage}
 * reads a connection's header (version 1 or 2, strictly) before any other stage sees a byte. It is an
 * ordinary stage: it knows its connection only through its {@link dev.sockstate.server.StageContext}
 * (its header's deadline, the header it publishes). Users configure it with
 * {@link dev.sockstate.server.proxy.ProxyProtocol}.
 */
@NullMarked
package dev.sockstate.server.engine.proxy;

import org.jspecify.annotations.NullMarked;
