package io.littlegrid.server.workload;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Calibrates /cpu once the port is open but before the application is marked ready: Spring Boot sets the
 * readiness state to ACCEPTING_TRAFFIC only after every runner has finished, so /actuator/health stays
 * OUT_OF_SERVICE (503) until then.
 */
@Component
class CalibrationRunner implements ApplicationRunner {
    private static final Logger log = LoggerFactory.getLogger(CalibrationRunner.class);
    private final CpuBurner burner;

    CalibrationRunner(CpuBurner burner) {
        this.burner = burner;
    }

    @Override
    public void run(ApplicationArguments args) {
        long start = System.nanoTime();
        CpuBurner.Calibration c = burner.calibrate();
        log.info("/cpu calibrated in {} ms: {} SHA-256 iterations per CPU ms ({} batches, settled: {}, JIT watched: {}, "
                        + "spread of the last {} rounds {}%)", (System.nanoTime() - start) / 1_000_000,
                Math.round(c.iterationsPerMs()), c.batches(), c.settled(), c.jitWatched(), CpuBurner.ROUNDS,
                Math.round(c.spread() * 1000) / 10.0);
    }
}
