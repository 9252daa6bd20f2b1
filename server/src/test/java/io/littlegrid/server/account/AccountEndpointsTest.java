package io.littlegrid.server.account;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.littlegrid.server.testkit.Http;
import java.net.URI;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The login flow a multi-step plan drives: a token from POST /login opens GET /account, nothing else does. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AccountEndpointsTest {
    private final ObjectMapper mapper = new ObjectMapper();

    @LocalServerPort
    int port;
    Http http;

    @BeforeEach
    void client() {
        http = new Http(port);
    }

    private Http.Timed login(String form) {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)));
    }

    private Http.Timed account(String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/account")).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request);
    }

    @Test
    void theTokenFromLoginOpensTheAccountOfThatUser() throws Exception {
        Http.Timed answer = login("user=alice&password=wonderland");
        assertThat(answer.status()).isEqualTo(200);
        JsonNode token = mapper.readTree(answer.body());
        assertThat(token.get("user").asText()).isEqualTo("alice");
        assertThat(answer.elapsedMs()).isGreaterThanOrEqualTo(AccountController.LOGIN_NANOS / 1e6);

        Http.Timed opened = account("Bearer " + token.get("token").asText());
        assertThat(opened.status()).isEqualTo(200);
        assertThat(mapper.readTree(opened.body()).get("user").asText()).isEqualTo("alice");
    }

    @Test
    void anAccountWithoutAValidTokenIsRefused() throws Exception {
        String token = mapper.readTree(login("user=alice&password=x").body()).get("token").asText();
        assertThat(account(null).status()).isEqualTo(401);
        assertThat(account("Bearer nobody.forged").status()).isEqualTo(401);
        // a token names its user: changing the name breaks the signature
        assertThat(account("Bearer mallory" + token.substring(token.indexOf('.'))).status()).isEqualTo(401);
        assertThat(mapper.readTree(account(null).body()).get("status").asInt()).isEqualTo(401);
    }

    @Test
    void aLoginWithoutUserOrPasswordIsABadRequestNamingTheParameter() throws Exception {
        Http.Timed noPassword = login("user=alice");
        assertThat(noPassword.status()).isEqualTo(400);
        assertThat(mapper.readTree(noPassword.body()).get("parameter").asText()).isEqualTo("password");
        assertThat(mapper.readTree(login("password=x").body()).get("parameter").asText()).isEqualTo("user");
    }
}
