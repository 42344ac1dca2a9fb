package dev.sockstate.boot.test;

import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.core.type.filter.AbstractTypeHierarchyTraversingFilter;

/**
 * What a {@link SocketHandlerTest} scans of the application: {@code @SocketHandler} beans and the
 * types that read and write messages; every other component is left out, {@code @Configuration}
 * classes too, as Spring Boot's slices leave them (a test imports what its handlers need). The types
 * are named, not referenced: the test support needs no class of the server.
 */
final class SocketHandlerTypeExcludeFilter extends TypeExcludeFilter {

    private static final String SOCKET_HANDLER = "dev.sockstate.spring.handler.SocketHandler";

    /** The types a handler's messages go through: kept when a component implements one of them. */
    private static final List<String> MESSAGE_TYPES = List.of("org.springframework.core.convert.converter.Converter",
            "org.springframework.core.convert.converter.GenericConverter", "org.springframework.core.convert.converter.ConverterFactory",
            "dev.sockstate.server.framing.FrameDecoder", "dev.sockstate.server.framing.FrameEncoder",
            "dev.sockstate.server.framing.Framing", "dev.sockstate.server.MessageMapper",
            "dev.sockstate.autoconfigure.HandlerDecorator");

    @Override
    public boolean match(MetadataReader reader, MetadataReaderFactory factory) throws IOException {
        if (reader.getAnnotationMetadata().hasAnnotation(SOCKET_HANDLER)
                || reader.getAnnotationMetadata().hasMetaAnnotation(SOCKET_HANDLER)) {
            return false;
        }
        return !new MessageType().match(reader, factory);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other != null && other.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().hashCode();
    }

    /** Whether a class implements, through its superclasses and interfaces, one of the message types. */
    private static final class MessageType extends AbstractTypeHierarchyTraversingFilter {

        MessageType() {
            super(true, true);
        }

        @Override
        protected @Nullable Boolean matchSuperClass(String name) {
            return MESSAGE_TYPES.contains(name) ? Boolean.TRUE : null;
        }

        @Override
        protected @Nullable Boolean matchInterface(String name) {
            return MESSAGE_TYPES.contains(name) ? Boolean.TRUE : null;
        }
    }
}
