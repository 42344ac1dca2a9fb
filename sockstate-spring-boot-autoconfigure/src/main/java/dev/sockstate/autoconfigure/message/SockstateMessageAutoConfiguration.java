package dev.sockstate.autoconfigure.message;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.MessageMapper;
import dev.sockstate.server.engine.SocketServer;
import dev.sockstate.spring.message.ConvertingMessageMapper;
import dev.sockstate.spring.message.JsonMessageMapper;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.format.support.FormattingConversionService;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of typed messages: the {@link MessageMapper} every listener reads and writes
 * messages of the application's types with, made of its {@code Converter} beans from and to
 * {@code byte[]} and, when Jackson is there, its {@code JsonMapper} for the other types. A
 * {@code MessageMapper} bean of the application's own replaces it.
 */
@AutoConfiguration(after = SockstateAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnBean(SocketServer.class)
public final class SockstateMessageAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(MessageMapper.class)
    MessageMapper sockstateMessageMapper(ListableBeanFactory beans, ObjectProvider<JsonMessages> json) {
        FormattingConversionService converters = new FormattingConversionService();
        ApplicationConversionService.addBeans(converters, beans);
        JsonMessages jsonMessages = json.getIfAvailable();
        return new ConvertingMessageMapper(converters, (jsonMessages != null) ? jsonMessages.mapper() : null);
    }

    /** JSON messages, when the application has Jackson's {@code JsonMapper}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JsonMapper.class)
    @ConditionalOnBean(JsonMapper.class)
    static class JacksonConfiguration {

        @Bean
        JsonMessages sockstateJsonMessages(JsonMapper mapper) {
            return new JsonMessages(new JsonMessageMapper(mapper));
        }
    }

    /**
     * The JSON mapper of messages, under a type of its own, so that it is not taken for the
     * application's {@link MessageMapper}.
     * @param mapper reads and writes JSON messages
     */
    record JsonMessages(MessageMapper mapper) {
    }
}
