package io.littlegrid.server.testkit;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads one sample's value from Prometheus text exposition (enough for tests and the benchmark). */
public final class PrometheusText {
    private PrometheusText() {
    }

    /**
     * The value of the first sample named {@code series} exactly, e.g. {@code littlegrid_in_flight_requests}
     * or {@code littlegrid_service_seconds_count{endpoint="/"}} (labels as exposed, or none given to take the
     * first labelled sample); NaN when absent.
     */
    public static double value(String text, String series) {
        String name = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
        String labels = series.contains("{") ? series.substring(series.indexOf('{')) : null;
        Pattern line = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*})?\\s+(\\S+)", Pattern.MULTILINE);
        Matcher m = line.matcher(text);
        while (m.find()) {
            if (labels == null || labels.equals(m.group(1))) {
                return Double.parseDouble(m.group(2));
            }
        }
        return Double.NaN;
    }

    /** Whether the text exposes a sample of this metric name (any labels). */
    public static boolean has(String text, String name) {
        return !Double.isNaN(value(text, name));
    }
}
