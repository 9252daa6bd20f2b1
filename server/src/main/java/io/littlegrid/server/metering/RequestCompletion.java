package io.littlegrid.server.metering;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an action when a request really ends: now for a synchronous request, at the async context's
 * completion for one whose thread was released (non-blocking /proxy), so filters bracket the whole request.
 */
public final class RequestCompletion {
    private RequestCompletion() {
    }

    /** Call on the way out of a filter's chain.doFilter (the container has not yet completed the async context). */
    public static void whenDone(HttpServletRequest request, Runnable action) {
        if (!request.isAsyncStarted()) {
            action.run();
            return;
        }
        AtomicBoolean done = new AtomicBoolean();
        request.getAsyncContext().addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                once();
            }

            // The container calls onComplete after a timeout or an error as well, so these need do nothing.
            @Override
            public void onTimeout(AsyncEvent event) {
            }

            @Override
            public void onError(AsyncEvent event) {
            }

            // A re-started async cycle drops its listeners: stay registered until the final completion.
            @Override
            public void onStartAsync(AsyncEvent event) {
                event.getAsyncContext().addListener(this);
            }

            private void once() {
                if (done.compareAndSet(false, true)) {
                    action.run();
                }
            }
        });
    }
}
