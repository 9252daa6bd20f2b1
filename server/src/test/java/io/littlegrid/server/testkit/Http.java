package io.littlegrid.server.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A test client against the server's real port: timed requests, and N requests fired at once. */
public final class Http {
    /** One answer and how long it took from just before sending to the whole body received. */
    public record Timed(int status, String body, String contentType, double elapsedMs) {
    }

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    public Timed get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    public Timed post(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    public Timed send(HttpRequest.Builder request) {
        try {
            return async(request).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw new UncheckedIOException(new IOException(e.getCause()));
        }
    }

    /** Fires {@code n} GETs without waiting between them (sendAsync), then waits for all; answers in send order. */
    public List<Timed> concurrently(int n, String path) {
        List<CompletableFuture<Timed>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(async(HttpRequest.newBuilder(URI.create(base + path)).GET()));
        }
        return futures.stream().map(CompletableFuture::join).toList();
    }

    public String prometheus() {
        return get("/actuator/prometheus").body();
    }

    private CompletableFuture<Timed> async(HttpRequest.Builder request) {
        long start = System.nanoTime();
        return client.sendAsync(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(r -> new Timed(r.statusCode(), r.body(),
                        r.headers().firstValue("Content-Type").orElse(""), (System.nanoTime() - start) / 1e6));
    }
}
