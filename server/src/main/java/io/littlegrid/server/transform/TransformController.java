package io.littlegrid.server.transform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.littlegrid.server.api.BadParameterException;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.HexFormat;
import java.util.zip.CRC32;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** POST /transform: parse a JSON body, reverse its strings, re-serialise and checksum the result. */
@RestController
public class TransformController {
    public static final int MAX_BODY_BYTES = 1 << 20;

    private final ObjectMapper mapper;
    private final ObjectReader strictReader;

    public TransformController(ObjectMapper mapper) {
        this.mapper = mapper;
        // "{} trailing" is malformed too: Jackson would otherwise stop after the first value.
        this.strictReader = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /** crc32: CRC-32 (hex) of the UTF-8 JSON of {@code result} exactly as serialised in this answer. */
    public record TransformAnswer(JsonNode result, int strings, int bytesIn, int bytesOut, String crc32) {
    }

    @PostMapping("/transform")
    public TransformAnswer transform(HttpServletRequest request) throws IOException {
        byte[] body = readBody(request);
        JsonNode input;
        try {
            input = strictReader.readTree(body);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new BadParameterException("body", "malformed JSON" + where + ": " + firstLine(e.getOriginalMessage()));
        }
        if (input == null || input.isMissingNode()) {
            throw new BadParameterException("body", "body is required: a JSON document");
        }
        JsonTransform.Result result = JsonTransform.apply(input);
        byte[] out = mapper.writeValueAsBytes(result.tree());
        CRC32 crc = new CRC32();
        crc.update(out);
        return new TransformAnswer(result.tree(), result.strings(), body.length, out.length,
                HexFormat.of().toHexDigits((int) crc.getValue()));
    }

    /** Reads at most MAX_BODY_BYTES; a declared or actual larger body is refused before parsing. */
    private static byte[] readBody(HttpServletRequest request) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > MAX_BODY_BYTES) {
            throw tooLarge(declared);
        }
        try (InputStream in = request.getInputStream()) {
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                throw tooLarge(-1);
            }
            if (body.length == 0) {
                throw new BadParameterException("body", "body is required: a JSON document");
            }
            return body;
        }
    }

    private static BadParameterException tooLarge(long declared) {
        return new BadParameterException("body", "body must be at most " + MAX_BODY_BYTES + " bytes"
                + (declared > 0 ? ", Content-Length is " + declared : ""));
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        String line = nl < 0 ? message : message.substring(0, nl);
        return line.length() <= 200 ? line : line.substring(0, 200) + "…";
    }
}
