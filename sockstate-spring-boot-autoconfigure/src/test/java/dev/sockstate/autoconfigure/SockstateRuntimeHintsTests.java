package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Platform;
import dev.sockstate.server.Connection;
import dev.sockstate.spring.handler.OnMessage;
import dev.sockstate.spring.handler.OnOpen;
import dev.sockstate.spring.handler.SocketHandler;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeHint;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

/** Ahead-of-time hints: handler methods, the backends' native bindings, JNA's dispatch library. */
class SockstateRuntimeHintsTests {

    private final RuntimeHints hints = new RuntimeHints();

    @Test
    void theEpollBindingsNativeMethodsAreReachableThroughJniAndReflection() throws Exception {
        new SockstateRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
        Class<?> linux = Class.forName("dev.sockstate.port.epoll.LinuxNative", false, getClass().getClassLoader());
        String[] natives = Arrays.stream(linux.getDeclaredMethods()).filter((method) -> Modifier.isNative(method.getModifiers()))
                .map(java.lang.reflect.Method::getName).toArray(String[]::new);
        assertThat(natives).contains("epoll_wait", "epoll_ctl", "accept4");
        for (String method : natives) {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(linux, method)).as(method).accepts(this.hints);
        }
        TypeHint jni = this.hints.jni().getTypeHint(TypeReference.of(linux));
        assertThat(jni).isNotNull();
        assertThat(jni.getMemberCategories()).contains(MemberCategory.INVOKE_DECLARED_METHODS);
        assertThat(this.hints.jni().getTypeHint(TypeReference.of("dev.sockstate.port.winsock.WinsockNative$Notifications")))
                .as("the Windows bindings too, for an image built for Windows").isNotNull();
    }

    @Test
    void theBackendsServiceFileAndJnasDispatchLibraryAreResources() {
        new SockstateRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/services/dev.sockstate.port.Backend")).accepts(this.hints);
        String library = "com/sun/jna/" + Platform.RESOURCE_PREFIX + "/" + System.mapLibraryName("jnidispatch");
        assertThat(getClass().getClassLoader().getResource(library)).as("JNA's library for this platform").isNotNull();
        assertThat(RuntimeHintsPredicates.resource().forResource(library)).accepts(this.hints);
        for (String windows : new String[] { "com/sun/jna/win32-x86-64/jnidispatch.dll", "com/sun/jna/win32-aarch64/jnidispatch.dll" }) {
            assertThat(getClass().getClassLoader().getResource(windows)).as("JNA's library for Windows, in its jar").isNotNull();
            assertThat(RuntimeHintsPredicates.resource().forResource(windows)).as(windows).accepts(this.hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                Arrays.stream(dev.sockstate.port.Backends.select("epoll").getClass().getConstructors()).findFirst().orElseThrow()))
                .accepts(this.hints);
    }

    @Test
    void handlerMethodsAreInvokableAndTheirMessageTypesBindable() {
        new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(this.hints, Orders.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class, "opened")).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Orders.class, "order")).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).as("payload").accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "item")).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Receipt.class)).as("reply").accepts(this.hints);
        assertThat(this.hints.reflection().getTypeHint(Connection.class)).as("sockstate's own types need nothing").isNull();
    }

    record Order(String item, int quantity) {
    }

    record Receipt(long number) {
    }

    @SocketHandler("orders")
    static class Orders {

        @OnOpen
        void opened(Connection connection) {
        }

        @OnMessage
        Receipt order(Order order, Connection connection) {
            return new Receipt(1);
        }
    }
}
