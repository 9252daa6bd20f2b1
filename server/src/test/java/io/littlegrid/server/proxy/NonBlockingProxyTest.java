package io.littlegrid.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.littlegrid.server.testkit.Http;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/** Non-blocking mode: released request threads mean 4 workers serve 50 concurrent waits at once. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"littlegrid.proxy.mode=non-blocking", "server.tomcat.threads.max=4"})
@AutoConfigureObservability(tracing = false)
@DirtiesContext
class NonBlockingProxyTest {
    @LocalServerPort
    int port;

    @Test
    void fiftyConcurrentWaitsOf200MsFinishWellUnderOneSecondWithFourThreads() {
        double wallMs = ProxyLoad.wallMsOfOneRound(new Http(port), "non-blocking");
        assertThat(wallMs).isGreaterThanOrEqualTo(ProxyLoad.WAIT_MS);
        // Blocking would need ceil(50/4) × 200 ms = 2.6 s; one wave plus overhead is what non-blocking costs.
        assertThat(wallMs).isLessThan(1000);
    }
}
