package dev.sockstate.port.nio;

/**
 * Messages posted to a port, first in first out, in two growable rings (keys and payloads): posting
 * and taking allocate nothing once the rings have grown to the most messages ever waiting at once.
 * Not thread-safe: its port's lock guards it.
 */
final class PostedQueue {

    private long[] keys = new long[16];

    private int[] payloads = new int[16];

    private int head;

    private int size;

    /** @param key the message's key @param payload its payload */
    void add(long key, int payload) {
        if (this.size == this.keys.length) {
            grow();
        }
        int tail = (this.head + this.size) & (this.keys.length - 1);
        this.keys[tail] = key;
        this.payloads[tail] = payload;
        this.size++;
    }

    /** @return the number of messages waiting */
    int size() {
        return this.size;
    }

    /** @return the oldest message's key; only while {@link #size()} is positive */
    long headKey() {
        return this.keys[this.head];
    }

    /** @return the oldest message's payload; only while {@link #size()} is positive */
    int headPayload() {
        return this.payloads[this.head];
    }

    /** Drops the oldest message. */
    void removeHead() {
        this.head = (this.head + 1) & (this.keys.length - 1);
        this.size--;
    }

    /** Drops every message. */
    void clear() {
        this.head = 0;
        this.size = 0;
    }

    private void grow() {
        int capacity = this.keys.length;
        long[] newKeys = new long[capacity * 2];
        int[] newPayloads = new int[capacity * 2];
        for (int i = 0; i < this.size; i++) {
            int from = (this.head + i) & (capacity - 1);
            newKeys[i] = this.keys[from];
            newPayloads[i] = this.payloads[from];
        }
        this.keys = newKeys;
        this.payloads = newPayloads;
        this.head = 0;
    }

}
