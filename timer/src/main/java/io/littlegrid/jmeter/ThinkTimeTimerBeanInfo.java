package io.littlegrid.jmeter;

import java.beans.PropertyDescriptor;

import org.apache.jmeter.testbeans.BeanInfoSupport;

/** What JMeter's GUI shows of the think-time timer (TestBeanGUI): its four fields, each with a default. */
public class ThinkTimeTimerBeanInfo extends BeanInfoSupport {

    public ThinkTimeTimerBeanInfo() {
        super(ThinkTimeTimer.class);
        createPropertyGroup("think_time", new String[] {"distribution", "meanMs", "offsetMs", "variable"});
        PropertyDescriptor distribution = property("distribution");
        distribution.setValue(NOT_UNDEFINED, Boolean.TRUE);
        distribution.setValue(DEFAULT, ThinkTimeTimer.EXPONENTIAL);
        distribution.setValue(TAGS, new String[] {
            ThinkTimeTimer.EXPONENTIAL, ThinkTimeTimer.POISSON, ThinkTimeTimer.CONSTANT});
        distribution.setValue(NOT_OTHER, Boolean.FALSE);  // a ${__P(think_dist,...)} picks it per run
        distribution.setValue(NOT_EXPRESSION, Boolean.FALSE);
        for (String[] field : new String[][] {{"meanMs", "1000"}, {"offsetMs", "0"}, {"variable", "think_drawn_ms"}}) {
            PropertyDescriptor p = property(field[0]);
            p.setValue(NOT_UNDEFINED, Boolean.TRUE);
            p.setValue(DEFAULT, field[1]);
        }
    }
}
