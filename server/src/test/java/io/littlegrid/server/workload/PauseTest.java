package io.littlegrid.server.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PauseTest {
    @Test
    void neverReturnsBeforeTheDeadlineWhateverTheRemainder() throws InterruptedException {
        // sub-millisecond remainders are the case Thread.sleep rounded up; none may come back early
        for (double ms : new double[] {0.05, 0.3, 0.999, 1.5, 7.25, 20.0}) {
            long start = System.nanoTime();
            Pause.holdMillis(ms);
            assertThat(System.nanoTime() - start).as("hold %s ms", ms).isGreaterThanOrEqualTo(Math.round(ms * 1e6));
        }
    }

    @Test
    void zeroAndNegativeHoldsReturnAtOnce() throws InterruptedException {
        Pause.hold(0);
        Pause.hold(-5);
    }

    @Test
    void anInterruptEndsTheHoldWithInterruptedException() {
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> Pause.holdMillis(10_000)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is consumed, as sleep does").isFalse();
    }
}
