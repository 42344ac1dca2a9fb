package dev.sockstate.server;

/**
 * A setting of a listener or a worker group was refused. Names what it belongs to, the setting (in
 * the words of the configuration properties, such as {@code max-connections}) and the value, so
 * that a layer above can report it against its own property.
 */
public class InvalidSettingException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** What a setting belongs to. */
    public enum Owner {

        /** A listener's setting. */
        LISTENER,

        /** A worker group's setting. */
        WORKER_GROUP
    }

    private final Owner owner;

    private final String ownerName;

    private final String setting;

    private final transient Object value;

    private final String reason;

    /**
     * @param owner what the setting belongs to
     * @param ownerName the listener's or group's name
     * @param setting the setting
     * @param value the refused value
     * @param reason why, as a sentence
     * @param message the whole message
     */
    InvalidSettingException(Owner owner, String ownerName, String setting, Object value, String reason, String message) {
        super(message);
        this.owner = owner;
        this.ownerName = ownerName;
        this.setting = setting;
        this.value = value;
        this.reason = reason;
    }

    /** A value outside what a setting accepts: "Listener 'echo': port is 70000, it must be ...". */
    static InvalidSettingException mustBe(Owner owner, String ownerName, String setting, Object value, String expected) {
        String label = (owner == Owner.LISTENER) ? "Listener" : "Worker group";
        return new InvalidSettingException(owner, ownerName, setting, value, "It must be " + expected + ".",
                label + " '" + ownerName + "': " + setting + " is " + value + ", it must be " + expected);
    }

    /** @return what the setting belongs to */
    public Owner owner() {
        return this.owner;
    }

    /** @return the listener's or group's name */
    public String ownerName() {
        return this.ownerName;
    }

    /** @return the setting, as named in configuration */
    public String setting() {
        return this.setting;
    }

    /** @return the refused value */
    public Object value() {
        return this.value;
    }

    /** @return why it was refused */
    public String reason() {
        return this.reason;
    }
}
