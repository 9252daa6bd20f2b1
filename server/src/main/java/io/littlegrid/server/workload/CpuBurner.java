package io.littlegrid.server.workload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import org.springframework.stereotype.Component;

/**
 * Burns a requested amount of one core's CPU time with real work: chained SHA-256 over a 64-byte block.
 * Calibrated once at start-up against the calling thread's CPU clock (not the wall clock), so other load on
 * the machine while calibrating slows the wall clock but not the rate we measure. Every burn then measures
 * its own rate on the same clock and corrects the rate in use, weighted by its CPU time: at start-up the
 * JIT's compiler threads and a hyper-thread sibling can make the calibrated rate 10-20 % off the speed
 * requests later see (measured), and this tracks the speed the work really has now.
 */
@Component
public class CpuBurner {
    static final int ROUNDS = 5;
    static final long WARMUP_CPU_NANOS = 300_000_000L;
    static final long ROUND_CPU_NANOS = 20_000_000L;
    /**
     * Two successive batches whose medians agree this closely end the calibration, provided the hot loop ran
     * at the JIT's top tier and no compilation finished anywhere in the JVM during either. Agreement alone
     * is not enough: until C2 has compiled the loop its slower code agrees with itself just as well (see
     * {@link JitState}; with two busy loops on the two cores a start-up once settled at 1,117 iterations per
     * CPU ms against 8,633 once compiled, and a 30 ms request burned 6.4 ms).
     */
    static final double SETTLED = 0.03;
    /** Bounds calibration on a host where the JIT never goes quiet: ~100 ms of CPU per batch. */
    static final int MAX_BATCHES = 60;
    static final long MAX_WALL_NANOS = 30_000_000_000L;
    /**
     * Tracking: a burn's own rate, clamped to ±TRACK_CLAMP of the rate in use (a cold worker's first burn can
     * be 10× slow), moves the rate in use by a weight of its CPU ms / TRACK_CPU_MS_PER_UNIT_WEIGHT, at most
     * TRACK_MAX_WEIGHT: a 100 µs burn moves it by 0.2 % of the gap, a 10 ms burn by 20 %.
     */
    static final double TRACK_CLAMP = 0.25;
    static final double TRACK_CPU_MS_PER_UNIT_WEIGHT = 50.0;
    static final double TRACK_MAX_WEIGHT = 0.2;

    /** The loop every burn runs, as the JIT's code list names it. */
    static final String HOT_LOOP = CpuBurner.class.getName() + ".spin";
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(CpuBurner::sha256);

    /**
     * What start-up measured: hash iterations per CPU millisecond (median of the last batch of rounds), the
     * spread (max - min) / median of that batch, how many batches it took, and whether two batches agreed
     * within {@link #SETTLED} with the JIT quiet (false: the JIT or the machine never settled within
     * MAX_BATCHES or MAX_WALL_NANOS); {@code jitWatched} says whether the JVM told what its JIT did (else
     * agreement alone settles it).
     */
    public record Calibration(double iterationsPerMs, double spread, int batches, boolean settled, boolean cpuClock,
                              boolean jitWatched) {
    }

    /** One burn: what was asked, what was done and what the thread's CPU clock saw. */
    public record Burn(long us, long iterations, long cpuUs, long wallUs, String digest) {
    }

    private volatile Calibration calibration;
    /** Iterations per CPU ms in use now: the calibration, then corrected by every burn (lost updates harmless). */
    private volatile double trackedPerMs;

    public boolean calibrated() {
        return calibration != null;
    }

    public Calibration calibration() {
        return calibration;
    }

    /** The rate burns use now (iterations per CPU ms): the calibration corrected by the burns since. */
    public double trackedIterationsPerMs() {
        return trackedPerMs;
    }

    /** Tests: start tracking from a deliberately wrong rate. */
    void trackFrom(double iterationsPerMs) {
        trackedPerMs = iterationsPerMs;
    }

