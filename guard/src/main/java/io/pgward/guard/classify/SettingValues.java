package io.pgward.guard.classify;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;

/** Reads setting values the way PostgreSQL's GUC code does, for the few settings whose value the guard checks. */
final class SettingValues {

    /** Units of time settings and their size in milliseconds; PostgreSQL matches them case-sensitively. */
    private static final Map<String, BigDecimal> TIME_UNITS = Map.of(
            "us", new BigDecimal("0.001"),
            "ms", BigDecimal.ONE,
            "s", BigDecimal.valueOf(1_000),
            "min", BigDecimal.valueOf(60_000),
            "h", BigDecimal.valueOf(3_600_000),
            "d", BigDecimal.valueOf(86_400_000));

    private static final java.util.regex.Pattern TIME_VALUE =
            java.util.regex.Pattern.compile("\\s*(\\d+(?:\\.\\d*)?|\\.\\d+)\\s*([a-z]*)\\s*");

    private SettingValues() {
    }

    /**
     * PostgreSQL's {@code parse_bool}: any prefix of true / false / yes / no, "on", "off" (at least "of"), 1 or 0,
     * case-insensitive. Null when the text is not a boolean.
     */
    static Boolean parseBool(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (v.isEmpty()) {
            return null;
        }
        if ("true".startsWith(v) || "yes".startsWith(v) || v.equals("on") || v.equals("1")) {
            return Boolean.TRUE;
        }
        if ("false".startsWith(v) || "no".startsWith(v) || (v.length() >= 2 && "off".startsWith(v))
                || v.equals("0")) {
            return Boolean.FALSE;
        }
        return null;
    }

    /**
     * A time setting in whole milliseconds as PostgreSQL stores it: a bare number is milliseconds, a unit may
     * follow (us, ms, s, min, h, d), and a fraction is rounded to the nearest millisecond, halves to even as
     * {@code rint()} does, so {@code '0.4ms'} is 0 (no limit). Null when PostgreSQL would not read the text the same
     * way or at all (signs, hexadecimal, exponents, unknown units): the caller refuses those.
     */
    static Long parseMilliseconds(String value) {
        Matcher m = TIME_VALUE.matcher(value);
        if (!m.matches()) {
            return null;
        }
        BigDecimal unit = m.group(2).isEmpty() ? BigDecimal.ONE : TIME_UNITS.get(m.group(2));
        if (unit == null) {
            return null;
        }
        BigDecimal ms = new BigDecimal(m.group(1)).multiply(unit).setScale(0, RoundingMode.HALF_EVEN);
        return ms.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0 ? Long.valueOf(Long.MAX_VALUE)
                : Long.valueOf(ms.longValueExact());
    }

    /**
     * An encoding name normalised the way PostgreSQL compares them: lower case, only letters and digits
     * ({@code 'UTF-8'} and {@code utf8} are the same).
     */
    static String encodingKey(String value) {
        StringBuilder key = new StringBuilder();
        for (char c : value.toLowerCase(Locale.ROOT).toCharArray()) {
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                key.append(c);
            }
        }
        return key.toString();
    }

    /** A duration for a message: whole seconds as {@code 30s}, otherwise milliseconds. */
    static String describeMilliseconds(long ms) {
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
    }
}
