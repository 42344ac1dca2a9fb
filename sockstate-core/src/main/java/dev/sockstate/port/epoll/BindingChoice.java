package dev.sockstate.port.epoll;

import java.lang.reflect.InvocationTargetException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Which binding of libc the epoll backend runs on, chosen once at start-up: on Java 22 and later
 * the FFM binding ({@value #FFM_CLASS}, compiled only by a JDK 22 or later and loaded by name, so
 * that no class refers to it), JNA's before, on request ({@value #PROPERTY}{@code =jna}) and when
 * FFM cannot be made (native access denied, a jar built without the class), the reason kept.
 * {@value #PROPERTY}{@code =ffm} insists on FFM: its failure is the backend's.
 *
 * @param calls the binding made, or {@code null} when none could be
 * @param description which binding and why, such as {@code FFM binding (Java 25)}; or why none (for FFM
 *        alone, its failure)
 * @param cause the failure behind a missing binding, or {@code null}
 */
record BindingChoice(@Nullable EpollCalls calls, String description, @Nullable Throwable cause) {

    /** The system property that chooses a binding: {@code ffm}, {@code jna}, or unset (or {@code auto}) for FFM where it runs. */
    static final String PROPERTY = "sockstate.epoll.binding";

    /** The FFM binding's class, present in a jar built by JDK 22 or later. */
    static final String FFM_CLASS = "dev.sockstate.port.epoll.FfmCalls";

    /** The first Java release whose foreign function API is final. */
    static final int FFM_RELEASE = 22;

    /** Makes one binding, throwing whatever making it throws. */
    @FunctionalInterface
    interface Factory {

        /** @return a binding ready for its first call */
        EpollCalls make() throws Exception;
    }

    /** @return whether a binding was made */
    boolean made() {
        return this.calls != null;
    }

    /** @return the choice for this process: its property, its Java release, FFM by name and JNA's binding */
    static BindingChoice here() {
        return choose(System.getProperty(PROPERTY), Runtime.version().feature(), BindingChoice::loadFfm,
                LinuxNative.Binding::new);
    }

    /**
     * @param requested the property's value: {@code ffm}, {@code jna}, or {@code null} (or blank) for the default
     * @param javaRelease the running Java's feature release
     * @param ffm makes the FFM binding (asked only on Java 22 or later)
     * @param jna makes JNA's binding
     * @return the binding made and its description, or why none could be
     */
    static BindingChoice choose(@Nullable String requested, int javaRelease, Factory ffm, Factory jna) {
        String wanted = (requested == null) ? "" : requested.trim().toLowerCase(Locale.ROOT);
        switch (wanted) {
            case "", "auto" -> {
                if (javaRelease < FFM_RELEASE) {
                    return make(jna, "FFM needs Java " + FFM_RELEASE + ", this is Java " + javaRelease);
                }
                BindingChoice viaFfm = make(ffm, null);
                return viaFfm.made() ? viaFfm : make(jna, viaFfm.description());
            }
            case "jna" -> {
                return make(jna, PROPERTY + "=jna");
            }
            case "ffm" -> {
                if (javaRelease < FFM_RELEASE) {
                    return new BindingChoice(null, PROPERTY + "=ffm needs Java " + FFM_RELEASE + " or later, this is Java "
                            + javaRelease, null);
                }
                BindingChoice viaFfm = make(ffm, null);
                return viaFfm.made() ? viaFfm : new BindingChoice(null, PROPERTY + "=ffm, but the FFM binding could not be made: "
                        + viaFfm.description(),
                        viaFfm.cause());
            }
            default -> {
                return new BindingChoice(null, PROPERTY + " must be 'ffm' or 'jna' (or unset), not '" + requested + "'", null);
            }
        }
    }

    /**
     * @param factory the binding to make
     * @param ffmNotUsed why FFM is not used, when this is JNA's; {@code null} for FFM itself
     * @return the binding and its description, or why it could not be made
     */
    private static BindingChoice make(Factory factory, @Nullable String ffmNotUsed) {
        boolean isFfm = (ffmNotUsed == null);
        try {
            EpollCalls made = factory.make();
            return new BindingChoice(made, isFfm ? made.binding() : made.binding() + " (FFM not used: " + ffmNotUsed + ")", null);
        }
        catch (Exception | LinkageError ex) {
            Throwable cause = unwrap(ex);
            String reason = isFfm ? cause.toString() : jnaFailure(cause) + " (FFM not used: " + ffmNotUsed + ")";
            return new BindingChoice(null, reason, cause);
        }
    }

    /** @return why JNA's binding could not be made, with what would help */
    private static String jnaFailure(Throwable cause) {
        if (cause instanceof IllegalCallerException) {
            return "native access is denied to JNA (--enable-native-access=ALL-UNNAMED allows it): " + cause;
        }
        if (cause instanceof LinkageError) {
            return "JNA could not bind libc (is net.java.dev.jna:jna on the class path?): " + cause;
        }
        return "JNA's binding could not be made: " + cause;
    }

    /** @return the failure behind reflection's and class initialisation's wrappers */
    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof InvocationTargetException || cause instanceof ExceptionInInitializerError)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** @return the FFM binding, loaded by name: absent from a jar a JDK older than 22 built */
    static EpollCalls loadFfm() throws ReflectiveOperationException {
        Class<?> type = Class.forName(FFM_CLASS, true, BindingChoice.class.getClassLoader());
        return (EpollCalls) type.getDeclaredConstructor().newInstance();
    }
}
