package io.littlegrid.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.littlegrid.server.LittlegridProperties;
import java.net.ServerSocket;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class BackendClientTest {

    private static LittlegridProperties proxy(ProxyMode mode, String url) {
        return new LittlegridProperties(new LittlegridProperties.Throttle(0, 0),
                new LittlegridProperties.Proxy(mode, url, 0));
    }

    @Test
    void theBuiltInBackendAnswersAfterTheWait() throws Exception {
        BackendClient client = new BackendClient(proxy(ProxyMode.BLOCKING, ""));
        try {
            BackendClient.ProxyAnswer answer = client.call(80);
            assertThat(answer.backendStatus()).isEqualTo(200);
            assertThat(answer.backendMs()).isGreaterThanOrEqualTo(79);
            assertThat(client.callAsync(30).join().mode()).isEqualTo("non-blocking");
        } finally {
            client.destroy();
        }
    }

    /** Nagle's algorithm with a delayed ACK would add ~40 ms to every answer; a zero wait must cost ~1–2 ms. */
    @Test
    void aZeroWaitCostsMillisecondsNotADelayedAck() throws Exception {
        BackendClient client = new BackendClient(proxy(ProxyMode.BLOCKING, ""));
        try {
            for (int i = 0; i < 20; i++) {
                client.call(0);
            }
            double totalMs = 0;
            for (int i = 0; i < 20; i++) {
                totalMs += client.call(0).backendMs();
            }
            assertThat(totalMs / 20).isLessThan(20);
        } finally {
            client.destroy();
        }
    }

    @Test
    void anUnreachableBackendIsABackendFailureInBothModes() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        BackendClient client = new BackendClient(proxy(ProxyMode.BLOCKING, "http://127.0.0.1:" + closedPort + "/x"));
        assertThatThrownBy(() -> client.call(10)).isInstanceOf(BackendClient.BackendFailure.class)
                .hasMessageContaining("127.0.0.1:" + closedPort);
        assertThatThrownBy(() -> client.callAsync(10).join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(BackendClient.BackendFailure.class);
        client.destroy();
    }

    @Test
    void theBackendRefusesABadWait() {
        assertThat(BuiltInBackend.parseMs("ms=25", 100)).isEqualTo(25);
        assertThat(BuiltInBackend.parseMs("x=1&ms=7", 100)).isEqualTo(7);
        assertThat(BuiltInBackend.parseMs("ms=101", 100)).isEqualTo(-1);
        assertThat(BuiltInBackend.parseMs("ms=abc", 100)).isEqualTo(-1);
        assertThat(BuiltInBackend.parseMs(null, 100)).isEqualTo(-1);
    }
}
