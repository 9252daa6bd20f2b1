package io.littlegrid.server.workload;

import io.littlegrid.server.api.ErrorBody;
import io.littlegrid.server.api.Params;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The service-time endpoints: GET / (100 ms), /io (a drawn sleep), /cpu (calibrated CPU work). */
@RestController
public class WorkloadController {
    public static final long HOME_NANOS = 100_000_000L;
    public static final int MAX_IO_MS = 60_000;
    public static final int MAX_CPU_US = 10_000_000;

    private final CpuBurner burner;

    public WorkloadController(CpuBurner burner) {
        this.burner = burner;
    }

    /** The textbook Little's-law page: holds the thread 100 ms. */
    @GetMapping("/")
    public Map<String, String> home() throws InterruptedException {
        Pause.hold(HOME_NANOS);
        return Map.of("page", "home");
    }

    public record IoAnswer(String dist, int meanMs, Double sigma, double serviceMs) {
    }

    @GetMapping("/io")
    public IoAnswer io(@RequestParam(required = false) String ms, @RequestParam(required = false) String dist,
                       @RequestParam(required = false) String sigma) throws InterruptedException {
        int meanMs = Params.intInRange("ms", ms, 0, MAX_IO_MS);
        ServiceTimeDistribution distribution = ServiceTimeDistribution.parse(dist);
        Double shape = null;
        if (distribution == ServiceTimeDistribution.LOGNORMAL) {
            shape = sigma == null ? ServiceTimeDistribution.DEFAULT_SIGMA
                    : Params.positiveAtMost("sigma", sigma, ServiceTimeDistribution.MAX_SIGMA);
        }
        double serviceMs = distribution.draw(meanMs, shape == null ? 0 : shape, ThreadLocalRandom.current());
        Pause.holdMillis(serviceMs);
        return new IoAnswer(distribution.label(), meanMs, shape, Math.round(serviceMs * 1000) / 1000.0);
    }

    @GetMapping("/cpu")
    public ResponseEntity<?> cpu(@RequestParam(required = false) String us) {
        int micros = Params.intInRange("us", us, 0, MAX_CPU_US);
        if (!burner.calibrated()) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(ErrorBody.of(
                    HttpStatus.SERVICE_UNAVAILABLE, null, "still calibrating /cpu; wait for /actuator/health UP"));
        }
        return ResponseEntity.ok(burner.burn(micros));
    }
}
