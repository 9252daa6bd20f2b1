package io.littlegrid.server.workload;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.stereotype.Component;

/** Health component "calibration": DOWN until the /cpu work unit has been timed, then UP with the figures. */
@Component("calibration")
public class CalibrationHealthIndicator implements HealthIndicator {
    private final CpuBurner burner;

    public CalibrationHealthIndicator(CpuBurner burner) {
        this.burner = burner;
    }

    @Override
    public Health health() {
        CpuBurner.Calibration c = burner.calibration();
        if (c == null) {
            return Health.down().withDetail("reason", "calibrating the /cpu work unit").build();
        }
        return Health.up()
                .withDetail("iterations_per_ms", Math.round(c.iterationsPerMs()))
                .withDetail("tracked_iterations_per_ms", Math.round(burner.trackedIterationsPerMs()))
                .withDetail("spread", Math.round(c.spread() * 1000) / 1000.0)
                .withDetail("batches", c.batches())
                .withDetail("settled", c.settled())
                .withDetail("clock", c.cpuClock() ? "thread cpu" : "wall")
                .withDetail("jit_watched", c.jitWatched())
                .build();
    }
}
