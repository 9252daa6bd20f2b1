package io.littlegrid.server;

import io.littlegrid.server.proxy.ProxyMode;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * littlegrid's own knobs ({@code --littlegrid.…=value} or env {@code LITTLEGRID_…}); Tomcat's are Spring Boot's.
 * A value out of range stops the start-up with a message naming the knob.
 */
@ConfigurationProperties("littlegrid")
public record LittlegridProperties(@DefaultValue Throttle throttle, @DefaultValue Proxy proxy) {

    /** At most {@code maxConcurrent} requests inside the service (0 = off); {@code queue} FIFO places beyond. */
    public record Throttle(@DefaultValue("0") int maxConcurrent, @DefaultValue("100") int queue) {
        public Throttle {
            require(maxConcurrent >= 0, "littlegrid.throttle.max-concurrent must be >= 0 (0 = off), got " + maxConcurrent);
            require(queue >= 0, "littlegrid.throttle.queue must be >= 0, got " + queue);
        }

        public boolean enabled() {
            return maxConcurrent > 0;
        }
    }

    /**
     * {@code mode}: blocking (request thread waits for the backend) or non-blocking (thread released);
     * {@code backendUrl}: empty = the built-in backend on {@code backendPort} (0 = any free port).
     */
    public record Proxy(@DefaultValue("blocking") ProxyMode mode, @DefaultValue("") String backendUrl,
                        @DefaultValue("0") int backendPort) {
        public Proxy {
            require(backendPort >= 0 && backendPort <= 65535,
                    "littlegrid.proxy.backend-port must be 0..65535, got " + backendPort);
            require(backendUrl.isEmpty() || backendUrl.startsWith("http://") || backendUrl.startsWith("https://"),
                    "littlegrid.proxy.backend-url must start with http:// or https://, got '" + backendUrl + "'");
        }
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
