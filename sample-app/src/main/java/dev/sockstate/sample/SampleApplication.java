package dev.sockstate.sample;

import dev.sockstate.sample.resp.KeyValueStore;
import dev.sockstate.sample.resp.KeyValueStoreProperties;
import dev.sockstate.sample.resp.RespCodec;
import dev.sockstate.sample.resp.RespProxyProperties;
import dev.sockstate.sample.resp.RespReplyCodec;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The sample: the reference's three scenarios (a poll replacement, an edge-triggered UDP receiver,
 * a multi-threaded one-shot echo server), a Redis-protocol key-value server and a Redis proxy in front
 * of a real redis-server (a client), each a listener in {@code application.yml} served by a handler
 * bean; Actuator on the management port.
 */
@SpringBootApplication
@EnableConfigurationProperties({ RespProxyProperties.class, KeyValueStoreProperties.class })
public class SampleApplication {

    @Bean
    KeyValueStore keyValueStore(KeyValueStoreProperties properties) {
        return new KeyValueStore(properties.getMaxKeys(), properties.getMaxSize().toBytes());
    }

    // tag::resp-codec-bean[]
    /** @return the framing of the {@code resp} listener ({@code framing.codec: respCodec}) */
    @Bean
    RespCodec respCodec() {
        return new RespCodec();
    }
    // end::resp-codec-bean[]

    /** @return the framing of the {@code redis} client's replies ({@code framing.codec: respReplyCodec}) */
    @Bean
    RespReplyCodec respReplyCodec() {
        return new RespReplyCodec();
    }

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
