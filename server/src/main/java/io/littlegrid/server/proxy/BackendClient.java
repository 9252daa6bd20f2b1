package io.littlegrid.server.proxy;

import io.littlegrid.server.LittlegridProperties;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Calls the backend of /proxy (littlegrid.proxy.backend-url with ?ms=N appended, or the built-in backend)
 * with the JDK HttpClient, either on the calling thread (blocking) or with sendAsync (non-blocking).
 */
@Component
public class BackendClient implements DisposableBean {
    public static final int MAX_MS = 60_000;
    private static final Logger log = LoggerFactory.getLogger(BackendClient.class);
    /** Beyond the requested wait, how long a backend may take before the proxy answers 502. */
    private static final Duration GRACE = Duration.ofSeconds(10);

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)          // no h2c upgrade attempt on every new connection
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final BuiltInBackend builtIn;
    private final URI backend;

    public BackendClient(LittlegridProperties properties) throws IOException {
        LittlegridProperties.Proxy knobs = properties.proxy();
        if (knobs.backendUrl().isEmpty()) {
            builtIn = new BuiltInBackend(knobs.backendPort(), MAX_MS);
            backend = builtIn.uri();
        } else {
            builtIn = null;
            backend = URI.create(knobs.backendUrl());
        }
        log.info("/proxy ({}) calls {}", knobs.mode().label(), backend);
    }

    /** What /proxy answers: the mode, the wait asked of the backend, its status and the round trip seen. */
    public record ProxyAnswer(String mode, int ms, int backendStatus, double backendMs) {
    }

    /** Thrown (or completing the future) when the backend cannot be reached or does not answer 2xx. */
    public static class BackendFailure extends RuntimeException {
        BackendFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    public URI backend() {
        return backend;
    }

    public ProxyAnswer call(int ms) throws InterruptedException {
        long start = System.nanoTime();
        try {
            HttpResponse<Void> response = client.send(request(ms), HttpResponse.BodyHandlers.discarding());
            return answer(ProxyMode.BLOCKING, ms, response, start);
        } catch (IOException e) {
            throw failure(e);
        }
    }

    public CompletableFuture<ProxyAnswer> callAsync(int ms) {
        long start = System.nanoTime();
        return client.sendAsync(request(ms), HttpResponse.BodyHandlers.discarding())
                .handle((response, error) -> {
                    if (error != null) {
                        throw failure(error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause() : error);
                    }
                    return answer(ProxyMode.NON_BLOCKING, ms, response, start);
                });
    }

    private HttpRequest request(int ms) {
        String query = backend.getRawQuery() == null ? "ms=" + ms : backend.getRawQuery() + "&ms=" + ms;
        URI uri = URI.create(backend.toString().split("\\?", 2)[0] + "?" + query);
        return HttpRequest.newBuilder(uri).timeout(Duration.ofMillis(ms).plus(GRACE)).GET().build();
    }

    private ProxyAnswer answer(ProxyMode mode, int ms, HttpResponse<Void> response, long startNanos) {
        if (response.statusCode() / 100 != 2) {
            throw new BackendFailure("backend " + backend + " answered " + response.statusCode(), null);
        }
        double roundTripMs = Math.round((System.nanoTime() - startNanos) / 1000.0) / 1000.0;
        return new ProxyAnswer(mode.label(), ms, response.statusCode(), roundTripMs);
    }

    private BackendFailure failure(Throwable cause) {
        String reason = cause.getMessage() == null ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
        return new BackendFailure("backend " + backend + " failed: " + reason, cause);
    }

    @Override
    public void destroy() {
        if (builtIn != null) {
            builtIn.close();
        }
    }
}
