package dev.sockstate.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.TestContext;

/** What {@link LocalListenerPortTestExecutionListener} injects, and how it says it cannot. */
class LocalListenerPortTestExecutionListenerTests {

    private final LocalListenerPortTestExecutionListener listener = new LocalListenerPortTestExecutionListener();

    @Test
    void aBoundListenersPortIsInjectedAsAnIntOrAString() {
        WithPorts test = new WithPorts();
        this.listener.prepareTestInstance(context(test));
        assertThat(test.echo).isEqualTo(7007);
        assertThat(test.echoText).isEqualTo("7007");
    }

    @Test
    void aListenerThatIsNotBoundFailsTheTestListingThoseThatAre() {
        assertThatIllegalStateException().isThrownBy(() -> this.listener.prepareTestInstance(context(new WithUnknown())))
                .withMessageContaining("@LocalListenerPort(\"nope\")").withMessageContaining("bound listeners: [echo, syslog-udp]");
    }

    private static TestContext context(Object test) {
        GenericApplicationContext application = new GenericApplicationContext();
        application.getEnvironment().getPropertySources().addFirst(new MapPropertySource("local",
                Map.of("local.sockstate.echo.port", 7007, "local.sockstate.syslog-udp.port", 5140)));
        TestContext context = mock(TestContext.class);
        given(context.getTestInstance()).willReturn(test);
        given(context.getTestClass()).willAnswer((invocation) -> test.getClass());
        given(context.getApplicationContext()).willReturn(application);
        return context;
    }

    static class WithPorts {

        @LocalListenerPort("echo")
        int echo;

        @LocalListenerPort("echo")
        String echoText;
    }

    static class WithUnknown {

        @LocalListenerPort("nope")
        int nope;
    }
}
