package dev.sockstate.boot.test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Jackson's auto-configuration in a {@link SocketHandlerTest}, when the application has Spring
 * Boot's Jackson module, before sockstate's messages (JSON messages need its {@code JsonMapper}):
 * imported by name, since a slice's list of auto-configurations may not name a class that is absent.
 */
@AutoConfiguration(beforeName = "dev.sockstate.autoconfigure.message.SockstateMessageAutoConfiguration")
@ConditionalOnClass(name = SocketHandlerTestJackson.JACKSON)
@Import(SocketHandlerTestJackson.Jackson.class)
final class SocketHandlerTestJackson {

    static final String JACKSON = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration";

    /** Names Jackson's auto-configuration. */
    static final class Jackson implements ImportSelector {

        @Override
        public String[] selectImports(AnnotationMetadata importingClassMetadata) {
            return new String[] { JACKSON };
        }
    }
}
