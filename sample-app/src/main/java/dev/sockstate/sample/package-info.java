/**
 * The sample application: an echo listener, a poll-style listener on a one-thread group, a UDP
 * counter and a RESP key-value server, each a {@code @SocketHandler} bean.
 */
package dev.sockstate.sample;
