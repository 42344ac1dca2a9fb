/**
 * The reference proxy of the RESP proxy comparison (issue 29): a byte-for-byte TCP proxy on Netty,
 * written the way Netty's own proxy example is, run by {@code benchmarks/proxy-compare.sh} in front of
 * a {@code redis-server} beside sockstate's {@code resp-proxy} listener.
 */
package dev.sockstate.benchmarks.proxy;
