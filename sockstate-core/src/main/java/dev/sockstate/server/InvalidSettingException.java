package dev.sockstate.server;

/**
 * A setting of a listener or a worker group was refused. Names what it belongs to, the
 * {@link Setting} and the value, so that a layer above can report it against its own property.
 */
public class InvalidSettingException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String ownerName;

    private final Setting setting;

    private final transient Object value;

    private final String reason;

    /**
     * @param ownerName the listener's or group's name
     * @param setting the setting
     * @param value the refused value
     * @param reason why, as a sentence
     * @param message the whole message
     */
    public InvalidSettingException(String ownerName, Setting setting, Object value, String reason, String message) {
        super(message);
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
    public static InvalidSettingException mustBe(String ownerName, Setting setting, Object value, String expected) {
        String label = (setting.scope() == Setting.Scope.LISTENER) ? "Listener" : "Worker group";
        return new InvalidSettingException(ownerName, setting, value, "It must be " + expected + ".",
                label + " '" + ownerName + "': " + setting.methodName() + " is " + value + ", it must be " + expected);
    }

    /** @return the listener's or group's name */
    public String ownerName() {
        return this.ownerName;
    }

    /** @return the setting */
    public Setting setting() {
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
