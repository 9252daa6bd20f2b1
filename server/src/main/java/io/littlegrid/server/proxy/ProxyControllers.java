package io.littlegrid.server.proxy;

import io.littlegrid.server.api.Params;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.annotation.Conditional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** GET /proxy?ms=N in the configured mode; exactly one of the two controllers is registered. */
final class ProxyControllers {
    private ProxyControllers() {
    }

    static int waitMs(String ms) {
        return Params.intInRange("ms", ms, 0, BackendClient.MAX_MS);
    }

    /** The request thread waits for the backend: at most threads.max proxied calls at once. */
    @RestController
    @Conditional(ProxyMode.IsBlocking.class)
    static class Blocking {
        private final BackendClient backend;

        Blocking(BackendClient backend) {
            this.backend = backend;
        }

        @GetMapping("/proxy")
        BackendClient.ProxyAnswer proxy(@RequestParam(required = false) String ms) throws InterruptedException {
            return backend.call(waitMs(ms));
        }
    }

    /**
     * The request thread is released at once (Spring MVC async); the answer is written when sendAsync's
     * future completes, so concurrent calls are limited by connections, not by threads.max.
     */
    @RestController
    @Conditional(ProxyMode.IsNonBlocking.class)
    static class NonBlocking {
        private final BackendClient backend;

        NonBlocking(BackendClient backend) {
            this.backend = backend;
        }

        @GetMapping("/proxy")
        CompletableFuture<BackendClient.ProxyAnswer> proxy(@RequestParam(required = false) String ms) {
            return backend.callAsync(waitMs(ms));
        }
    }
}
