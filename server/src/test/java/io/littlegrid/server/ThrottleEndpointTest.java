package io.littlegrid.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.littlegrid.server.testkit.Http;
import io.littlegrid.server.testkit.PrometheusText;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * littlegrid.throttle: with K = 2 and 2 queue places, 6 concurrent /io?ms=1000 (arriving well within one
 * service time) split exactly into 2 served at once, 2 served after queueing one service time, 2 refused at
 * once with a JSON 503; the gauges show the queue while it exists and return to 0.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"littlegrid.throttle.max-concurrent=2", "littlegrid.throttle.queue=2"})
@AutoConfigureObservability(tracing = false)
@DirtiesContext
class ThrottleEndpointTest {
    private static final double SERVICE_MS = 1000;

    @LocalServerPort
    int port;

    @Test
    void admitsExactlyKQueuesTheNextAndRefusesTheRest() throws Exception {
        Http http = new Http(port);
        http.get("/io?ms=1");
        CompletableFuture<List<Http.Timed>> load = CompletableFuture.supplyAsync(() -> http.concurrently(6, "/io?ms=1000"));

        // While the first two are in service: 2 admitted, 2 queued, 4 in flight (the refused ones have left).
        String during = awaitInFlight(http, 4);
        assertThat(PrometheusText.value(during, "littlegrid_throttle_admitted")).isEqualTo(2);
        assertThat(PrometheusText.value(during, "littlegrid_throttle_queue_length")).isEqualTo(2);

        List<Http.Timed> answers = load.get().stream().sorted(Comparator.comparingDouble(Http.Timed::elapsedMs)).toList();
        List<Http.Timed> refused = answers.stream().filter(a -> a.status() == 503).toList();
        List<Http.Timed> served = answers.stream().filter(a -> a.status() == 200).toList();
        assertThat(refused).hasSize(2);
        assertThat(served).hasSize(4);
        for (Http.Timed r : refused) {
            assertThat(r.elapsedMs()).as("refused at once").isLessThan(SERVICE_MS / 2);
            assertThat(new ObjectMapper().readTree(r.body()).get("message").asText()).contains("throttle full");
        }
        assertThat(served.get(1).elapsedMs()).isBetween(SERVICE_MS, 1.6 * SERVICE_MS);
        // Queued requests start when a place is handed over: one service time after the first two, less the
        // arrival spread.
        assertThat(served.get(2).elapsedMs()).isGreaterThanOrEqualTo(1.8 * SERVICE_MS);
        assertThat(served.get(3).elapsedMs()).isLessThan(3 * SERVICE_MS);

        String after = http.prometheus();
        assertThat(PrometheusText.value(after, "littlegrid_in_flight_requests")).isZero();
        assertThat(PrometheusText.value(after, "littlegrid_throttle_queue_length")).isZero();
        assertThat(PrometheusText.value(after, "littlegrid_throttle_admitted")).isZero();
        assertThat(PrometheusText.value(after, "littlegrid_throttle_rejected_total")).isEqualTo(2);
    }

    /** Scrapes until in-flight reaches the expected value (the requests are still arriving), within 0.8 s. */
    private static String awaitInFlight(Http http, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + 800_000_000L;
        String text = http.prometheus();
        while (PrometheusText.value(text, "littlegrid_in_flight_requests") != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
            text = http.prometheus();
        }
        assertThat(PrometheusText.value(text, "littlegrid_in_flight_requests")).isEqualTo(expected);
        return text;
    }
}
