package dev.sockstate.sample.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyValueStoreTest {

    @Test
    void sipHashGivesThePapersTestVector() {
        // The SipHash paper's appendix A: key 00..0f, message 00..0e.
        long k0 = 0x0706050403020100L;
        long k1 = 0x0f0e0d0c0b0a0908L;
        byte[] message = new byte[15];
        for (int i = 0; i < message.length; i++) {
            message[i] = (byte) i;
        }
        assertThat(SipHash.hash64(k0, k1, message)).isEqualTo(0xa129ca6149be45e5L);
        assertThat(SipHash.hash64(k0, k1, new byte[0])).isEqualTo(0x726fdb47dd0e0e31L);
    }

    /**
     * 32,768 keys that {@code Arrays.hashCode} (and {@code String.hashCode}) sends to one bucket,
     * built of the colliding pairs "Aa" and "BB": the store spreads them, and each store spreads
     * them differently, so that no key list collides in every process.
     */
    @Test
    void keysThatCollideUnderArraysHashCodeDoNotCollideInTheStore() {
        List<byte[]> colliding = colliding(15);
        assertThat(colliding.stream().map(java.util.Arrays::hashCode).distinct()).as("Arrays.hashCode").hasSize(1);
        KeyValueStore one = new KeyValueStore(100_000, 1 << 24);
        KeyValueStore other = new KeyValueStore(100_000, 1 << 24);
        Set<Integer> hashes = new HashSet<>();
        int differ = 0;
        for (byte[] key : colliding) {
            int hash = one.keyOf(key).hashCode();
            hashes.add(hash);
            differ += (hash != other.keyOf(key).hashCode()) ? 1 : 0;
            assertThat(one.set(key, key)).isTrue();
        }
        assertThat(hashes).as("distinct hashes of %d keys", colliding.size()).hasSizeGreaterThan(colliding.size() - 10);
        assertThat(differ).as("keys hashed alike by two stores").isGreaterThan(colliding.size() - 10);
        assertThat(one.size()).isEqualTo(colliding.size());
        assertThat(one.get(colliding.get(12_345))).isEqualTo(colliding.get(12_345));
    }

    private static List<byte[]> colliding(int pairs) {
        List<byte[]> keys = new ArrayList<>();
        for (int bits = 0; bits < (1 << pairs); bits++) {
            StringBuilder key = new StringBuilder();
            for (int i = 0; i < pairs; i++) {
                key.append(((bits >>> i) & 1) == 0 ? "Aa" : "BB");
            }
            keys.add(key.toString().getBytes(StandardCharsets.US_ASCII));
        }
        return keys;
    }

    @Test
    void aWriteThatWouldPassTheBytesBoundIsRefusedAndWhatIsFreedServesAgain() {
        KeyValueStore store = new KeyValueStore(10, 100);
        assertThat(store.set(bytes("a"), new byte[60])).isTrue();
        assertThat(store.bytes()).isEqualTo(61);
        assertThat(store.set(bytes("b"), new byte[40])).as("61 + 41 > 100").isFalse();
        assertThat(store.get(bytes("b"))).isNull();
        assertThat(store.set(bytes("a"), new byte[100])).as("a's value grows past the bound").isFalse();
        assertThat(store.get(bytes("a"))).hasSize(60);
        assertThat(store.set(bytes("a"), new byte[10])).as("a shorter value").isTrue();
        assertThat(store.set(bytes("b"), new byte[40])).isTrue();
        assertThat(store.bytes()).isEqualTo(11 + 41);
        assertThat(store.delete(bytes("b"))).isTrue();
        assertThat(store.bytes()).isEqualTo(11);
    }

    @Test
    void anIncrementOfANewKeyInAFullStoreIsRefusedAndStoresNothing() {
        KeyValueStore store = new KeyValueStore(1, 1000);
        assertThat(store.increment(bytes("a"))).isEqualTo(1);
        assertThatExceptionOfType(KeyValueStore.StoreFullException.class).isThrownBy(() -> store.increment(bytes("b")));
        assertThat(store.exists(bytes("b"))).isFalse();
        assertThat(store.increment(bytes("a"))).isEqualTo(2);
        assertThat(store.bytes()).isEqualTo(2);
        assertThatIllegalArgumentException().isThrownBy(() -> new KeyValueStore(0, 10)).withMessageContaining("0 keys");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
