/**
 * A RESP2 key-value server (PING, ECHO, SET, GET, DEL, INCR, EXISTS) that unmodified
 * {@code redis-cli} and {@code redis-benchmark} talk to.
 */
package dev.sockstate.sample.resp;
