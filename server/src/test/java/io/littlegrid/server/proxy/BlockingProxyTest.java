package io.littlegrid.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.littlegrid.server.testkit.Http;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/** Blocking mode: each wait holds one of 4 workers, so 50 waits take at least ceil(50/4) waves. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"littlegrid.proxy.mode=blocking", "server.tomcat.threads.max=4"})
@AutoConfigureObservability(tracing = false)
@DirtiesContext
class BlockingProxyTest {
    @LocalServerPort
    int port;

    @Test
    void fiftyConcurrentWaitsOf200MsNeedThirteenWavesOfFourThreads() {
        double wallMs = ProxyLoad.wallMsOfOneRound(new Http(port), "blocking");
        int waves = (ProxyLoad.CLIENTS + ProxyLoad.WORKERS - 1) / ProxyLoad.WORKERS;
        // A lower bound by the law of the thread pool (no tolerance needed beyond timer granularity) ...
        assertThat(wallMs).isGreaterThanOrEqualTo(waves * ProxyLoad.WAIT_MS * 0.95);
        // ... and the backend is not the bottleneck: far less than one extra wave of overhead per wave.
        assertThat(wallMs).isLessThan(waves * ProxyLoad.WAIT_MS * 2.0);
    }
}
