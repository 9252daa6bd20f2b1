package io.littlegrid.server.account;

import io.littlegrid.server.api.BadParameterException;
import io.littlegrid.server.api.ErrorBody;
import io.littlegrid.server.workload.Pause;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A login flow for multi-step plans (plans/examples/shop.jmx): POST /login returns a token, GET /account needs it.
 * A plan whose extractor does not carry the token to the next request gets 401s, so a run shows whether the flow
 * worked. Tokens are signed, not stored: the server keeps no state per user, whatever the number of logins.
 */
@RestController
public class AccountController {
    /** Service times of the two steps: a login costs more than reading an account. */
    public static final long LOGIN_NANOS = 20_000_000L;
    public static final long ACCOUNT_NANOS = 10_000_000L;
    private static final String BEARER = "Bearer ";

    private final byte[] key = new byte[32];

    public AccountController() {
        new SecureRandom().nextBytes(key); // tokens of a previous server start are refused, as sessions would be
    }

    public record Token(String user, String token) {
    }

    public record Account(String user, String plan) {
    }

    @PostMapping("/login")
    public Token login(@RequestParam(required = false) String user, @RequestParam(required = false) String password)
            throws InterruptedException {
        if (user == null || user.isBlank() || user.contains(".")) {
            throw new BadParameterException("user", "user is required (letters, digits, no dots)");
        }
        if (password == null || password.isEmpty()) {
            throw new BadParameterException("password", "password is required");
        }
        Pause.hold(LOGIN_NANOS);
        return new Token(user, user + "." + sign(user));
    }

    @GetMapping("/account")
    public ResponseEntity<?> account(@RequestHeader(name = "Authorization", required = false) String authorization)
            throws InterruptedException {
        String user = authorization == null || !authorization.startsWith(BEARER) ? null
                : verified(authorization.substring(BEARER.length()).trim());
        if (user == null) {
            return ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(ErrorBody.of(HttpStatus.UNAUTHORIZED, null,
                    "Authorization: Bearer <token from POST /login> is required"));
        }
        Pause.hold(ACCOUNT_NANOS);
        return ResponseEntity.ok(new Account(user, "standard"));
    }

    /** The user a token was issued to, or null when it was not issued by this server. */
    String verified(String token) {
        int dot = token.lastIndexOf('.');
        if (dot <= 0) {
            return null;
        }
        String user = token.substring(0, dot);
        byte[] given = token.substring(dot + 1).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(given, sign(user).getBytes(StandardCharsets.US_ASCII)) ? user : null;
    }

    private String sign(String user) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] signature = mac.doFinal(user.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(signature);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }
}
