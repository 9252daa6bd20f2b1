package io.littlegrid.server.workload;

import io.littlegrid.server.api.BadParameterException;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * Service-time distributions for /io, each with the requested mean (ms).
 * exp: CV 1, memoryless, what M/M/c//N models assume. lognormal: shape sigma (the standard deviation of
 * ln S), mean kept at the requested value by mu = ln(mean) - sigma^2/2, so CV = sqrt(exp(sigma^2) - 1).
 */
public enum ServiceTimeDistribution {
    CONST {
        @Override
        public double draw(double meanMs, double sigma, RandomGenerator random) {
            return meanMs;
        }
    },
    EXP {
        @Override
        public double draw(double meanMs, double sigma, RandomGenerator random) {
            // 1 - U lies in (0, 1], so the logarithm is finite.
            return -meanMs * Math.log(1.0 - random.nextDouble());
        }
    },
    LOGNORMAL {
        @Override
        public double draw(double meanMs, double sigma, RandomGenerator random) {
            if (meanMs == 0) {
                return 0;
            }
            double mu = Math.log(meanMs) - sigma * sigma / 2;
            return Math.exp(mu + sigma * random.nextGaussian());
        }
    };

    /** Default lognormal shape: CV = sqrt(e - 1) ≈ 1.31, a moderately heavy tail. */
    public static final double DEFAULT_SIGMA = 1.0;
    public static final double MAX_SIGMA = 3.0;

    public abstract double draw(double meanMs, double sigma, RandomGenerator random);

    /** Coefficient of variation of this distribution (a known answer for tests and the README). */
    public double cv(double sigma) {
        return switch (this) {
            case CONST -> 0;
            case EXP -> 1;
            case LOGNORMAL -> Math.sqrt(Math.expm1(sigma * sigma));
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ServiceTimeDistribution parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return CONST;
        }
        for (ServiceTimeDistribution d : values()) {
            if (d.label().equals(raw.strip())) {
                return d;
            }
        }
        throw new BadParameterException("dist", "dist must be one of const, exp, lognormal, got '"
                + (raw.length() > 40 ? raw.substring(0, 40) + "…" : raw) + "'");
    }
}
