package io.littlegrid.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.littlegrid.server.testkit.Http;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * server.tomcat.threads.max takes effect: with 2 workers, a third concurrent /io?ms=500 cannot start its
 * service until a worker frees, so it answers about 500 ms after the other two (a queue of one in Tomcat).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"server.tomcat.threads.max=2", "server.tomcat.threads.min-spare=1"})
@AutoConfigureObservability(tracing = false)
@DirtiesContext
class ThreadsMaxTest {
    @LocalServerPort
    int port;

    @Test
    void aThirdConcurrentRequestWaitsOneServiceTimeLonger() {
        Http http = new Http(port);
        http.concurrently(2, "/io?ms=1"); // warm up two connections' worth of request handling
        List<Http.Timed> answers = http.concurrently(3, "/io?ms=500").stream()
                .sorted(Comparator.comparingDouble(Http.Timed::elapsedMs)).toList();
        answers.forEach(a -> assertThat(a.status()).isEqualTo(200));
        double served = answers.get(1).elapsedMs();
        double waited = answers.get(2).elapsedMs();
        assertThat(answers.get(0).elapsedMs()).isGreaterThanOrEqualTo(500);
        // Law: the third starts service when a worker frees, ≥ 500 ms after the first two started; allow for the
        // three requests' arrival spread below and for scheduling noise on a shared 2-core machine above.
        assertThat(waited - served).as("extra wait of the third request, ms").isBetween(350.0, 800.0);
        assertThat(waited).isGreaterThanOrEqualTo(900);
    }
}
