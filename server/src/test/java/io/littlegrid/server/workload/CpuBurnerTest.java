package io.littlegrid.server.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Status;

class CpuBurnerTest {
    /** Calibration costs about half a second of CPU: done once for the tests that only need a calibrated burner. */
    private static final CpuBurner CALIBRATED = new CpuBurner();

    @org.junit.jupiter.api.BeforeAll
    static void calibrate() {
        CALIBRATED.calibrate();
    }

    @Test
    void healthIsDownUntilCalibratedThenUpWithTheRate() {
        CpuBurner burner = new CpuBurner();
        CalibrationHealthIndicator health = new CalibrationHealthIndicator(burner);
        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
        assertThatThrownBy(() -> burner.burn(10)).isInstanceOf(IllegalStateException.class);
        burner.calibrate();
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        assertThat(health.health().getDetails()).containsKeys("iterations_per_ms", "settled");
    }

    /**
     * The CPU clock, not the wall clock, judges a burn: other load on the machine stretches wall time but not
     * the work's CPU time. The median of five 40 ms burns must land within 35% of the request (README: typical
     * error a few per cent on a quiet machine; hyper-thread siblings and frequency changes account for the rest).
     */
    @Test
    void aBurnTakesAboutTheRequestedCpuTime() {
        CpuBurner burner = CALIBRATED;
        CpuBurner.Calibration c = burner.calibration();
        assertThat(c.iterationsPerMs()).isPositive();
        double[] ratios = new double[5];
        for (int i = 0; i < ratios.length; i++) {
            CpuBurner.Burn burn = burner.burn(40_000);
            assertThat(burn.iterations()).isEqualTo(Math.round(40_000 * c.iterationsPerMs() / 1000.0));
            assertThat(burn.wallUs()).isGreaterThanOrEqualTo(burn.cpuUs() - 1_000);
            ratios[i] = burn.cpuUs() / 40_000.0;
        }
        Arrays.sort(ratios);
        assertThat(ratios[2]).isBetween(0.65, 1.35);
    }

    @Test
    void zeroMicrosecondsDoesNoWork() {
        assertThat(CALIBRATED.burn(0).iterations()).isZero();
    }
}
