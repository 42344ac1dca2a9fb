package dev.sockstate.sample.resp;

import dev.sockstate.spring.handler.SocketHandler;

/**
 * The same key-value server on the {@code resp-proxied} listener, behind a load balancer that sends
 * the PROXY protocol (HAProxy's {@code send-proxy-v2}, nginx's {@code proxy_protocol on}): the header
 * is read below the RESP framing, and {@code CLIENT INFO} answers the client's own address.
 */
@SocketHandler("resp-proxied")
public class RespBehindProxyHandler extends RespHandler {

    /** @param store the keys and values, shared with the other RESP listeners */
    public RespBehindProxyHandler(KeyValueStore store) {
        super(store);
    }
}
