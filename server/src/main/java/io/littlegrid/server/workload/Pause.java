package io.littlegrid.server.workload;

import java.util.concurrent.TimeUnit;

/** Holds the calling thread for a service time, to the deadline (sleep may wake early; we sleep again). */
public final class Pause {
    private Pause() {
    }

    public static void hold(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    public static void holdMillis(double millis) throws InterruptedException {
        hold(Math.round(millis * 1_000_000.0));
    }
}
