package io.littlegrid.jmeter;

import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import org.apache.jmeter.engine.util.CompoundVariable;
import org.apache.jmeter.testelement.AbstractTestElement;
import org.apache.jmeter.testelement.property.FunctionProperty;
import org.apache.jmeter.testelement.property.JMeterProperty;
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
 * A plain test element with its own editor ({@link ThinkTimeTimerGui}) rather than a TestBean for the same reason:
 * JMeter prepares a TestBean timer before every request (each field's function evaluated and set through its
 * setter by reflection), which cost as much as the rest of the timer's work together (bench_elements.py). The
 * fields are read once, at a thread's first request, when they are literals or {@code ${__P()}} /
 * {@code ${__property()}} (properties are fixed for the test); a field holding anything else (a variable, another
 * function) is read again before every request, so a per-iteration value is followed as it was by the TestBean.
 *
 * <p>Distributions: {@code exponential}, -mean·ln(1 − U) with U uniform on [0, 1), rounded to whole ms (CV 1,
 * memoryless: the think time of the M/M/c//N model); {@code poisson}, JMeter's own Poisson Random Timer, called
 * rather than copied (offset + a Poisson count of ms with mean λ = mean: sd √λ, nearly constant, NOT exponential);
 * {@code constant}, the mean rounded to whole ms. Anything else, or a mean that is not a number, stops the test:
 * a silent zero think time would be another experiment than the one asked for.
 */
public class ThinkTimeTimer extends AbstractTestElement implements Timer {
    private static final long serialVersionUID = 2L;
    private static final Logger log = LoggerFactory.getLogger(ThinkTimeTimer.class);

    public static final String DISTRIBUTION = "distribution";
    public static final String MEAN_MS = "meanMs";
    public static final String OFFSET_MS = "offsetMs";
    public static final String VARIABLE = "variable";

    static final String EXPONENTIAL = "exponential";
    static final String POISSON = "poisson";
    static final String CONSTANT = "constant";
    static final String DEFAULT_MEAN_MS = "1000";
    static final String DEFAULT_OFFSET_MS = "0";
    static final String DEFAULT_VARIABLE = "think_drawn_ms";

    // A reference whose value is fixed for the whole test: what remains of a field without these is read per request.
    private static final Pattern FIXED = Pattern.compile("\\$\\{__(?:P|property)\\([^${}]*\\)}");

    // What the fields say, read at this thread's first request: every thread has its own clone of the timer.
    private transient boolean resolved;
    private transient boolean perRequest;  // a field refers to something that may change between requests
    private transient String distribution;
    private transient double mean;
    private transient String variable;
    private transient PoissonRandomTimer poisson;

    @Override
    public long delay() {
        if (!resolved || perRequest) {
            resolve();
        }
        long drawn;
        switch (distribution) {
            case EXPONENTIAL:
                drawn = Math.round(-mean * Math.log1p(-ThreadLocalRandom.current().nextDouble()));
                break;
            case POISSON:
                drawn = poisson.delay();
                break;
            case CONSTANT:
                drawn = Math.round(mean);
                break;
            default:
                return 0L;  // the test is stopping (resolve said why)
        }
        JMeterContextService.getContext().getVariables().put(variable, Long.toString(drawn));
        return drawn;
    }

    private void resolve() {
        if (!resolved) {
            resolved = true;
            perRequest = changes(DISTRIBUTION) || changes(MEAN_MS) || changes(OFFSET_MS) || changes(VARIABLE);
        }
        distribution = getDistribution().trim();
        variable = getVariable();
        String meanText = getMeanMs();
        try {
            mean = Double.parseDouble(meanText.trim());
        } catch (NumberFormatException e) {
            stop("mean '" + meanText + "' (think_ms) is not a number");
            return;
        }
        switch (distribution) {
            case EXPONENTIAL:
            case CONSTANT:
                break;
            case POISSON:
                if (poisson == null) {
                    poisson = new PoissonRandomTimer();
                }
                poisson.setRange(mean);
                poisson.setDelay(getOffsetMs());
                break;
            default:
                stop("think_dist = '" + distribution + "': expected poisson, exponential or constant");
        }
    }

    /** Whether a field holds a reference other than a property's, whose value may differ from request to request. */
    private boolean changes(String field) {
        JMeterProperty property = getProperty(field);
        if (!(property instanceof FunctionProperty)) {
            return false;  // a literal (JMeter turns every ${...} into a FunctionProperty when the test starts)
        }
        Object function = property.getObjectValue();
        String raw = function instanceof CompoundVariable ? ((CompoundVariable) function).getRawParameters() : "${";
        return FIXED.matcher(raw).replaceAll("").contains("${");
    }

    private void stop(String problem) {
        distribution = "";  // delay() draws nothing from now on
        log.error("{}; stopping the test", problem);
        JMeterContext context = JMeterContextService.getContext();
        if (context.getEngine() != null) {
            context.getEngine().stopTest(true);
        }
    }

    public String getDistribution() {
        return getPropertyAsString(DISTRIBUTION, EXPONENTIAL);
    }

    public void setDistribution(String distribution) {
        setProperty(DISTRIBUTION, distribution);
    }

    public String getMeanMs() {
        return getPropertyAsString(MEAN_MS, DEFAULT_MEAN_MS);
    }

    public void setMeanMs(String meanMs) {
        setProperty(MEAN_MS, meanMs);
    }

    public String getOffsetMs() {
        return getPropertyAsString(OFFSET_MS, DEFAULT_OFFSET_MS);
    }

    public void setOffsetMs(String offsetMs) {
        setProperty(OFFSET_MS, offsetMs);
    }

    public String getVariable() {
        return getPropertyAsString(VARIABLE, DEFAULT_VARIABLE);
    }

    public void setVariable(String variable) {
        setProperty(VARIABLE, variable);
    }
}
