package io.littlegrid.server.throttle;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.littlegrid.server.api.ErrorBody;
import io.littlegrid.server.metering.RequestCompletion;
import io.littlegrid.server.metering.ServicePaths;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * Puts the {@link Throttle} in front of the service (inside the service boundary, so queueing time counts in
 * the service timer and queued requests in in-flight). A waiting request keeps its Tomcat worker thread:
 * size server.tomcat.threads.max at least max-concurrent + queue, or the rest of the queue forms in Tomcat.
 * The place is held until the request ends, including a non-blocking /proxy whose thread was released.
 * With the throttle off (max-concurrent = 0) the metrics still exist and read 0.
 */
public class ThrottleFilter implements Filter {
    private final Throttle throttle; // null when off
    private final ObjectMapper mapper;
    private final Counter rejected;

    public ThrottleFilter(Throttle throttle, MeterRegistry registry, ObjectMapper mapper) {
        this.throttle = throttle;
        this.mapper = mapper;
        Gauge.builder("littlegrid.throttle.queue.length", this, f -> f.throttle == null ? 0 : f.throttle.queueLength())
                .description("Requests waiting in the throttle's FIFO queue").register(registry);
        Gauge.builder("littlegrid.throttle.admitted", this, f -> f.throttle == null ? 0 : f.throttle.admitted())
                .description("Requests past the throttle, inside the service proper (<= max-concurrent)")
                .register(registry);
        this.rejected = Counter.builder("littlegrid.throttle.rejected")
                .description("Requests refused with 503 because the throttle's queue was full").register(registry);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        if (throttle == null || !ServicePaths.isService(request)) {
            chain.doFilter(req, res);
            return;
        }
        boolean admitted;
        try {
            admitted = throttle.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            refuse((HttpServletResponse) res, "interrupted while queued: the server is shutting down");
            return;
        }
        if (!admitted) {
            rejected.increment();
            refuse((HttpServletResponse) res, "throttle full: " + throttle.maxConcurrent() + " requests in service and "
                    + throttle.queueCapacity() + " queued (littlegrid.throttle.max-concurrent / .queue)");
            return;
        }
        try {
            chain.doFilter(req, res);
        } finally {
            RequestCompletion.whenDone(request, throttle::release);
        }
    }

    private void refuse(HttpServletResponse response, String message) throws IOException {
        response.setStatus(HttpStatus.SERVICE_UNAVAILABLE.value());
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.getOutputStream().write(ErrorBody.of(HttpStatus.SERVICE_UNAVAILABLE, null, message).toJson(mapper));
    }
}
