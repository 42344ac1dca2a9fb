/**
 * JMH benchmarks of the hot path, through the public API, the starter's public handler adapter, or a
 * fixture of the core's test jar.
 */
package dev.sockstate.benchmarks;
