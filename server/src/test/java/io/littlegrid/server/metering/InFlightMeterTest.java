package io.littlegrid.server.metering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InFlightMeterTest {
    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final InFlightMeter meter = new InFlightMeter(registry, clock::get);

    private void at(double seconds) {
        clock.set(1_000 * SECOND + Math.round(seconds * SECOND));
    }

    @Test
    void integralIsTheExactAreaUnderTheInFlightStep() {
        // in flight: 1 on [0,1), 2 on [1,3), 1 on [3,4), 0 after: area = 1 + 4 + 1 = 6 request-seconds
        at(0);
        long a = meter.enter();
        at(1);
        long b = meter.enter();
        assertThat(meter.inFlight()).isEqualTo(2);
        at(3);
        meter.exit("/io", a);
        at(4);
        meter.exit("/io", b);
        at(10);
        assertThat(meter.inFlightSeconds()).isCloseTo(6.0, within(1e-9));
        assertThat(meter.inFlight()).isZero();
    }

    @Test
    void integralAdvancesBetweenChangesWhenRead() {
        at(0);
        meter.enter();
        meter.enter();
        at(2.5);
        // nothing entered or left since t=0: a scrape still sees the 2 × 2.5 s accrued so far
        assertThat(meter.inFlightSeconds()).isCloseTo(5.0, within(1e-9));
        assertThat(registry.get("littlegrid.in.flight.seconds").functionCounter().count()).isCloseTo(5.0, within(1e-9));
    }

    @Test
    void timerSumEqualsIntegralWhenWindowStartsAndEndsEmpty() {
        at(0);
        long a = meter.enter();
        at(0.25);
        long b = meter.enter();
        at(0.5);
        meter.exit("/", a);
        long c = meter.enter();
        at(2);
        meter.exit("/cpu", c);
        meter.exit("/", b);
        double sum = registry.find("littlegrid.service").timers().stream()
                .mapToDouble(t -> t.totalTime(TimeUnit.SECONDS)).sum();
        // Little's law over a window that starts and ends empty holds exactly: Σ durations = ∫ L dt
        assertThat(sum).isCloseTo(0.5 + 1.75 + 1.5, within(1e-9));
        assertThat(meter.inFlightSeconds()).isCloseTo(sum, within(1e-9));
        assertThat(registry.get("littlegrid.service").tag("endpoint", "/").timer().count()).isEqualTo(2);
        assertThat(registry.get("littlegrid.in.flight.requests").gauge().value()).isZero();
    }

    @Test
    void everyEndpointSeriesExistsBeforeItsFirstRequest() {
        for (String endpoint : ServicePaths.ENDPOINTS) {
            assertThat(registry.get("littlegrid.service").tag("endpoint", endpoint).timer().count()).isZero();
        }
        assertThat(registry.get("littlegrid.service").tag("endpoint", "other").timer().count()).isZero();
    }
}
