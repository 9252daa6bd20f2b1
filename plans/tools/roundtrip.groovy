// Load JMX plans with JMeter's own SaveService and save them again, exactly as JMeter 5.6.3 writes them.
//
// Usage (JMeter's jars on the class path; JMETER_HOME or -Djmeter.home=... names the installation):
//   java -Djava.awt.headless=true -Djmeter.home="$JMETER_HOME" -cp "$JMETER_HOME/lib/*:$JMETER_HOME/lib/ext/*" \
//        groovy.ui.GroovyMain plans/tools/roundtrip.groovy [--in-place] [--out DIR] [--gui-out DIR] PLAN...
//   --in-place     overwrite each plan with its round-trip (normalises a hand-edited plan once)
//   --out DIR      write DIR/<plan file name>: load, save (the round-trip test compares these bytes with the plan)
//   --gui-out DIR  write DIR/<plan file name>: load, pass every element through its own GUI editor (configure,
//                  then modifyTestElement, what the GUI does when a user clicks on an element), save, load, save:
//                  equal to the plan when clicking and saving in the GUI changes no value
// Exit status 0 when every plan loaded and was written; 1 with one line per failure on stderr otherwise.
import org.apache.jmeter.gui.JMeterGUIComponent
import org.apache.jmeter.save.SaveService
import org.apache.jmeter.testbeans.gui.TestBeanGUI
import org.apache.jmeter.testelement.TestElement
import org.apache.jmeter.util.JMeterUtils
import org.apache.jorphan.collections.HashTree

String home = System.getProperty('jmeter.home') ?: System.getenv('JMETER_HOME')
if (!home) { System.err.println('roundtrip: set JMETER_HOME or -Djmeter.home'); System.exit(1) }
boolean inPlace = false
File outDir = null, guiOutDir = null
List<File> plans = []
for (int i = 0; i < args.length; i++) {
    switch (args[i]) {
        case '--in-place': inPlace = true; break
        case '--out': outDir = new File(args[++i]); break
        case '--gui-out': guiOutDir = new File(args[++i]); break
        default: plans << new File(args[i])
    }
}
if (!plans || !(inPlace || outDir || guiOutDir)) {
    System.err.println('roundtrip: usage: roundtrip.groovy [--in-place] [--out DIR] [--gui-out DIR] PLAN...')
    System.exit(1)
}

JMeterUtils.loadJMeterProperties(new File(home, 'bin/jmeter.properties').path)
JMeterUtils.setJMeterHome(home)
JMeterUtils.initLocale()
SaveService.loadProperties()

byte[] save(HashTree tree) {
    def bytes = new ByteArrayOutputStream()
    SaveService.saveTree(tree, bytes)
    return bytes.toByteArray()
}

HashTree load(byte[] bytes) {  // SaveService reads plans from files only
    File file = File.createTempFile('roundtrip', '.jmx')
    try {
        file.bytes = bytes
        return SaveService.loadTree(file)
    } finally {
        file.delete()
    }
}

Class<?> classOf(String alias) {
    return Class.forName(SaveService.aliasToClass(alias) ?: alias)
}

// The GUI edits an element by configure(element), which fills its fields, and modifyTestElement(element), which
// reads them back: whatever that pair changes is a diff the user sees after merely clicking on the element.
void throughGui(HashTree tree) {
    for (Object key : tree.list()) {
        TestElement element = (TestElement) key
        String guiClass = element.getPropertyAsString(TestElement.GUI_CLASS)
        if (guiClass) {
            Class<?> editorClass = classOf(guiClass)
            JMeterGUIComponent editor = editorClass == TestBeanGUI
                    ? new TestBeanGUI(classOf(element.getPropertyAsString(TestElement.TEST_CLASS)))  // built per bean
                    : (JMeterGUIComponent) editorClass.getDeclaredConstructor().newInstance()
            editor.configure(element)
            editor.modifyTestElement(element)
        }
        throughGui(tree.getTree(key))
    }
}

int failed = 0
for (File plan : plans) {
    try {
        byte[] original = plan.bytes
        byte[] saved = save(load(original))
        if (outDir) new File(outDir, plan.name).bytes = saved
        if (guiOutDir) {
            HashTree edited = load(original)
            throughGui(edited)
            new File(guiOutDir, plan.name).bytes = save(load(save(edited)))
        }
        if (inPlace) plan.bytes = saved
    } catch (Exception e) {
        System.err.println("roundtrip: ${plan}: ${e.class.simpleName}: ${e.message}")
        failed++
    }
}
System.exit(failed ? 1 : 0)
