package io.littlegrid.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.springframework.http.HttpStatus;

/** The one JSON shape of every error answer: status, reason phrase, the parameter at fault (if any), message. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ErrorBody(int status, String error, String parameter, String message) {

    public static ErrorBody of(HttpStatus status, String parameter, String message) {
        return new ErrorBody(status.value(), status.getReasonPhrase(), parameter, message);
    }

    /** Serialised by hand for filters, which answer before Spring MVC's message converters are reached. */
    public byte[] toJson(ObjectMapper mapper) {
        try {
            return mapper.writeValueAsBytes(this);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise an error body", e);
        }
    }
}
