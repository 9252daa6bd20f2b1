package io.littlegrid.server.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.littlegrid.server.api.BadParameterException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ServiceTimeDistributionTest {
    private static final int DRAWS = 400_000;

    /** Mean and CV of DRAWS draws; with 400 000 draws the standard error of the mean is CV·mean/632. */
    private static double[] meanAndCv(ServiceTimeDistribution d, double mean, double sigma) {
        SplittableRandom random = new SplittableRandom(42);
        double sum = 0;
        double sumSq = 0;
        for (int i = 0; i < DRAWS; i++) {
            double x = d.draw(mean, sigma, random);
            assertThat(x).isGreaterThanOrEqualTo(0);
            sum += x;
            sumSq += x * x;
        }
        double m = sum / DRAWS;
        double sd = Math.sqrt(sumSq / DRAWS - m * m);
        return new double[] {m, sd / m};
    }

    @Test
    void constantIsAlwaysTheMean() {
        assertThat(meanAndCv(ServiceTimeDistribution.CONST, 37, 0)).containsExactly(37.0, 0.0);
    }

    @Test
    void exponentialHasTheRequestedMeanAndCvOne() {
        double[] stats = meanAndCv(ServiceTimeDistribution.EXP, 50, 0);
        assertThat(stats[0]).isCloseTo(50, within(50 * 4 / 632.0));   // 4 standard errors
        assertThat(stats[1]).isCloseTo(1.0, within(0.01));
        assertThat(ServiceTimeDistribution.EXP.cv(0)).isEqualTo(1.0);
    }

    @Test
    void lognormalKeepsTheMeanForAnyShape() {
        for (double sigma : new double[] {0.5, 1.0}) {
            double cv = ServiceTimeDistribution.LOGNORMAL.cv(sigma);
            double[] stats = meanAndCv(ServiceTimeDistribution.LOGNORMAL, 80, sigma);
            assertThat(stats[0]).as("sigma %s", sigma).isCloseTo(80, within(80 * cv * 4 / 632.0));
            // the sample CV of a heavy tail converges slowly: 5% is about 4 standard errors at sigma = 1
            assertThat(stats[1]).as("sigma %s", sigma).isCloseTo(cv, within(0.05 * cv));
        }
        assertThat(ServiceTimeDistribution.LOGNORMAL.cv(1.0)).isCloseTo(Math.sqrt(Math.E - 1), within(1e-12));
    }

    @Test
    void zeroMeanDrawsZeroEverywhere() {
        SplittableRandom random = new SplittableRandom(1);
        for (ServiceTimeDistribution d : ServiceTimeDistribution.values()) {
            assertThat(d.draw(0, 1.0, random)).isZero();
        }
    }

    @Test
    void parsesTheThreeNamesAndDefaultsToConst() {
        assertThat(ServiceTimeDistribution.parse(null)).isEqualTo(ServiceTimeDistribution.CONST);
        assertThat(ServiceTimeDistribution.parse("exp")).isEqualTo(ServiceTimeDistribution.EXP);
        assertThat(ServiceTimeDistribution.parse("lognormal")).isEqualTo(ServiceTimeDistribution.LOGNORMAL);
        assertThatThrownBy(() -> ServiceTimeDistribution.parse("pareto"))
                .isInstanceOf(BadParameterException.class)
                .hasMessageContaining("pareto")
                .extracting(e -> ((BadParameterException) e).parameter()).isEqualTo("dist");
    }
}
