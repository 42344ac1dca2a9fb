package dev.sockstate.server;

import org.jspecify.annotations.Nullable;

/**
 * A setting of a listener, a client or a worker group was refused. Names what it belongs to, the
 * {@link Setting} and the value, so that a layer above can report it against its own property.
 */
public class InvalidSettingException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final Setting.Scope ownerScope;

    private final String ownerName;

    private final Setting setting;

    private final transient @Nullable Object value;

    private final String reason;

    /**
     * @param ownerName the listener's or group's name
     * @param setting the setting
     * @param value the refused value
     * @param reason why, as a sentence
     * @param message the whole message
     */
    public InvalidSettingException(String ownerName, Setting setting, @Nullable Object value, String reason, String message) {
        this(setting.scope(), ownerName, setting, value, reason, message);
    }

    /**
     * @param ownerScope what the owner is
     * @param ownerName the listener's, client's or group's name
     * @param setting the setting
     * @param value the refused value
     * @param reason why, as a sentence
     * @param message the whole message
     */
    public InvalidSettingException(Setting.Scope ownerScope, String ownerName, Setting setting, @Nullable Object value, String reason,
            String message) {
        super(message);
        this.ownerScope = ownerScope;
        this.ownerName = ownerName;
        this.setting = setting;
        this.value = value;
        this.reason = reason;
    }

    /**
     * A value outside what a setting accepts: "Listener 'echo': portNumber is 70000, it must be ...".
     * @param ownerName the listener's or group's name
     * @param setting the setting
     * @param value the refused value
     * @param expected what the value must be, after "it must be"
     * @return the exception
     */
    public static InvalidSettingException mustBe(String ownerName, Setting setting, @Nullable Object value, String expected) {
        return mustBe(setting.scope(), ownerName, setting, value, expected);
    }

    /**
     * A value outside what a setting accepts, for an owner of the scope given: a client's setting
     * that listeners have too ("Client 'redis': idleTimeout is -PT1S, it must be ...").
     * @param owner what the owner is
     * @param ownerName its name
     * @param setting the setting
     * @param value the refused value
     * @param expected what the value must be, after "it must be"
     * @return the exception
     */
    public static InvalidSettingException mustBe(Setting.Scope owner, String ownerName, Setting setting, @Nullable Object value,
            String expected) {
        String label = switch (owner) {
            case LISTENER -> "Listener";
            case CLIENT -> "Client";
            case WORKER_GROUP -> "Worker group";
        };
        return new InvalidSettingException(owner, ownerName, setting, value, "It must be " + expected + ".",
                label + " '" + ownerName + "': " + setting.methodName() + " is " + value + ", it must be " + expected);
    }

    /** @return what the owner named by {@link #ownerName()} is: a listener, a client or a worker group */
    public Setting.Scope ownerScope() {
        return this.ownerScope;
    }

    /** @return the listener's or group's name */
    public String ownerName() {
        return this.ownerName;
    }

    /** @return the setting */
    public Setting setting() {
        return this.setting;
    }

    /** @return the refused value, {@code null} when none was set */
    public @Nullable Object value() {
        return this.value;
    }

    /** @return why it was refused */
    public String reason() {
        return this.reason;
    }
}
