package dev.sockstate.sample.resp;

/** SipHash-2-4 (Aumasson and Bernstein), a keyed hash of bytes: what Redis hashes its keys with. */
final class SipHash {

    private SipHash() {
    }

    /**
     * @param k0 the key's first eight bytes, little-endian
     * @param k1 its last eight
     * @param data the bytes hashed
     * @return the 64-bit hash folded to 32 bits
     */
    static int hash(long k0, long k1, byte[] data) {
        long hash = hash64(k0, k1, data);
        return (int) (hash ^ (hash >>> 32));
    }

    /** @return the 64-bit SipHash-2-4 of the bytes under the key */
    static long hash64(long k0, long k1, byte[] data) {
        long[] v = { 0x736f6d6570736575L ^ k0, 0x646f72616e646f6dL ^ k1, 0x6c7967656e657261L ^ k0, 0x7465646279746573L ^ k1 };
        int whole = data.length & ~7;
        for (int i = 0; i < whole; i += 8) {
            compress(v, word(data, i, 8));
        }
        compress(v, word(data, whole, data.length - whole) | ((long) data.length << 56));
        v[2] ^= 0xff;
        rounds(v, 4);
        return v[0] ^ v[1] ^ v[2] ^ v[3];
    }

    private static void compress(long[] v, long m) {
        v[3] ^= m;
        rounds(v, 2);
        v[0] ^= m;
    }

    private static void rounds(long[] v, int count) {
        long v0 = v[0];
        long v1 = v[1];
        long v2 = v[2];
        long v3 = v[3];
        for (int round = 0; round < count; round++) {
            v0 += v1;
            v1 = Long.rotateLeft(v1, 13) ^ v0;
            v0 = Long.rotateLeft(v0, 32);
            v2 += v3;
            v3 = Long.rotateLeft(v3, 16) ^ v2;
            v0 += v3;
            v3 = Long.rotateLeft(v3, 21) ^ v0;
            v2 += v1;
            v1 = Long.rotateLeft(v1, 17) ^ v2;
            v2 = Long.rotateLeft(v2, 32);
        }
        v[0] = v0;
        v[1] = v1;
        v[2] = v2;
        v[3] = v3;
    }

    /** @return up to eight bytes from {@code offset}, little-endian */
    private static long word(byte[] data, int offset, int count) {
        long word = 0;
        for (int i = 0; i < count; i++) {
            word |= (data[offset + i] & 0xffL) << (8 * i);
        }
        return word;
    }
}
