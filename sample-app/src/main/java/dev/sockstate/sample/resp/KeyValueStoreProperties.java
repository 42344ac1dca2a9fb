package dev.sockstate.sample.resp;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/** The bounds of the RESP listeners' key-value store, under {@code sample.resp.store}. */
@ConfigurationProperties("sample.resp.store")
public class KeyValueStoreProperties {

    /** Most keys the store holds; a SET or INCR of a new key beyond it is refused with an OOM error. */
    private int maxKeys = 1_000_000;

    /** Most bytes of keys and values the store holds; a write that would pass it is refused with an OOM error. */
    private DataSize maxSize = DataSize.ofMegabytes(64);

    public int getMaxKeys() {
        return this.maxKeys;
    }

    public void setMaxKeys(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    public DataSize getMaxSize() {
        return this.maxSize;
    }

    public void setMaxSize(DataSize maxSize) {
        this.maxSize = maxSize;
    }
}
