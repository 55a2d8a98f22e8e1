package io.pgward.wire.audit;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * A log line's message with every control character escaped ({@code %emsg} in logback.xml). Messages carry what
 * clients sent (a login name from a startup packet, a database name, a statement): a newline or an escape
 * sequence in one must not start a forged line of pgward's log or repaint the operator's terminal. One event is
 * one line; a backslash is doubled so that an escape in the log can be told from the same characters sent.
 */
public final class EscapedMessage extends ClassicConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return escape(event.getFormattedMessage());
    }

    static String escape(String message) {
        if (message == null) {
            return "null";
        }
        int i = 0;
        while (i < message.length() && !needsEscape(message.charAt(i))) {
            i++;
        }
        if (i == message.length()) {
            return message;
        }
        StringBuilder out = new StringBuilder(message.length() + 16).append(message, 0, i);
        for (; i < message.length(); i++) {
            char c = message.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (needsEscape(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /**
     * C0 and C1 controls, DEL, and the characters that break or reorder a line on a terminal (line and paragraph
     * separators, bidirectional overrides and isolates).
     */
    private static boolean needsEscape(char c) {
        return c < 0x20 || c == '\\' || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029
                || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    }
}
