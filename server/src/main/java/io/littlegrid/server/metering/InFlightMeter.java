package io.littlegrid.server.metering;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Requests inside the service, at one boundary (the outermost servlet filter), as three metrics:
 * littlegrid_in_flight_requests (gauge), littlegrid_in_flight_seconds_total (the exact integral of that
 * gauge over time, advanced at every entry and exit and at every read) and littlegrid_service_seconds
 * {endpoint} (timer). Entry and exit share their clock readings with the timer, so over any interval
 * that starts and ends with nothing in flight, the integral's increase equals the timer's sum's increase,
 * and between any two scrapes L = Δin_flight_seconds / Δt exactly, with no 1 Hz sampling error.
 */
@Component
public class InFlightMeter {
    private final LongSupplier clock;
    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    private final Object lock = new Object();
    private int inFlight;
    private long lastChangeNanos;
    private long integralNanos; // request·ns; a long overflows only after ~100 days at 1000 in flight

    @Autowired
    public InFlightMeter(MeterRegistry registry) {
        this(registry, System::nanoTime);
    }

    InFlightMeter(MeterRegistry registry, LongSupplier clock) {
        this.registry = registry;
        this.clock = clock;
        this.lastChangeNanos = clock.getAsLong();
        Gauge.builder("littlegrid.in.flight.requests", this, InFlightMeter::inFlight)
                .description("Requests inside the service: incremented on entry, decremented on exit")
                .register(registry);
        FunctionCounter.builder("littlegrid.in.flight.seconds", this, InFlightMeter::inFlightSeconds)
                .description("Integral of in-flight requests over time (request-seconds): "
                        + "its increase over a window divided by the window's length is the time-average L")
                .register(registry);
        // Registered up front so every endpoint's series exists (at 0) before its first request.
        ServicePaths.ENDPOINTS.forEach(this::timer);
        timer(ServicePaths.OTHER);
    }

    /** Marks a request's entry; returns the entry time to hand back to {@link #exit}. */
    public long enter() {
        synchronized (lock) {
            long now = clock.getAsLong();
            advance(now);
            inFlight++;
            return now;
        }
    }

    public void exit(String endpoint, long enteredNanos) {
        long now;
        synchronized (lock) {
            now = clock.getAsLong();
            advance(now);
            inFlight--;
        }
        timer(endpoint).record(now - enteredNanos, TimeUnit.NANOSECONDS);
    }

    public int inFlight() {
        synchronized (lock) {
            return inFlight;
        }
    }

    public double inFlightSeconds() {
        synchronized (lock) {
            advance(clock.getAsLong());
            return integralNanos / 1e9;
        }
    }

    private void advance(long now) {
        integralNanos += inFlight * (now - lastChangeNanos);
        lastChangeNanos = now;
    }

    private Timer timer(String endpoint) {
        return timers.computeIfAbsent(endpoint, e -> Timer.builder("littlegrid.service")
                .description("Server-side request durations, entry to exit at the in-flight boundary")
                .tag("endpoint", e)
                .register(registry));
    }
}
