package dev.sockstate.server.engine;

import java.lang.System.Logger.Level;
import java.lang.System.Logger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A warning that may repeat with every bad peer or every refusal: logged at most once a second,
 * with how many happened since the last time, so that a flood of them cannot flood the log, and its
 * control characters escaped, so that a peer's bytes quoted in it cannot forge a line.
 */
final class BoundedLog {

    private static final long INTERVAL_NANOS = 1_000_000_000L;

    private final Logger logger;

    private final AtomicLong logged = new AtomicLong(System.nanoTime() - INTERVAL_NANOS);

    private final LongAdder sinceLogged = new LongAdder();

    BoundedLog(Logger logger) {
        this.logger = logger;
    }

    /**
     * Counts one occurrence and logs it if the last was logged a second ago or more.
     * @param message what happened
     * @param failure the failure behind it
     */
    void warn(String message, @Nullable Throwable failure) {
        warn(() -> message, failure);
    }

    /**
     * Counts one occurrence and logs it if the last was logged a second ago or more, the message made
     * only then: an occurrence that is not logged costs no string.
     * @param message makes what happened
     * @param failure the failure behind it
     */
    void warn(Supplier<String> message, @Nullable Throwable failure) {
        this.sinceLogged.increment();
        long last = this.logged.get();
        long now = System.nanoTime();
        if (now - last >= INTERVAL_NANOS && this.logged.compareAndSet(last, now)) {
            this.logger.log(Level.WARNING, escaped(message.get()) + " (" + this.sinceLogged.sumThenReset() + " since the last report)",
                    failure);
        }
    }

    /**
     * @param message a message that may quote a peer's bytes (a decoder's refusal, a header's text)
     * @return the message with every control character written as a backslash, {@code x} and its two
     * hex digits (past 0xff, {@code u} and four), so that a CR or LF a peer sent cannot start a line
     * of its own in the log
     */
    static String escaped(String message) {
        StringBuilder escaped = null;
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            // (A backslash is doubled, so that an escape and a peer's text that looks like one differ.)
            boolean control = c < 0x20 || (c >= 0x7f && c < 0xa0) || c == '\u2028' || c == '\u2029' || c == '\\';
            if (control && escaped == null) {
                escaped = new StringBuilder(message.length() + 16).append(message, 0, i);
            }
            if (escaped != null) {
                if (!control) {
                    escaped.append(c);
                }
                else if (c == '\\') {
                    escaped.append("\\\\");
                }
                else if (c < 0x100) {
                    escaped.append(String.format("\\x%02x", (int) c));
                }
                else {
                    escaped.append(String.format("\\u%04x", (int) c));
                }
            }
        }
        return (escaped != null) ? escaped.toString() : message;
    }
}
