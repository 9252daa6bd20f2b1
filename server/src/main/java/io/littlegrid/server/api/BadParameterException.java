package io.littlegrid.server.api;

/** A client mistake in one named parameter (query parameter, or "body"): answered with 400 and a JSON body. */
public class BadParameterException extends RuntimeException {
    private final String parameter;

    public BadParameterException(String parameter, String message) {
        super(message);
        this.parameter = parameter;
    }

    public String parameter() {
        return parameter;
    }
}
