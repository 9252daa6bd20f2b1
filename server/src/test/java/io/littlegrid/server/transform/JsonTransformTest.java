package io.littlegrid.server.transform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JsonTransformTest {
    private final ObjectMapper mapper = new ObjectMapper();

    @Test
    void reversesEveryStringAndKeepsEverythingElse() throws Exception {
        JsonTransform.Result r = JsonTransform.apply(mapper.readTree(
                "{\"name\":\"abc\",\"n\":3.5,\"ok\":true,\"none\":null,\"list\":[\"xy\",{\"deep\":\"123\"},7]}"));
        assertThat(mapper.writeValueAsString(r.tree()))
                .isEqualTo("{\"name\":\"cba\",\"n\":3.5,\"ok\":true,\"none\":null,\"list\":[\"yx\",{\"deep\":\"321\"},7]}");
        assertThat(r.strings()).isEqualTo(3);
    }

    @Test
    void keepsSurrogatePairsWhole() throws Exception {
        JsonTransform.Result r = JsonTransform.apply(mapper.readTree("\"a\uD83D\uDE00b\""));
        assertThat(r.tree().textValue()).isEqualTo("b\uD83D\uDE00a");
    }

    @Test
    void aScalarDocumentIsTransformedToo() throws Exception {
        assertThat(JsonTransform.apply(mapper.readTree("42")).tree().intValue()).isEqualTo(42);
        assertThat(JsonTransform.apply(mapper.readTree("42")).strings()).isZero();
    }
}
