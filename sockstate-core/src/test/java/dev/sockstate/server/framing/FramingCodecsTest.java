package dev.sockstate.server.framing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The built-in decoders and encoders on their own; {@code FramingTest} runs them on sockets. */
class FramingCodecsTest {

    @Test
    void aLineEndsAtItsLfAndACrBeforeItIsPartOfTheTerminator() throws Exception {
        FrameDecoder line = Framing.line().decoder();
        ByteBuffer bytes = ascii("ab\r\ncd");
        assertThat(line.frameLength(bytes)).isEqualTo(4);
        assertThat(line.trailerLength(bytes.duplicate().limit(4))).isEqualTo(2);
        assertThat(line.trailerLength(ascii("\n"))).isEqualTo(1);
        assertThat(line.frameLength(ascii("no end"))).isEqualTo(FrameDecoder.MORE);
        assertThat(bytes.position()).as("the decoder moves nothing").isZero();
    }

    @Test
    void aSearchResumedAfterTheBytesAlreadySearchedStillFindsADelimiterThatBeganInThem() throws Exception {
        FrameDecoder delimiter = Framing.delimiter(new byte[] { '<', '>', '!' }).decoder();
        ByteBuffer bytes = ascii("abc<>!rest");
        assertThat(delimiter.frameLength(bytes.duplicate().limit(5), 0)).isEqualTo(FrameDecoder.MORE);
        assertThat(delimiter.frameLength(bytes, 5)).isEqualTo(6);
        assertThat(Framing.line().decoder().frameLength(ascii("ab\ncd\n"), 3)).as("a line search resumed past an earlier end")
                .isEqualTo(6);
    }

    @Test
    void aLengthFieldIsReadInItsByteOrderAndAdjusted() throws Exception {
        FrameDecoder bigEndian = Framing.lengthField(0, 2, ByteOrder.BIG_ENDIAN, 0, 2).decoder();
        assertThat(bigEndian.frameLength(ByteBuffer.wrap(new byte[] { 1, 0 }))).isEqualTo(2 + 256);
        assertThat(bigEndian.frameLength(ByteBuffer.wrap(new byte[] { 1 }))).isEqualTo(FrameDecoder.MORE);
        FrameDecoder littleEndian = Framing.lengthField(2, 3, ByteOrder.LITTLE_ENDIAN, -5, 0).decoder();
        assertThat(littleEndian.frameLength(ByteBuffer.wrap(new byte[] { 9, 9, 10, 0, 0 }))).isEqualTo(2 + 3 + 10 - 5);
        assertThat(Framing.lengthField(0, 4, ByteOrder.BIG_ENDIAN, 0, 4).decoder()
                .frameLength(ByteBuffer.wrap(new byte[] { (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff })))
                .as("a 4-byte field is unsigned").isEqualTo(4 + 0xffff_ffffL);
    }

    @Test
    void partOfTheHeaderMayBeStrippedAndIsWrittenBackWithTheFieldFilledIn() throws Exception {
        // A 2-byte magic, a 2-byte length of what follows it; only the magic stripped, so the handler sees the field.
        Framing framing = Framing.lengthField(2, 2, ByteOrder.BIG_ENDIAN, 0, 2);
        ByteBuffer frame = ByteBuffer.wrap(new byte[] { 'M', 'G', 0, 3, 'a', 'b', 'c' });
        assertThat(framing.decoder().frameLength(frame)).isEqualTo(7);
        assertThat(framing.decoder().headerLength(frame)).isEqualTo(2);
        ByteBuffer out = ByteBuffer.allocate(16);
        framing.encoder().encode(ByteBuffer.wrap(new byte[] { 0, 0, 'x', 'y' }), out);
        out.flip();
        assertThat(out.remaining()).isEqualTo(6);
        assertThat(out.getShort(2)).as("the field, filled in over what the handler left there").isEqualTo((short) 2);
        assertThat(framing.decoder().frameLength(out)).isEqualTo(6);
        assertThat(framing.decoder()).hasToString("length-field (offset 2, 2 bytes BIG_ENDIAN, adjustment 0, 2 header bytes stripped)");
    }

    @Test
    void anAdjustmentThatMakesAFrameShorterThanItsHeaderIsAFramingError() {
        FrameDecoder decoder = Framing.lengthField(0, 1, ByteOrder.BIG_ENDIAN, -3, 1).decoder();
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> decoder.frameLength(ByteBuffer.wrap(new byte[] { 1 })))
                .withMessage("Length field: a length of 1 with the adjustment of -3 makes a frame of -1 bytes, shorter than its 1-byte header");
    }

