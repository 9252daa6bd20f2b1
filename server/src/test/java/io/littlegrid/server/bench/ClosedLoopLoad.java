package io.littlegrid.server.bench;

import io.littlegrid.server.testkit.PrometheusText;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A closed-loop load generator for the sample server's benchmark (server/bench/bench_server.sh): N users,
 * no think time, each looping request → response for a fixed time. Counts requests that complete inside the
 * steady window (after --warmup, until --duration), and prints X, R and N/(X·R) beside the asymptotic bounds
 * X ≤ min(N, threads)/D and R ≥ max(D, N·D/threads), with the server's own view of Little's law and the CPU
 * used by the generator and the server (to say what limited a shortfall).
 *
 * <p>Usage: {@code java -cp server/target/test-classes io.littlegrid.server.bench.ClosedLoopLoad
 * --url=http://127.0.0.1:PORT/ --users=100 --threads=10 --service-ms=100 --warmup=5 --duration=25
 * [--server-pid=PID]}
 */
public final class ClosedLoopLoad {
    private final URI target;
    private final URI metrics;
    private final int users;
    private final int threads;
    private final double serviceMs;
    private final long warmupNanos;
    private final long durationNanos;
    private final long serverPid;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final LongAdder completed = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder elapsedNanos = new LongAdder();
    private final AtomicLong firstError = new AtomicLong();
    private volatile String firstErrorText;

    private ClosedLoopLoad(Map<String, String> args) {
        target = URI.create(need(args, "url"));
        metrics = target.resolve("/actuator/prometheus");
        users = Integer.parseInt(need(args, "users"));
        threads = Integer.parseInt(need(args, "threads"));
        serviceMs = Double.parseDouble(args.getOrDefault("service-ms", "100"));
        warmupNanos = Math.round(Double.parseDouble(args.getOrDefault("warmup", "5")) * 1e9);
        durationNanos = Math.round(Double.parseDouble(args.getOrDefault("duration", "25")) * 1e9);
        serverPid = Long.parseLong(args.getOrDefault("server-pid", "0"));
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (String a : argv) {
            if (!a.startsWith("--") || !a.contains("=")) {
                System.err.println("usage: ClosedLoopLoad --url=URL --users=N --threads=T [--service-ms=100] "
                        + "[--warmup=5] [--duration=25] [--server-pid=PID]; got '" + a + "'");
                System.exit(2);
            }
            args.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        new ClosedLoopLoad(args).run();
    }

    private static String need(Map<String, String> args, String name) {
        String value = args.get(name);
        if (value == null) {
            System.err.println("ClosedLoopLoad: --" + name + "= is required");
            System.exit(2);
        }
        return value;
    }

    private void run() throws Exception {
        long start = System.nanoTime();
        long windowStart = start + warmupNanos;
        long end = start + durationNanos;
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < users; i++) {
            Thread t = new Thread(() -> user(windowStart, end), "user-" + i);
            t.start();
            workers.add(t);
        }
        sleepUntil(windowStart);
        Snapshot before = snapshot();
        sleepUntil(end);
        Snapshot after = snapshot();
        for (Thread t : workers) {
            t.join(30_000);
        }
        report(before, after, (end - windowStart) / 1e9);
    }

