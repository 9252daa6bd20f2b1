package io.littlegrid.server.metering;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;

/** Which requests count as service traffic, and their endpoint tag (a closed set, so series stay few). */
public final class ServicePaths {
    public static final List<String> ENDPOINTS = List.of("/", "/io", "/cpu", "/transform", "/proxy", "/login", "/account");
    public static final String OTHER = "other";

    private ServicePaths() {
    }

    /** The runner's 1 Hz scrapes and health checks are not load: they would add themselves to in-flight. */
    public static boolean isService(HttpServletRequest request) {
        String path = path(request);
        return !(path.equals("/actuator") || path.startsWith("/actuator/"));
    }

    public static String endpoint(HttpServletRequest request) {
        String path = path(request);
        return ENDPOINTS.contains(path) ? path : OTHER;
    }

    private static String path(HttpServletRequest request) {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        String path = context.isEmpty() ? uri : uri.substring(context.length());
        return path.isEmpty() ? "/" : path;
    }
}
