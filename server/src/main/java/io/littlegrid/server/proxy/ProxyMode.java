package io.littlegrid.server.proxy;

import java.util.Locale;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * littlegrid.proxy.mode: blocking = the request thread waits for the backend's answer; non-blocking = the
 * request thread is released and the answer is written when the backend's response arrives.
 */
public enum ProxyMode {
    BLOCKING, NON_BLOCKING;

    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The mode as Spring binds it (lenient: non-blocking, NON_BLOCKING and nonblocking all match). */
    static ProxyMode of(Environment environment) {
        return Binder.get(environment).bind("littlegrid.proxy.mode", ProxyMode.class).orElse(BLOCKING);
    }

    /** Registers exactly one /proxy controller, the one for the configured mode. */
    static final class IsBlocking implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return of(context.getEnvironment()) == BLOCKING;
        }
    }

    static final class IsNonBlocking implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return of(context.getEnvironment()) == NON_BLOCKING;
        }
    }
}
