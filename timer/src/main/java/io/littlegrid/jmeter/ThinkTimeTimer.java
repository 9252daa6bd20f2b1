package io.littlegrid.jmeter;

import java.util.concurrent.ThreadLocalRandom;

import org.apache.jmeter.testbeans.TestBean;
import org.apache.jmeter.testelement.AbstractTestElement;
import org.apache.jmeter.threads.JMeterContext;
import org.apache.jmeter.threads.JMeterContextService;
import org.apache.jmeter.timers.PoissonRandomTimer;
import org.apache.jmeter.timers.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Think time before each request, drawn from a distribution with a mean in ms, and recorded: the draw is stored in
 * a JMeter variable (think_drawn_ms in the plans), which every run saves as a JTL column (sample_variables), so
 * what the timer asked for can be told apart from what the generator delivered (a busy host stretches every sleep).
 *
 * <p>Compiled rather than scripted because it runs before every request: a JSR223 timer builds a new script engine
 * and its bindings on each call, which cost JMeter three times the CPU of the request itself at think time 0.
 *
 * <p>Distributions: {@code exponential}, -mean·ln(1 − U) with U uniform on [0, 1), rounded to whole ms (CV 1,
 * memoryless: the think time of the M/M/c//N model); {@code poisson}, JMeter's own Poisson Random Timer, called
 * rather than copied (offset + a Poisson count of ms with mean λ = mean: sd √λ, nearly constant, NOT exponential);
 * {@code constant}, the mean rounded to whole ms. Anything else, or a mean that is not a number, stops the test:
 * a silent zero think time would be another experiment than the one asked for.
 */
public class ThinkTimeTimer extends AbstractTestElement implements Timer, TestBean {
    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(ThinkTimeTimer.class);

    static final String EXPONENTIAL = "exponential";
    static final String POISSON = "poisson";
    static final String CONSTANT = "constant";

    // TestBean properties: JMeter sets them from the element's (function-evaluated) properties before each delay()
    private String distribution = EXPONENTIAL;
    private String meanMs = "1000";
    private String offsetMs = "0";
    private String variable = "think_drawn_ms";

    private transient PoissonRandomTimer poisson;  // one per thread: every thread has its own clone of the timer

    @Override
    public long delay() {
        double mean;
        try {
            mean = Double.parseDouble(meanMs.trim());
        } catch (NumberFormatException e) {
            return stop("mean '" + meanMs + "' (think_ms) is not a number");
        }
        long drawn;
        switch (distribution) {
            case EXPONENTIAL:
                drawn = Math.round(-mean * Math.log1p(-ThreadLocalRandom.current().nextDouble()));
                break;
            case POISSON:
                drawn = poissonDelay(mean);
                break;
            case CONSTANT:
                drawn = Math.round(mean);
                break;
            default:
                return stop("think_dist = '" + distribution + "': expected poisson, exponential or constant");
        }
        JMeterContextService.getContext().getVariables().put(variable, Long.toString(drawn));
        return drawn;
    }

    private long poissonDelay(double lambda) {
        if (poisson == null) {
            poisson = new PoissonRandomTimer();
        }
        poisson.setRange(lambda);
        poisson.setDelay(offsetMs);
        return poisson.delay();
    }

    private long stop(String problem) {
        log.error("{}; stopping the test", problem);
        JMeterContext context = JMeterContextService.getContext();
        if (context.getEngine() != null) {
            context.getEngine().stopTest(true);
        }
        return 0L;
    }

    public String getDistribution() {
        return distribution;
    }

    public void setDistribution(String distribution) {
        this.distribution = distribution.trim();
    }

    public String getMeanMs() {
        return meanMs;
    }

    public void setMeanMs(String meanMs) {
        this.meanMs = meanMs;
    }

    public String getOffsetMs() {
        return offsetMs;
    }

    public void setOffsetMs(String offsetMs) {
        this.offsetMs = offsetMs;
    }

    public String getVariable() {
        return variable;
    }

    public void setVariable(String variable) {
        this.variable = variable;
    }
}
