/**
 * A syslog receiver: RFC 6587 over TCP (octet counting and LF-terminated frames on one listener) and
 * plain datagrams over UDP, RFC 5424 and RFC 3164 messages, counted by facility and severity and the
 * latest kept for the {@code syslog} Actuator endpoint. The unmodified {@code logger} of util-linux
 * talks to it.
 */
package dev.sockstate.sample.syslog;
