package dev.sockstate.sample.resp;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** The keys and values of the RESP listener, shared by all its connections; bounded in keys. */
public final class KeyValueStore {

    private final ConcurrentMap<Key, byte[]> values = new ConcurrentHashMap<>();

    private final int maxKeys;

    /** @param maxKeys the most keys the store holds */
    public KeyValueStore(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    /** @return false when the store is full and the key new */
    public boolean set(byte[] key, byte[] value) {
        Key wrapped = new Key(key);
        if (this.values.size() >= this.maxKeys && !this.values.containsKey(wrapped)) {
            return false;
        }
        this.values.put(wrapped, value);
        return true;
    }

    public byte[] get(byte[] key) {
        return this.values.get(new Key(key));
    }

    public boolean delete(byte[] key) {
        return this.values.remove(new Key(key)) != null;
    }

    public boolean exists(byte[] key) {
        return this.values.containsKey(new Key(key));
    }

    /**
     * @param key the key
     * @return the incremented value
     * @throws NumberFormatException when the value is not a 64-bit integer, or would overflow
     */
    public long increment(byte[] key) {
        long[] result = new long[1];
        this.values.compute(new Key(key), (k, current) -> {
            long value = (current == null) ? 0 : Long.parseLong(new String(current, java.nio.charset.StandardCharsets.US_ASCII));
            result[0] = Math.addExact(value, 1);
            return Long.toString(result[0]).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        });
        return result[0];
    }

    /** @return the number of keys */
    public int size() {
        return this.values.size();
    }

    /** A key compared by content. */
    private static final class Key {

        private final byte[] bytes;

        private final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && Arrays.equals(this.bytes, key.bytes);
        }

        @Override
        public int hashCode() {
            return this.hash;
        }
    }
}
