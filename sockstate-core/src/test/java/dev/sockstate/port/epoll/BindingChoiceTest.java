package dev.sockstate.port.epoll;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * How the epoll backend chooses its binding of libc, on bindings that only name themselves: the
 * choice is made once a process, so each case is the choosing function given the property, the Java
 * release and the two factories.
 */
class BindingChoiceTest {

    private static final EpollCalls FFM = named("FFM binding (Java 25)");

    private static final EpollCalls JNA = named("JNA 5.19.1");

    private static final BindingChoice.Factory NOT_ASKED = () -> {
        throw new AssertionError("this binding must not be made");
    };

    @Test
    void ffmIsChosenFromJava22WhenNothingIsAsked() {
        BindingChoice choice = BindingChoice.choose(null, 22, () -> FFM, NOT_ASKED);
        assertThat(choice.calls()).isSameAs(FFM);
        assertThat(choice.description()).isEqualTo("FFM binding (Java 25)");
        assertThat(BindingChoice.choose(" ", 25, () -> FFM, NOT_ASKED).calls()).as("blank is unset").isSameAs(FFM);
    }

    @Test
    void jnaIsChosenBeforeJava22AndSaysWhy() {
        BindingChoice choice = BindingChoice.choose(null, 17, NOT_ASKED, () -> JNA);
        assertThat(choice.calls()).isSameAs(JNA);
        assertThat(choice.description()).isEqualTo("JNA 5.19.1 (FFM not used: FFM needs Java 22, this is Java 17)");
    }

    @Test
    void thePropertyChoosesJnaOnJava22AndLater() {
        BindingChoice choice = BindingChoice.choose("JNA", 25, NOT_ASKED, () -> JNA);
        assertThat(choice.calls()).isSameAs(JNA);
        assertThat(choice.description()).isEqualTo("JNA 5.19.1 (FFM not used: sockstate.epoll.binding=jna)");
    }

    @Test
    void jnaIsTheFallbackWhenNativeAccessIsDeniedToFfm() {
        IllegalCallerException denied = new IllegalCallerException("Illegal native access from: unnamed module");
        BindingChoice choice = BindingChoice.choose(null, 25, () -> {
            throw denied;
        }, () -> JNA);
        assertThat(choice.calls()).isSameAs(JNA);
        assertThat(choice.description()).isEqualTo("JNA 5.19.1 (FFM not used: " + denied + ")");
    }

    @Test
    void theFallbackNamesTheFailureBehindReflectionAndClassInitialisation() {
        IllegalCallerException denied = new IllegalCallerException("denied");
        BindingChoice initialisation = BindingChoice.choose(null, 25, () -> {
            throw new ExceptionInInitializerError(denied);
        }, () -> JNA);
        assertThat(initialisation.description()).isEqualTo("JNA 5.19.1 (FFM not used: " + denied + ")");
        BindingChoice absent = BindingChoice.choose(null, 25, () -> {
            throw new ClassNotFoundException(BindingChoice.FFM_CLASS);
        }, () -> JNA);
        assertThat(absent.calls()).as("a jar built on 17 has no FFM binding").isSameAs(JNA);
        assertThat(absent.description()).contains("ClassNotFoundException: " + BindingChoice.FFM_CLASS);
    }

    @Test
    void whenNeitherBindingCanBeMadeBothCausesAreNamed() {
        IllegalCallerException denied = new IllegalCallerException("denied to FFM");
        UnsatisfiedLinkError noJna = new UnsatisfiedLinkError("jnidispatch: noexec");
        BindingChoice choice = BindingChoice.choose(null, 25, () -> {
            throw denied;
        }, () -> {
            throw noJna;
        });
        assertThat(choice.made()).isFalse();
        assertThat(choice.cause()).isSameAs(noJna);
        assertThat(choice.description()).contains("JNA could not bind libc", "jnidispatch: noexec",
                "FFM not used: " + denied);
    }

    @Test
    void askingForFfmFailsWithTheCauseInsteadOfFallingBack() {
        IllegalCallerException denied = new IllegalCallerException("denied");
        BindingChoice choice = BindingChoice.choose("ffm", 25, () -> {
            throw denied;
        }, NOT_ASKED);
        assertThat(choice.made()).isFalse();
        assertThat(choice.cause()).isSameAs(denied);
        assertThat(choice.description()).isEqualTo("sockstate.epoll.binding=ffm, but the FFM binding could not be made: " + denied);
        BindingChoice tooOld = BindingChoice.choose("ffm", 21, NOT_ASKED, NOT_ASKED);
        assertThat(tooOld.made()).isFalse();
        assertThat(tooOld.description()).isEqualTo("sockstate.epoll.binding=ffm needs Java 22 or later, this is Java 21");
    }

    @Test
    void anUnknownChoiceIsRefusedByName() {
        BindingChoice choice = BindingChoice.choose("panama", 25, NOT_ASKED, NOT_ASKED);
        assertThat(choice.made()).isFalse();
        assertThat(choice.description()).isEqualTo("sockstate.epoll.binding must be 'ffm' or 'jna' (or unset), not 'panama'");
    }

    /** @return a binding that answers {@link EpollCalls#binding()} and nothing else */
    private static EpollCalls named(String name) {
        return (EpollCalls) Proxy.newProxyInstance(EpollCalls.class.getClassLoader(), new Class<?>[] { EpollCalls.class },
                (proxy, method, arguments) -> {
                    if (method.getName().equals("binding")) {
                        return name;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
