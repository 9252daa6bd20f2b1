package io.littlegrid.server.api;

import io.littlegrid.server.proxy.BackendClient;
import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpMediaTypeException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/** Turns every failure into {@link ErrorBody} JSON: 4xx for the client's mistakes, never a stack trace. */
@RestControllerAdvice
public class ApiErrors {
    private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);

    @ExceptionHandler(BadParameterException.class)
    ResponseEntity<ErrorBody> badParameter(BadParameterException e) {
        return answer(HttpStatus.BAD_REQUEST, e.parameter(), e.getMessage());
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<ErrorBody> missingParameter(MissingServletRequestParameterException e) {
        return answer(HttpStatus.BAD_REQUEST, e.getParameterName(), e.getParameterName() + " is required");
    }

    /** 405 rather than 400: the method, not a parameter, is wrong, and the Allow header says what works. */
    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<ErrorBody> wrongMethod(HttpRequestMethodNotSupportedException e, HttpServletRequest request) {
        HttpHeaders headers = new HttpHeaders();
        if (e.getSupportedHttpMethods() != null) {
            headers.setAllow(e.getSupportedHttpMethods());
        }
        String message = request.getMethod() + " is not supported on " + request.getRequestURI()
                + "; supported: " + String.join(", ", e.getSupportedMethods() == null ? new String[0] : e.getSupportedMethods());
        return ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED).headers(headers)
                .contentType(MediaType.APPLICATION_JSON)
                .body(ErrorBody.of(HttpStatus.METHOD_NOT_ALLOWED, "method", message));
    }

    @ExceptionHandler({NoHandlerFoundException.class, NoResourceFoundException.class})
    ResponseEntity<ErrorBody> notFound(HttpServletRequest request) {
        return answer(HttpStatus.NOT_FOUND, null, "no endpoint at " + request.getRequestURI()
                + "; see GET /, /io, /cpu, /proxy, POST /transform, /actuator/health, /actuator/prometheus");
    }

    @ExceptionHandler(HttpMediaTypeException.class)
    ResponseEntity<ErrorBody> mediaType(HttpMediaTypeException e) {
        return answer(HttpStatus.BAD_REQUEST, "Content-Type", e.getMessage());
    }

    /** The proxy's backend failed: the gateway's error, not the client's, nor a bug of ours. */
    @ExceptionHandler(BackendClient.BackendFailure.class)
    ResponseEntity<ErrorBody> backendFailed(BackendClient.BackendFailure e) {
        return answer(HttpStatus.BAD_GATEWAY, null, e.getMessage());
    }

    @ExceptionHandler(AsyncRequestTimeoutException.class)
    ResponseEntity<ErrorBody> asyncTimeout() {
        return answer(HttpStatus.SERVICE_UNAVAILABLE, null, "the request timed out inside the server");
    }

    @ExceptionHandler(InterruptedException.class)
    ResponseEntity<ErrorBody> interrupted() {
        Thread.currentThread().interrupt();
        return answer(HttpStatus.SERVICE_UNAVAILABLE, null, "interrupted: the server is shutting down");
    }

    /** A bug: logged with its trace on the server, answered without one. */
    @ExceptionHandler(Exception.class)
    ResponseEntity<ErrorBody> unexpected(Exception e, HttpServletRequest request) {
        log.error("unexpected failure on {} {}", request.getMethod(), request.getRequestURI(), e);
        return answer(HttpStatus.INTERNAL_SERVER_ERROR, null, "internal error: " + e.getClass().getSimpleName());
    }

    static ResponseEntity<ErrorBody> answer(HttpStatus status, String parameter, String message) {
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON)
                .body(ErrorBody.of(status, parameter, message));
    }
}
