package dev.sockstate.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

/** The failure behind a context that did not start, for the tests that expect one. */
public final class StartupFailures {

    private StartupFailures() {
    }

    /**
     * @param context a context that failed to start
     * @param type the failure expected somewhere in its causes
     * @param <T> its type
     * @return that failure
     */
    public static <T extends Throwable> T find(AssertableApplicationContext context, Class<T> type) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        while (failure != null && !type.isInstance(failure)) {
            failure = failure.getCause();
        }
        assertThat(failure).as("a %s in %s", type.getSimpleName(), context.getStartupFailure()).isNotNull();
        return type.cast(failure);
    }
}
