package io.littlegrid.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.littlegrid.server.metering.InFlightMeter;
import io.littlegrid.server.metering.ServiceBoundaryFilter;
import io.littlegrid.server.throttle.Throttle;
import io.littlegrid.server.throttle.ThrottleFilter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Registers the service boundary (outermost) and the throttle (next) for REQUEST dispatches only: the ASYNC
 * dispatch that writes a non-blocking answer and ERROR dispatches belong to a request already counted.
 */
@Configuration(proxyBeanMethods = false)
class ServiceFilters {
    static final int BOUNDARY_ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    @Bean
    FilterRegistrationBean<ServiceBoundaryFilter> serviceBoundaryFilter(InFlightMeter meter) {
        FilterRegistrationBean<ServiceBoundaryFilter> bean = new FilterRegistrationBean<>(new ServiceBoundaryFilter(meter));
        bean.setOrder(BOUNDARY_ORDER);
        bean.setDispatcherTypes(DispatcherType.REQUEST);
        bean.setAsyncSupported(true);
        return bean;
    }

    @Bean
    FilterRegistrationBean<ThrottleFilter> throttleFilter(LittlegridProperties properties, MeterRegistry registry,
                                                          ObjectMapper mapper) {
        LittlegridProperties.Throttle knobs = properties.throttle();
        Throttle throttle = knobs.enabled() ? new Throttle(knobs.maxConcurrent(), knobs.queue()) : null;
        FilterRegistrationBean<ThrottleFilter> bean =
                new FilterRegistrationBean<>(new ThrottleFilter(throttle, registry, mapper));
        bean.setOrder(BOUNDARY_ORDER + 1);
        bean.setDispatcherTypes(DispatcherType.REQUEST);
        bean.setAsyncSupported(true);
        return bean;
    }
}