    /**
     * Warms the JIT up for WARMUP_CPU_NANOS of this thread's CPU time (not wall time: on a loaded machine a
     * wall-clock warm-up can end before the compiler threads got to C2, and the rate measured then is the
     * interpreter's), then times batches of ROUNDS fixed-work rounds until two batch medians agree, the loop
     * compiled at the top tier and the JIT quiet (see {@link #SETTLED}). Idempotent.
     */
    public synchronized Calibration calibrate() {
        return calibrate(JitState.hotSpot());
    }

    /** Calibration watching {@code jit}: tests give it a JIT that stays busy for a while. */
    synchronized Calibration calibrate(JitState jit) {
        if (calibration != null) {
            return calibration;
        }
        byte[] block = new byte[64];
        MessageDigest md = SHA256.get();
        long wallStart = System.nanoTime();
        long iterations = 0;
        long cpuStart = cpuNanos();
        while (cpuNanos() - cpuStart < WARMUP_CPU_NANOS) {
            spin(1_000, block, md);
            iterations += 1_000;
        }
        double perMs = iterations / ((cpuNanos() - cpuStart) / 1e6);
        double previous = Double.NaN;
        boolean previousJitDone = false;
        double[] rates = new double[ROUNDS];
        int batch = 0;
        boolean settled = false;
        while (!settled && batch < MAX_BATCHES && System.nanoTime() - wallStart < MAX_WALL_NANOS) {
            batch++;
            long perRound = Math.max(1_000, Math.round(perMs * ROUND_CPU_NANOS / 1e6));
            long jitBefore = jit.compilationMs();
            for (int i = 0; i < ROUNDS; i++) {
                long start = cpuNanos();
                spin(perRound, block, md);
                rates[i] = perRound / (Math.max(1, cpuNanos() - start) / 1e6);
            }
            boolean jitDone = jit.compilationMs() == jitBefore && jit.atTopTier(HOT_LOOP);
            Arrays.sort(rates);
            perMs = rates[ROUNDS / 2];
            settled = jitDone && previousJitDone && Math.abs(perMs - previous) <= SETTLED * perMs;
            previous = perMs;
            previousJitDone = jitDone;
        }
        trackedPerMs = perMs;
        calibration = new Calibration(perMs, (rates[ROUNDS - 1] - rates[0]) / perMs, batch, settled,
                THREADS.isCurrentThreadCpuTimeSupported(), jit.watched());
        return calibration;
    }

    /** Burns about {@code us} µs of CPU on the calling thread; the answer reports the CPU time it really took. */
    public Burn burn(long us) {
        if (calibration == null) {
            throw new IllegalStateException("CPU burner not calibrated yet");
        }
        double rate = trackedPerMs;
        long iterations = Math.round(us * rate / 1000.0);
        byte[] block = new byte[64];
        MessageDigest md = SHA256.get(); // a worker's first call creates it: not part of the work asked for
        long wall = System.nanoTime();
        long cpu = cpuNanos();
        spin(iterations, block, md);
        long cpuUsedNanos = cpuNanos() - cpu;
        long wallUs = (System.nanoTime() - wall) / 1000;
        long cpuUs = cpuUsedNanos / 1000;
        if (iterations > 0 && cpuUsedNanos > 0 && THREADS.isCurrentThreadCpuTimeSupported()) {
            double cpuMs = cpuUsedNanos / 1e6;
            double observed = Math.max(rate * (1 - TRACK_CLAMP), Math.min(rate * (1 + TRACK_CLAMP), iterations / cpuMs));
            double weight = Math.min(TRACK_MAX_WEIGHT, cpuMs / TRACK_CPU_MS_PER_UNIT_WEIGHT);
            trackedPerMs = rate + weight * (observed - rate);
        }
        // The digest goes into the answer so the JIT cannot discard the work.
        return new Burn(us, iterations, cpuUs, wallUs, HexFormat.of().formatHex(block, 0, 8));
    }

    /** Each digest overwrites the first half of the block, so every iteration depends on the previous one. */
    private static void spin(long iterations, byte[] block, MessageDigest md) {
        try {
            for (long i = 0; i < iterations; i++) {
                md.update(block);
                md.digest(block, 0, 32);
            }
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    /** This thread's CPU time; the wall clock where the JVM cannot read it (then contention skews calibration). */
    private static long cpuNanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }
}
