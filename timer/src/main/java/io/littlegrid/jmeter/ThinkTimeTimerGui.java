package io.littlegrid.jmeter;

import java.awt.GridBagConstraints;
import java.awt.GridBagLayout;
import java.awt.Insets;

import javax.swing.JComboBox;
import javax.swing.JComponent;
import javax.swing.JLabel;
import javax.swing.JPanel;
import javax.swing.JTextField;

import org.apache.jmeter.testelement.TestElement;
import org.apache.jmeter.timers.gui.AbstractTimerGui;
import org.apache.jorphan.gui.layout.VerticalLayout;

/**
 * The think-time timer's editor (Add ▸ Timer ▸ littlegrid Think Time Timer): its four fields as text, the
 * distribution with its three names to pick from or a {@code ${__P(...)}} to type.
 */
public class ThinkTimeTimerGui extends AbstractTimerGui {
    private static final long serialVersionUID = 1L;

    static final String TITLE = "littlegrid Think Time Timer";

    private final JComboBox<String> distribution = new JComboBox<>(
        new String[] {ThinkTimeTimer.EXPONENTIAL, ThinkTimeTimer.POISSON, ThinkTimeTimer.CONSTANT});
    private final JTextField meanMs = new JTextField(10);
    private final JTextField offsetMs = new JTextField(10);
    private final JTextField variable = new JTextField(20);

    public ThinkTimeTimerGui() {
        distribution.setEditable(true);  // a ${__P(think_dist,exponential)} picks it per run
        distribution.setToolTipText("exponential: -mean*ln(1-U), CV 1 (memoryless); poisson: JMeter's Poisson Random "
            + "Timer (offset + Poisson count with mean lambda = mean); constant: the mean. Anything else stops the test.");
        meanMs.setToolTipText("Mean think time in ms (lambda of the Poisson distribution)");
        offsetMs.setToolTipText("Constant delay added to every Poisson draw (the Poisson Random Timer's constant delay "
            + "offset)");
        variable.setToolTipText("Name of the JMeter variable that receives each draw in whole ms (saved in the JTL via "
            + "sample_variables)");
        setLayout(new VerticalLayout(5, VerticalLayout.BOTH, VerticalLayout.TOP));
        setBorder(makeBorder());
        add(makeTitlePanel());
        add(new JLabel("Think time before each request, read at each thread's first request; the draw is recorded "
            + "in a variable"));
        JPanel fields = new JPanel(new GridBagLayout());
        addField(fields, 0, "Distribution", distribution);
        addField(fields, 1, "Mean (ms)", meanMs);
        addField(fields, 2, "Offset (ms, poisson only)", offsetMs);
        addField(fields, 3, "Record the draw in variable", variable);
        add(fields);
        clearFields();
    }

    private static void addField(JPanel panel, int row, String label, JComponent field) {
        JLabel name = new JLabel(label);
        name.setLabelFor(field);
        GridBagConstraints at = new GridBagConstraints();
        at.gridy = row;
        at.anchor = GridBagConstraints.WEST;
        at.insets = new Insets(2, 0, 2, 8);
        panel.add(name, at);
        at.gridx = 1;
        at.weightx = 1;
        at.fill = GridBagConstraints.HORIZONTAL;
        at.insets = new Insets(2, 0, 2, 0);
        panel.add(field, at);
    }

    @Override
    public String getLabelResource() {
        return "littlegrid_think_time_timer";  // no JMeter resource: getStaticLabel() names it
    }

    @Override
    public String getStaticLabel() {
        return TITLE;
    }

    @Override
    public String getDocAnchor() {
        return "";
    }

    @Override
    public TestElement createTestElement() {
        ThinkTimeTimer timer = new ThinkTimeTimer();
        modifyTestElement(timer);
        return timer;
    }

    @Override
    public void modifyTestElement(TestElement element) {
        super.configureTestElement(element);
        ThinkTimeTimer timer = (ThinkTimeTimer) element;
        Object chosen = distribution.getEditor().getItem();
        timer.setDistribution(chosen == null ? "" : chosen.toString());
        timer.setMeanMs(meanMs.getText());
        timer.setOffsetMs(offsetMs.getText());
        timer.setVariable(variable.getText());
    }

    @Override
    public void configure(TestElement element) {
        super.configure(element);
        ThinkTimeTimer timer = (ThinkTimeTimer) element;
        distribution.setSelectedItem(timer.getDistribution());
        meanMs.setText(timer.getMeanMs());
        offsetMs.setText(timer.getOffsetMs());
        variable.setText(timer.getVariable());
    }

    @Override
    public void clearGui() {
        super.clearGui();
        clearFields();
    }

    private void clearFields() {
        distribution.setSelectedItem(ThinkTimeTimer.EXPONENTIAL);
        meanMs.setText(ThinkTimeTimer.DEFAULT_MEAN_MS);
        offsetMs.setText(ThinkTimeTimer.DEFAULT_OFFSET_MS);
        variable.setText(ThinkTimeTimer.DEFAULT_VARIABLE);
    }
}
