package dev.sockstate.sample.resp;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The keys and values of the RESP listeners, shared by all their connections; bounded in keys and in
 * bytes (of keys and values both), so that clients cannot take the heap (the key count may pass its
 * bound by the few new keys written at the same moment; the bytes never do). Keys are hashed with
 * SipHash-2-4 under a key drawn at random for each store, as Redis hashes its dictionaries: a client
 * cannot choose keys that share a bucket, as it can under {@code Arrays.hashCode} ("Aa" and "BB"
 * collide, and so does every string of such pairs). Keys that collide anyway are ordered, so that a
 * crowded bucket is searched as a tree.
 */
public final class KeyValueStore {

    private final ConcurrentMap<Key, byte[]> values = new ConcurrentHashMap<>();

    private final int maxKeys;

    private final long maxBytes;

    private final AtomicLong bytes = new AtomicLong();

    private final long k0;

    private final long k1;

    /**
     * @param maxKeys the most keys the store holds
     * @param maxBytes the most bytes of keys and values it holds
     */
    public KeyValueStore(int maxKeys, long maxBytes) {
        if (maxKeys < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("A store holds at least one key and one byte, not " + maxKeys + " keys and "
                    + maxBytes + " B");
        }
        this.maxKeys = maxKeys;
        this.maxBytes = maxBytes;
        SecureRandom random = new SecureRandom();
        this.k0 = random.nextLong();
        this.k1 = random.nextLong();
    }

    /**
     * @param key the key
     * @param value its value
     * @return false when the store is full (in keys, for a new key, or in bytes), nothing stored
     */
    public boolean set(byte[] key, byte[] value) {
        boolean[] stored = {false};
        this.values.compute(keyOf(key), (k, current) -> {
            if (reserve(key, current, value)) {
                stored[0] = true;
                return value;
            }
            return current;
        });
        return stored[0];
    }

    public byte[] get(byte[] key) {
        return this.values.get(keyOf(key));
    }

    public boolean delete(byte[] key) {
        boolean[] removed = {false};
        this.values.computeIfPresent(keyOf(key), (k, current) -> {
            this.bytes.addAndGet(-(key.length + current.length));
            removed[0] = true;
            return null;
        });
        return removed[0];
    }

    public boolean exists(byte[] key) {
        return this.values.containsKey(keyOf(key));
    }

    /**
     * @param key the key
     * @return the incremented value
     * @throws NumberFormatException when the value is not a 64-bit integer
     * @throws ArithmeticException when the increment would overflow
     * @throws StoreFullException when the key is new, or its value grows, and the store is full
     */
    public long increment(byte[] key) {
        long[] result = new long[1];
        this.values.compute(keyOf(key), (k, current) -> {
            long value = (current == null) ? 0 : Long.parseLong(new String(current, StandardCharsets.US_ASCII));
            result[0] = Math.addExact(value, 1);
            byte[] next = Long.toString(result[0]).getBytes(StandardCharsets.US_ASCII);
            if (!reserve(key, current, next)) {
                throw new StoreFullException();
            }
            return next;
        });
        return result[0];
    }

    /** @return the number of keys */
    public int size() {
        return this.values.size();
    }

    /** @return the bytes of keys and values held */
    public long bytes() {
        return this.bytes.get();
    }

    /**
     * Counts a key's new value in, under the key's lock in the map: refused when the store would hold
     * more keys or bytes than its bounds (a replaced value's bytes are given back).
     */
    private boolean reserve(byte[] key, byte[] current, byte[] value) {
        if (current == null && this.values.size() >= this.maxKeys) {
            return false;
        }
        long growth = (current == null) ? key.length + value.length : value.length - current.length;
        while (true) {
            long held = this.bytes.get();
            if (growth > 0 && held + growth > this.maxBytes) {
                return false;
            }
            if (this.bytes.compareAndSet(held, held + growth)) {
                return true;
            }
        }
    }

    /** @return the key as the store holds it, hashed under the store's key */
    Key keyOf(byte[] bytes) {
        return new Key(bytes, SipHash.hash(this.k0, this.k1, bytes));
    }

    /** A write refused because the store is full. */
    public static final class StoreFullException extends RuntimeException {

        StoreFullException() {
            super("the store is full", null, false, false);
        }
    }

    /** A key compared by content, hashed under the store's key, ordered where hashes collide. */
    record Key(byte[] bytes, int hash) implements Comparable<Key> {

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && Arrays.equals(this.bytes, key.bytes);
        }

        @Override
        public int hashCode() {
            return this.hash;
        }

        @Override
        public int compareTo(Key other) {
            return Arrays.compareUnsigned(this.bytes, other.bytes);
        }

        @Override
        public String toString() {
            return new String(this.bytes, StandardCharsets.ISO_8859_1);
        }
    }
}