    @Test
    void theLengthFieldEncoderWritesWhatItsDecoderReads() throws Exception {
        Framing framing = Framing.lengthField(1, 2, ByteOrder.LITTLE_ENDIAN, 1, 3);
        ByteBuffer out = ByteBuffer.allocate(16);
        framing.encoder().encode(ascii("hello"), out);
        out.flip();
        assertThat(out.remaining()).isEqualTo(8);
        assertThat(framing.decoder().frameLength(out)).isEqualTo(8);
        assertThat(out.get(1)).isEqualTo((byte) 4);
        assertThatExceptionOfType(FramingException.class)
                .isThrownBy(() -> Framing.lengthField(0, 1, ByteOrder.BIG_ENDIAN, 0, 1).encoder().encode(ByteBuffer.allocate(300),
                        ByteBuffer.allocate(400)))
                .withMessage("Length field: a frame of 301 bytes needs a length of 300, which a 1-byte field does not hold");
    }

    @Test
    void octetCountingReadsTheLengthBeforeTheSpaceAndRefusesALeadingZero() throws Exception {
        FrameDecoder octets = Framing.octetCounting().decoder();
        ByteBuffer frame = ascii("11 hello world");
        assertThat(octets.frameLength(frame)).isEqualTo(14);
        assertThat(octets.headerLength(frame)).isEqualTo(3);
        assertThat(octets.frameLength(ascii("11"))).isEqualTo(FrameDecoder.MORE);
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> octets.frameLength(ascii("05 hello")))
                .withMessage("Octet counting: expected a length (a digit 1-9) at byte 1 of the frame, found '0'");
        assertThatExceptionOfType(FramingException.class).isThrownBy(() -> octets.frameLength(ascii("12345678901 x")))
                .withMessage("Octet counting: a length of more than 10 digits");
        ByteBuffer out = ByteBuffer.allocate(32);
        Framing.octetCounting().encoder().encode(ascii("hello world"), out);
        assertThat(new String(out.array(), 0, out.position(), StandardCharsets.US_ASCII)).isEqualTo("11 hello world");
    }

    @Test
    void aFixedLengthWriteOfAnotherLengthIsRefused() {
        assertThatExceptionOfType(FramingException.class)
                .isThrownBy(() -> Framing.fixed(4).encoder().encode(ascii("abc"), ByteBuffer.allocate(8)))
                .withMessage("A fixed-length frame is 4 bytes, not 3");
    }

    @Test
    void settingsThatCannotFrameAreRefusedSayingWhy() {
        assertThatIllegalArgumentException().isThrownBy(() -> Framing.lengthField(0, 5, ByteOrder.BIG_ENDIAN, 0, 5))
                .withMessage("A length field is 1, 2, 3, 4 or 8 bytes, not 5");
        assertThatIllegalArgumentException().isThrownBy(() -> Framing.lengthField(2, 2, ByteOrder.BIG_ENDIAN, 0, 5))
                .withMessageStartingWith("Bytes to strip are 0 to the whole header (4 bytes: offset and field), not 5");
        assertThatIllegalArgumentException().isThrownBy(() -> Framing.delimiter(new byte[0]))
                .withMessage("A delimiter is at least one byte");
        assertThatIllegalArgumentException().isThrownBy(() -> Framing.line().withMaxFrameSize(0))
                .withMessage("The longest frame is between 1 byte and 1 GiB, not 0 bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> Framing.fixed(128).withMaxFrameSize(64))
                .withMessage("Fixed-length frames of 128 bytes are longer than the longest frame allowed, 64 bytes");
        assertThat(Framing.fixed(100_000).maxFrameSize()).as("the limit a fixed length sets itself").isEqualTo(100_000);
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }
}
