package dev.sockstate.sample.syslog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.sockstate.server.framing.FramingException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Syslog headers as RFC 5424 and RFC 3164 write them, and RFC 6587's two framings told apart. */
class SyslogMessageTest {

    @Test
    void anRfc5424MessageGivesItsHeaderAndTheTextAfterItsStructuredData() {
        SyslogMessage message = parse("<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 "
                + "[exampleSDID@32473 iut=\"3\" eventSource=\"App]lication\"][other a=\"\\\"b\"] An application event");
        assertThat(message).isEqualTo(new SyslogMessage("local4", "notice", "RFC5424", "2003-10-11T22:14:15.003Z",
                "mymachine.example.com", "evntslog", "An application event"));
        assertThat(parse("<13>1 - host app - - -").text()).isEmpty();
        assertThat(parse("<13>1 - host app - - - \uFEFFwith a BOM").text()).isEqualTo("with a BOM");
    }

    @Test
    void anRfc3164MessageGivesItsTimestampHostAndTag() {
        assertThat(parse("<30>Nov 23 18:54:22 vm cron[42]: a datagram")).isEqualTo(
                new SyslogMessage("daemon", "info", "RFC3164", "Nov 23 18:54:22", "vm", "cron", "a datagram"));
        assertThat(parse("<0>no header at all")).isEqualTo(new SyslogMessage("kern", "emerg", "RFC3164", "-", "-", "-",
                "no header at all"));
    }

    @Test
    void aMessageWithoutAValidPriorityIsRefusedSayingWhy() {
        assertThatIllegalArgumentException().isThrownBy(() -> parse("hello"))
                .withMessage("a syslog message starts with a priority such as <13>, not \"hello\"");
        assertThatIllegalArgumentException().isThrownBy(() -> parse("<192>1 x")).withMessage("a syslog priority is 0 to 191, not \"<192>\"");
    }

    @Test
    void octetCountingAndLineEndedFramesAreToldApartByTheirFirstByte() throws Exception {
        SyslogFraming framing = new SyslogFraming();
        ByteBuffer counted = ascii("11 <13>1 - - -<13>next");
        assertThat(framing.frameLength(counted)).isEqualTo(14);
        assertThat(framing.headerLength(counted.duplicate().limit(14))).isEqualTo(3);
        ByteBuffer lined = ascii("<13>a line\r\n<14>");
        assertThat(framing.frameLength(lined)).isEqualTo(12);
        assertThat(framing.trailerLength(lined.duplicate().limit(12))).isEqualTo(2);
        assertThatExceptionOfType(FramingException.class)
                .isThrownBy(() -> framing.frameLength(ascii("hello\n")))
                .withMessage("a syslog frame starts with a length (octet counting) or '<' (a priority), not 'h'");
    }

    private static SyslogMessage parse(String text) {
        return SyslogMessage.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }
}
