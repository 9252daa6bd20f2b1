package io.littlegrid.server.metering;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;

/**
 * The service boundary: the outermost filter, so in-flight and the service timer include the throttle's
 * queue and every answer (a 503 rejection, a 400) as well as the work. Actuator requests are not counted.
 */
public class ServiceBoundaryFilter implements Filter {
    private final InFlightMeter meter;

    public ServiceBoundaryFilter(InFlightMeter meter) {
        this.meter = meter;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        if (!ServicePaths.isService(request)) {
            chain.doFilter(req, res);
            return;
        }
        String endpoint = ServicePaths.endpoint(request);
        long entered = meter.enter();
        try {
            chain.doFilter(req, res);
        } finally {
            RequestCompletion.whenDone(request, () -> meter.exit(endpoint, entered));
        }
    }
}
