package dev.sockstate.benchmarks.e2e;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** The Spring Boot application of the starter-based echo server: auto-configuration and one handler bean. */
@SpringBootConfiguration
@EnableAutoConfiguration
class StarterEchoApplication {

    @Bean
    StarterEchoHandler echoHandler() {
        return new StarterEchoHandler();
    }
}
