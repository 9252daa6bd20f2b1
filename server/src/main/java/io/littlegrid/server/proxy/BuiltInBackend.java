package io.littlegrid.server.proxy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The default backend of /proxy: GET /wait?ms=N answers {"waited_ms":N} after N ms, on its own loopback port,
 * holding no thread while it waits (a scheduler completes the exchange). It is deliberately not a Tomcat
 * endpoint: a blocking proxy whose backend needed a worker of the same pool would deadlock once every worker
 * waited on a backend call queued behind them, and its traffic would pollute the service's own metrics.
 */
final class BuiltInBackend implements AutoCloseable {
    static {
        // The JDK server leaves Nagle's algorithm on and writes headers and body separately: with the client's
        // delayed ACK every answer then waits ~40 ms (measured: 48.6 ms per call instead of 2.1 ms). Read once,
        // when the first server is created in this JVM; an explicit -D setting wins.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService timer;

    BuiltInBackend(int port, int maxMs) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        handlers = Executors.newFixedThreadPool(2, daemon("littlegrid-backend"));
        timer = Executors.newSingleThreadScheduledExecutor(daemon("littlegrid-backend-timer"));
        server.setExecutor(handlers);
        server.createContext("/wait", exchange -> accept(exchange, maxMs));
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/wait");
    }

    private void accept(HttpExchange exchange, int maxMs) {
        int ms = parseMs(exchange.getRequestURI().getRawQuery(), maxMs);
        if (ms < 0) {
            answer(exchange, 400, "{\"error\":\"ms must be an integer from 0 to " + maxMs + "\"}");
            return;
        }
        timer.schedule(() -> answer(exchange, 200, "{\"waited_ms\":" + ms + "}"), ms, TimeUnit.MILLISECONDS);
    }

    /** ms from a query string, or -1 when missing or not an integer in [0, maxMs]. */
    static int parseMs(String query, int maxMs) {
        if (query == null) {
            return -1;
        }
        for (String pair : query.split("&")) {
            if (pair.startsWith("ms=")) {
                try {
                    int ms = Integer.parseInt(pair.substring(3));
                    return ms >= 0 && ms <= maxMs ? ms : -1;
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    private static void answer(HttpExchange exchange, int status, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
        } catch (IOException e) {
            // The caller went away (its timeout or shutdown): nothing to answer.
        }
    }

    @Override
    public void close() {
        server.stop(0);
        timer.shutdownNow();
        handlers.shutdownNow();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
