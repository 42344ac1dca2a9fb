package dev.sockstate.autoconfigure.tls;

import dev.sockstate.autoconfigure.SockstateAutoConfiguration;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;
import java.nio.ByteBuffer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * An application with a TLS listener whose {@code ssl.provider} is the first argument, started by
 * {@link NativeTlsAbsentTests} in a JVM whose class path left Netty out: prints "started on " and the
 * listener's port, then stops, or fails its start as any Spring Boot application does.
 */
@SpringBootConfiguration
@ImportAutoConfiguration({SslAutoConfiguration.class, SockstateAutoConfiguration.class})
@Import(NativeTlsAbsentApplication.Echo.class)
public class NativeTlsAbsentApplication {

    public static void main(String[] args) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(NativeTlsAbsentApplication.class)
                .web(WebApplicationType.NONE)
                .properties("sockstate.workers.threads=1", "sockstate.shutdown.timeout=5s", "sockstate.listeners.echo.port=0",
                        "sockstate.listeners.echo.address=127.0.0.1", "sockstate.listeners.echo.ssl.bundle=server",
                        "sockstate.listeners.echo.ssl.provider=" + args[0],
                        "spring.ssl.bundle.pem.server.keystore.certificate=classpath:tls/server.crt",
                        "spring.ssl.bundle.pem.server.keystore.private-key=classpath:tls/server.key")
                .run()) {
            System.out.println("started on " + context.getEnvironment().getProperty("local.sockstate.echo.port"));
        }
    }

    @SocketHandler("echo")
    static class Echo {

        @OnData
        void answer(Connection connection, ByteBuffer data) {
            connection.write(data);
        }
    }
}
