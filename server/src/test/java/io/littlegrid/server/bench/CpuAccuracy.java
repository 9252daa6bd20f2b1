package io.littlegrid.server.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measures how closely GET /cpu?us=N burns N µs: for each N, sequential requests (one core busy at a time),
 * the ratio of the CPU time the server's request thread really used (cpu_us, its thread CPU clock) to N.
 * First WARMUP_REQUESTS burns of 10 ms, so that every Tomcat worker has run once (a worker's first burn costs
 * up to a millisecond more, which would swamp the 100 µs figure) and the rate in use has tracked the work's
 * speed since start-up: what a load test's trimmed warm-up gives it.
 * Usage: {@code java -cp server/target/test-classes io.littlegrid.server.bench.CpuAccuracy http://127.0.0.1:PORT [repeats]}
 */
public final class CpuAccuracy {
    private static final Pattern CPU_US = Pattern.compile("\"cpu_us\":(\\d+)");
    private static final Pattern WALL_US = Pattern.compile("\"wall_us\":(\\d+)");
    private static final long[] REQUESTS_US = {100, 1_000, 10_000, 100_000};
    private static final int WARMUP_REQUESTS = 60;

    public static void main(String[] args) throws Exception {
        String base = args[0];
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (int i = 0; i < WARMUP_REQUESTS; i++) {
            client.send(HttpRequest.newBuilder(URI.create(base + "/cpu?us=10000")).build(), HttpResponse.BodyHandlers.discarding());
        }
        System.out.printf(Locale.ROOT, "%nGET /cpu?us=N, %d sequential requests each after %d warm-up requests of 10 ms; ratio = thread CPU time used / N%n",
                repeats, WARMUP_REQUESTS);
        System.out.printf(Locale.ROOT, "%-10s | %12s | %8s | %8s | %8s | %14s%n", "N (µs)", "median cpu_us", "p10", "median", "p90",
                "median wall/cpu");
        System.out.println("-".repeat(11) + "+" + "-".repeat(14) + "+" + "-".repeat(10) + "+" + "-".repeat(10) + "+"
                + "-".repeat(10) + "+" + "-".repeat(15));
        for (long us : REQUESTS_US) {
            double[] ratios = new double[repeats];
            double[] cpu = new double[repeats];
            double[] stretch = new double[repeats];
            for (int i = 0; i < repeats; i++) {
                String body = client.send(HttpRequest.newBuilder(URI.create(base + "/cpu?us=" + us)).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                cpu[i] = field(CPU_US, body);
                ratios[i] = cpu[i] / us;
                stretch[i] = field(WALL_US, body) / Math.max(1, cpu[i]);
            }
            Arrays.sort(ratios);
            Arrays.sort(cpu);
            Arrays.sort(stretch);
            System.out.printf(Locale.ROOT, "%-10d | %12.0f | %8.3f | %8.3f | %8.3f | %14.2f%n", us, cpu[repeats / 2],
                    ratios[repeats / 10], ratios[repeats / 2], ratios[repeats - 1 - repeats / 10], stretch[repeats / 2]);
        }
    }

    private static double field(Pattern pattern, String body) {
        Matcher m = pattern.matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in " + body);
        }
        return Double.parseDouble(m.group(1));
    }
}
