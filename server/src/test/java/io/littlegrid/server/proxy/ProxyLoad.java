package io.littlegrid.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.littlegrid.server.testkit.Http;
import io.littlegrid.server.testkit.PrometheusText;
import java.util.List;

/** The proxy experiment shared by both modes: 50 concurrent /proxy?ms=200 against 4 Tomcat workers. */
final class ProxyLoad {
    static final int CLIENTS = 50;
    static final int WAIT_MS = 200;
    static final int WORKERS = 4;

    private ProxyLoad() {
    }

    /** Runs one warm-up round, then the measured one; returns its wall time in ms, all answers checked 200. */
    static double wallMsOfOneRound(Http http, String expectedMode) {
        http.concurrently(CLIENTS, "/proxy?ms=1").forEach(a -> assertThat(a.status()).isEqualTo(200));
        long start = System.nanoTime();
        List<Http.Timed> answers = http.concurrently(CLIENTS, "/proxy?ms=" + WAIT_MS);
        double wallMs = (System.nanoTime() - start) / 1e6;
        answers.forEach(a -> {
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.body()).contains("\"mode\":\"" + expectedMode + "\"");
        });
        String after = http.prometheus();
        assertThat(PrometheusText.value(after, "littlegrid_in_flight_requests")).as("in flight after load").isZero();
        return wallMs;
    }
}
