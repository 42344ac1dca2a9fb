/**
 * The reference proxy of the RESP proxy comparison: a byte-for-byte TCP proxy on Netty (a different
 * design from sockstate's resp-proxy: a connection to the server per client, no parsing),
 * written the way Netty's own proxy example is, run by {@code benchmarks/proxy-compare.sh} in front of
 * a {@code redis-server} beside sockstate's {@code resp-proxy} listener.
 */
package dev.sockstate.benchmarks.proxy;
