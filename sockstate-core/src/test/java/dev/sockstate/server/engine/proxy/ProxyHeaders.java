package dev.sockstate.server.engine.proxy;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/** Builds PROXY protocol headers as balancers send them, good and bad, for the tests. */
public final class ProxyHeaders {

    private static final byte[] SIGNATURE = { 0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A };

    private ProxyHeaders() {
    }

    /** @return a version 1 line for the two addresses, its family the source's */
    public static byte[] v1(InetSocketAddress source, InetSocketAddress destination) {
        String family = (source.getAddress().getAddress().length == 4) ? "TCP4" : "TCP6";
        return ("PROXY " + family + " " + source.getAddress().getHostAddress() + " " + destination.getAddress().getHostAddress() + " "
                + source.getPort() + " " + destination.getPort() + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** A version 2 header being built. */
    public static V2 v2() {
        return new V2();
    }

    /** A version 2 header: PROXY over TCP, with the addresses and TLVs given, or LOCAL. */
    public static final class V2 {

        private int versionCommand = 0x21;

        private int familyTransport;

        private byte[] addresses = new byte[0];

        private final ByteArrayOutputStream tlvs = new ByteArrayOutputStream();

        private boolean crc;

        private Integer lengthOverride;

        public V2 local() {
            this.versionCommand = 0x20;
            return this;
        }

        public V2 versionCommand(int value) {
            this.versionCommand = value;
            return this;
        }

        public V2 familyTransport(int value) {
            this.familyTransport = value;
            return this;
        }

        public V2 tcp(InetSocketAddress source, InetSocketAddress destination) {
            byte[] from = source.getAddress().getAddress();
            byte[] to = destination.getAddress().getAddress();
            this.familyTransport = (from.length == 4) ? 0x11 : 0x21;
            ByteBuffer block = ByteBuffer.allocate(2 * from.length + 4);
            block.put(from).put(to).putShort((short) source.getPort()).putShort((short) destination.getPort());
            this.addresses = block.array();
            return this;
        }

        public V2 addressBytes(byte[] bytes) {
            this.addresses = bytes.clone();
            return this;
        }

        public V2 tlv(int type, byte[] value) {
            this.tlvs.write(type);
            this.tlvs.write(value.length >>> 8);
            this.tlvs.write(value.length & 0xff);
            this.tlvs.writeBytes(value);
            return this;
        }

        public V2 rawTlvBytes(byte[] bytes) {
            this.tlvs.writeBytes(bytes);
            return this;
        }

        /** Adds a CRC32C TLV, computed over the whole header as it ends up. */
        public V2 crc32c() {
            this.crc = true;
            return this;
        }

        /** Declares another length than the bytes that follow. */
        public V2 declaredLength(int length) {
            this.lengthOverride = length;
            return this;
        }

        public byte[] bytes() {
            byte[] tail = this.tlvs.toByteArray();
            int length = this.addresses.length + tail.length + (this.crc ? 7 : 0);
            ByteBuffer header = ByteBuffer.allocate(16 + length);
            header.put(SIGNATURE).put((byte) this.versionCommand).put((byte) this.familyTransport)
                    .putShort((short) ((this.lengthOverride != null) ? this.lengthOverride : length));
            header.put(this.addresses).put(tail);
            if (this.crc) {
                int at = header.position() + 3;
                header.put((byte) 0x03).putShort((short) 4).putInt(0);
                CRC32C crc32c = new CRC32C();
                crc32c.update(header.array(), 0, header.capacity());
                header.putInt(at, (int) crc32c.getValue());
            }
            return header.array();
        }
    }
}
