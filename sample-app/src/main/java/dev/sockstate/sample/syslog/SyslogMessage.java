package dev.sockstate.sample.syslog;

import java.nio.charset.StandardCharsets;

/**
 * One syslog message, its header read as far as counting and showing it needs: the priority
 * (facility and severity) and, for RFC 5424 or RFC 3164, the timestamp, host, application and text.
 *
 * @param facility the facility's name (kern, user, daemon, local0..local7...)
 * @param severity the severity's name (emerg, alert, crit, err, warning, notice, info, debug)
 * @param format {@code RFC5424} or {@code RFC3164}
 * @param timestamp as the sender wrote it, or {@code -}
 * @param host the sender's host name, or {@code -}
 * @param app the application (RFC 5424 APP-NAME, RFC 3164 TAG), or {@code -}
 * @param text the message itself
 */
public record SyslogMessage(String facility, String severity, String format, String timestamp, String host, String app,
        String text) {

    private static final String[] FACILITIES = { "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp",
        "cron", "authpriv", "ftp", "ntp", "security", "console", "solaris-cron", "local0", "local1", "local2", "local3", "local4",
        "local5", "local6", "local7" };

    private static final String[] SEVERITIES = { "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug" };

    /**
     * @param bytes one message, framing removed
     * @return the message
     * @throws IllegalArgumentException when it does not start with a priority, {@code <0>} to {@code <191>}
     */
    public static SyslogMessage parse(byte[] bytes) {
        String message = new String(bytes, StandardCharsets.UTF_8);
        int close = message.indexOf('>');
        if (!message.startsWith("<") || close < 2 || close > 4) {
            throw new IllegalArgumentException("a syslog message starts with a priority such as <13>, not "
                    + quote(message.substring(0, Math.min(message.length(), 8))));
        }
        int priority;
        try {
            priority = Integer.parseInt(message.substring(1, close));
        }
        catch (NumberFormatException ex) {
            priority = -1;
        }
        if (priority < 0 || priority > 191) {
            throw new IllegalArgumentException("a syslog priority is 0 to 191, not " + quote(message.substring(0, close + 1)));
        }
        String facility = FACILITIES[priority / 8];
        String severity = SEVERITIES[priority % 8];
        String rest = message.substring(close + 1);
        if (rest.startsWith("1 ")) {
            return rfc5424(facility, severity, rest.substring(2));
        }
        return rfc3164(facility, severity, rest);
    }

    /** {@code TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [MSG]} */
    private static SyslogMessage rfc5424(String facility, String severity, String header) {
        String[] fields = header.split(" ", 6);
        if (fields.length < 6) {
            return new SyslogMessage(facility, severity, "RFC5424", field(fields, 0), field(fields, 1), field(fields, 2), "");
        }
        String data = fields[5];
        int end = structuredDataEnd(data);
        String text = (end < data.length()) ? data.substring(Math.min(data.length(), end + 1)) : "";
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        return new SyslogMessage(facility, severity, "RFC5424", fields[0], fields[1], fields[2], text);
    }

    /** @return the index just after the structured data ({@code -} or {@code [id k="v"]...}) at the start */
    private static int structuredDataEnd(String data) {
        if (data.startsWith("-")) {
            return 1;
        }
        int i = 0;
        while (i < data.length() && data.charAt(i) == '[') {
            boolean quoted = false;
            for (i++; i < data.length(); i++) {
                char c = data.charAt(i);
                if (c == '\\') {
                    i++;
                }
                else if (c == '"') {
                    quoted = !quoted;
                }
                else if (c == ']' && !quoted) {
                    i++;
                    break;
                }
            }
        }
        return i;
    }

    /** {@code Mmm dd hh:mm:ss HOSTNAME TAG: MSG}, or anything after the priority when it is not that. */
    private static SyslogMessage rfc3164(String facility, String severity, String rest) {
        if (rest.length() > 16 && rest.charAt(3) == ' ' && rest.charAt(6) == ' ' && rest.charAt(9) == ':' && rest.charAt(15) == ' ') {
            String timestamp = rest.substring(0, 15);
            String[] hostAndRest = rest.substring(16).split(" ", 2);
            String host = hostAndRest[0];
            String tagged = (hostAndRest.length > 1) ? hostAndRest[1] : "";
            int colon = tagged.indexOf(": ");
            String tag = (colon > 0) ? tagged.substring(0, colon) : "-";
            int pid = tag.indexOf('[');
            String app = (pid > 0) ? tag.substring(0, pid) : tag;
            return new SyslogMessage(facility, severity, "RFC3164", timestamp, host, app, (colon > 0) ? tagged.substring(colon + 2) : tagged);
        }
        return new SyslogMessage(facility, severity, "RFC3164", "-", "-", "-", rest);
    }

    private static String field(String[] fields, int index) {
        return (index < fields.length) ? fields[index] : "-";
    }

    private static String quote(String text) {
        return "\"" + text.replaceAll("\\p{Cntrl}", "?") + "\"";
    }
}
