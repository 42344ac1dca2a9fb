package dev.sockstate.server.engine.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.engine.TlsCertificates;
import dev.sockstate.server.observer.ListenerObserver;
import dev.sockstate.server.tls.Tls;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

/** The buffers a listener's TLS stages are lent for one call. */
class TlsSupportTest {

    @Test
    void whileEveryBufferIsLentACallGetsOneAsLargeAsARecordNotAsTheLentOnes() throws Exception {
        TlsSupport support = new TlsSupport(Tls.server(TlsCertificates.get().context("server")), new ListenerObserver() {
        }, 64 * 1024);
        SSLEngine engine = support.engine(support.settings);
        List<ByteBuffer> lent = new ArrayList<>();
        for (int i = 0; i < TlsSupport.MOST_LENT; i++) {
            lent.add(support.packetBuffer(engine));
            lent.add(support.plaintextBuffer(engine));
        }
        assertThat(lent).allMatch(ByteBuffer::isDirect).allMatch((buffer) -> buffer.capacity() == TlsSupport.ROOM);
        ByteBuffer packet = support.packetBuffer(engine);
        ByteBuffer plaintext = support.plaintextBuffer(engine);
        assertThat(packet.isDirect()).isFalse();
        assertThat(packet.capacity()).isEqualTo(engine.getSession().getPacketBufferSize()).isLessThan(TlsSupport.ROOM / 3);
        assertThat(plaintext.isDirect()).isFalse();
        assertThat(plaintext.capacity()).isEqualTo(engine.getSession().getApplicationBufferSize()).isLessThan(TlsSupport.ROOM / 3);
        support.releasePacket(lent.get(0));
        assertThat(support.packetBuffer(engine)).as("a buffer given back is lent again").isSameAs(lent.get(0));
    }
}
