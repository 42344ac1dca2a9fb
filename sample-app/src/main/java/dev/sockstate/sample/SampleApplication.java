package dev.sockstate.sample;

import dev.sockstate.sample.resp.KeyValueStore;
import dev.sockstate.sample.resp.RespCodec;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The sample: the reference's three scenarios (a poll replacement, an edge-triggered UDP receiver,
 * a multi-threaded one-shot echo server) and a Redis-protocol key-value server, each a listener in
 * {@code application.yml} served by a handler bean; Actuator on the management port.
 */
@SpringBootApplication
public class SampleApplication {

    @Bean
    KeyValueStore keyValueStore() {
        return new KeyValueStore(1_000_000);
    }

    /** @return the framing of the {@code resp} listener ({@code framing.codec: respCodec}) */
    @Bean
    RespCodec respCodec() {
        return new RespCodec();
    }

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
