package dev.sockstate.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.ListenerSettings;
import dev.sockstate.server.MessageHandler;
import dev.sockstate.server.engine.EmbeddedConnection;
import dev.sockstate.server.framing.Framing;
import dev.sockstate.server.framing.FramingException;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The worked decoder of the reference documentation's framing page, run in memory as its testing page shows. */
class NetstringsTest {

    /** Answers each message in upper case. */
    static final class Upper implements MessageHandler<String> {

        @Override
        public Class<String> messageType() {
            return String.class;
        }

        @Override
        public Object onMessage(Connection connection, String message) {
            return message.toUpperCase(Locale.ROOT);
        }
    }

    // tag::listener[]
    private final Netstrings netstrings = new Netstrings();

    private final ListenerSettings listener = ListenerSettings.tcp("upper")
            .framing(Framing.of(this.netstrings, this.netstrings).withMaxFrameSize(1024))
            .handler(new Upper()).build();
    // end::listener[]

    // tag::embedded[]
    @Test
    void framesArriveWholeHoweverTheBytesAreCutAndRepliesAreFramed() {
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.listener)) {
            connection.writeInbound("5:hel");                      // half a frame: nothing yet
            assertThat(connection.readAllOutboundText()).isEmpty();
            connection.writeInbound("lo,3:abc,");                  // its end and one more
            assertThat(connection.readAllOutboundText()).isEqualTo("5:HELLO,3:ABC,");
            assertThat(connection.isOpen()).isTrue();
        }
    }

    @Test
    void aFrameOverTheMaxFrameSizeIsRefusedAsSoonAsItsHeaderTellsIt() {
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.listener)) {
            connection.writeInbound("2000:");                      // 2,006 bytes announced, 1,024 allowed
            assertThat(connection.errors()).singleElement().isInstanceOfSatisfying(FramingException.class,
                    (refused) -> assertThat(refused.reason()).isEqualTo(FramingException.Reason.TOO_LARGE));
            assertThat(connection.isClosed()).isTrue();
        }
    }
    // end::embedded[]

    @Test
    void bytesThatAreNoNetstringCloseTheConnection() {
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.listener)) {
            connection.writeInbound("3:abc;");
            assertThat(connection.errors()).singleElement().isInstanceOfSatisfying(FramingException.class,
                    (refused) -> assertThat(refused.reason()).isEqualTo(FramingException.Reason.MALFORMED));
            assertThat(connection.isClosed()).isTrue();
        }
        try (EmbeddedConnection connection = EmbeddedConnection.open(this.listener)) {
            connection.writeInbound("x:");
            assertThat(connection.errors()).singleElement().isInstanceOf(FramingException.class);
            assertThat(connection.isClosed()).isTrue();
        }
    }
}
