package dev.sockstate.sample.syslog;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The syslog receiver's beans: its framing, its message reader, what it keeps and its endpoint. */
@Configuration(proxyBeanMethods = false)
public class SyslogConfiguration {

    /** @return the framing of the {@code syslog} listener ({@code framing.codec: syslogFraming}) */
    @Bean
    SyslogFraming syslogFraming() {
        return new SyslogFraming();
    }

    /** @return what reads {@link SyslogMessage} parameters */
    @Bean
    SyslogMessageConverter syslogMessageConverter() {
        return new SyslogMessageConverter();
    }

    @Bean
    SyslogReceiver syslogReceiver(MeterRegistry registry) {
        return new SyslogReceiver(registry);
    }

    @Bean
    SyslogEndpoint syslogEndpoint(SyslogReceiver receiver) {
        return new SyslogEndpoint(receiver);
    }
}
