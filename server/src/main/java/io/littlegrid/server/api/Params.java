package io.littlegrid.server.api;

/** Parses query parameters strictly: a missing, malformed or out-of-range value names the parameter. */
public final class Params {
    private Params() {
    }

    /** An integer in [min, max]; "1e3", "10.5", "" and values beyond int are refused, not rounded. */
    public static int intInRange(String name, String raw, int min, int max) {
        String value = required(name, raw);
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below with the same message as an out-of-range value
        }
        throw new BadParameterException(name,
                name + " must be an integer from " + min + " to " + max + ", got '" + clip(value) + "'");
    }

    /** A finite number in (0, max]; used for distribution shapes. */
    public static double positiveAtMost(String name, String raw, double max) {
        String value = required(name, raw);
        try {
            double parsed = Double.parseDouble(value);
            if (parsed > 0 && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadParameterException(name,
                name + " must be a number greater than 0 and at most " + max + ", got '" + clip(value) + "'");
    }

    public static String required(String name, String raw) {
        if (raw == null || raw.isBlank()) {
            throw new BadParameterException(name, name + " is required");
        }
        return raw.strip();
    }

    /** Echo at most 40 characters of a bad value: enough to recognise it, not a way to reflect a whole payload. */
    static String clip(String value) {
        return value.length() <= 40 ? value : value.substring(0, 40) + "…";
    }
}
