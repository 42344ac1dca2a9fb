package dev.sockstate.sample.syslog;

import org.springframework.core.convert.converter.Converter;

/** Reads a syslog message for {@code @OnMessage} methods that take a {@link SyslogMessage}. */
public final class SyslogMessageConverter implements Converter<byte[], SyslogMessage> {

    @Override
    public SyslogMessage convert(byte[] source) {
        return SyslogMessage.parse(source);
    }
}