    /** One closed user: request, wait for the whole answer, repeat; no think time. */
    private void user(long windowStart, long end) {
        HttpRequest request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30)).GET().build();
        while (System.nanoTime() < end) {
            long sent = System.nanoTime();
            boolean ok;
            try {
                HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
                ok = response.statusCode() == 200;
                if (!ok) {
                    noteError("HTTP " + response.statusCode());
                }
            } catch (IOException e) {
                ok = false;
                noteError(e.toString());
            } catch (InterruptedException e) {
                return;
            }
            long done = System.nanoTime();
            if (done >= windowStart && done < end) {   // a sample belongs to the window it completes in
                if (ok) {
                    completed.increment();
                    elapsedNanos.add(done - sent);
                } else {
                    errors.increment();
                }
            }
        }
    }

    private void noteError(String text) {
        if (firstError.getAndIncrement() == 0) {
            firstErrorText = text;
        }
    }

    /** Server counters, the generator's CPU time and the server's, at one instant. */
    private record Snapshot(long nanos, String prometheus, double generatorCpuS, double serverCpuS) {
    }

    private Snapshot snapshot() throws IOException, InterruptedException {
        String text = client.send(HttpRequest.newBuilder(metrics).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        return new Snapshot(System.nanoTime(), text, generatorCpuSeconds(), serverCpuSeconds());
    }

    private static double generatorCpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }

    /** utime + stime of the server process from /proc (Linux); NaN elsewhere or without --server-pid. */
    private double serverCpuSeconds() {
        if (serverPid <= 0) {
            return Double.NaN;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(serverPid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // fields[11], fields[12] are utime and stime (fields 14 and 15 of proc(5)), in clock ticks
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private void report(Snapshot before, Snapshot after, double windowS) {
        long n = completed.sum();
        double x = n / windowS;
        double rS = n == 0 ? Double.NaN : elapsedNanos.sum() / 1e9 / n;
        double d = serviceMs / 1000.0;
        double xBound = Math.min(users, threads) / d;
        double rBound = Math.max(d, users * d / threads);
        double scrapeS = (after.nanos() - before.nanos()) / 1e9;
        String endpoint = "{endpoint=\"" + (target.getPath().isEmpty() ? "/" : target.getPath()) + "\"}";
        double count = delta(before, after, "littlegrid_service_seconds_count" + endpoint);
        double sum = delta(before, after, "littlegrid_service_seconds_sum" + endpoint);
        double lServer = delta(before, after, "littlegrid_in_flight_seconds_total") / scrapeS;
        double xServer = count / scrapeS;
        double rServer = sum / count;
        double genCores = (after.generatorCpuS() - before.generatorCpuS()) / scrapeS;
        double srvCores = (after.serverCpuS() - before.serverCpuS()) / scrapeS;

        System.out.printf(Locale.ROOT, "%nGET %s  users N=%d  threads.max=%d  D=%.0f ms  Z=0  steady window %.1f s "
                        + "(first %.1f s trimmed)  completed %d  errors %d%s%n", target.getPath(), users, threads,
                serviceMs, windowS, warmupNanos / 1e9, n, errors.sum(),
                firstErrorText == null ? "" : " (first: " + firstErrorText + ")");
        System.out.printf(Locale.ROOT, "%-36s | %14s | %-32s | %6s%n", "figure", "measured", "reference (bound)", "ratio");
        System.out.println("-".repeat(36) + "-+-" + "-".repeat(14) + "-+-" + "-".repeat(32) + "-+-" + "-".repeat(6));
        row("throughput X (req/s)", x, xBound, "min(N,threads)/D");
        row("mean response time R (ms)", rS * 1000, rBound * 1000, "max(D, N·D/threads)");
        row("closed law N/(X·R)", users / (x * rS), 1.0, "N = X·(R+Z), Z=0");
        row("server: L = Δ∫in-flight dt / Δt", lServer, xServer * rServer, "X_server·R_server");
        // The server's boundary is inside Tomcat's queue: its R is the service time D, not the client's R.
        row("server: R_server (ms)", rServer * 1000, serviceMs, "D");
        System.out.printf(Locale.ROOT, "CPU used (cores of %d): generator %.2f, server %.2f; load1 %s%n",
                Runtime.getRuntime().availableProcessors(), genCores, srvCores, loadAverage());
    }

    private static void row(String figure, double measured, double reference, String how) {
        System.out.printf(Locale.ROOT, "%-36s | %14.3f | %10.3f = %-19s | %6.3f%n", figure, measured, reference, how,
                measured / reference);
    }

    private static double delta(Snapshot before, Snapshot after, String series) {
        return PrometheusText.value(after.prometheus(), series) - PrometheusText.value(before.prometheus(), series);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "n/a";
        }
    }

    private static void sleepUntil(long deadline) throws InterruptedException {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }
}
