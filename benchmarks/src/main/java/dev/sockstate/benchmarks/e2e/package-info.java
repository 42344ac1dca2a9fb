/**
 * The end-to-end harness: echo servers (sockstate through the starter, Netty's native epoll, a plain
 * NIO selector) in processes of their own, loads from one client JVM, and the report, with its SVG
 * charts in a results directory meant to be committed.
 */
package dev.sockstate.benchmarks.e2e;
