/**
 * Typed messages for {@code @OnMessage} methods and {@code Connection.send}, as
 * {@link dev.sockstate.server.MessageMapper}s a listener's settings take:
 * {@link dev.sockstate.spring.message.ConvertingMessageMapper} on a Spring
 * {@code ConversionService}, and {@link dev.sockstate.spring.message.JsonMessageMapper} on Jackson
 * (optional). Spring Boot's auto-configuration makes one of the application's {@code Converter}
 * beans and {@code JsonMapper}.
 */
@NullMarked
package dev.sockstate.spring.message;

import org.jspecify.annotations.NullMarked;
