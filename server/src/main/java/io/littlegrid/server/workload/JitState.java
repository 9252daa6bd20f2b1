package io.littlegrid.server.workload;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * What the JIT has done, as calibration needs to know it: whether any compilation finished (the JVM's total
 * compilation time moved) and whether a method runs at the top tier the JVM compiles to. Calibrating before the
 * hot loop reaches C2 measures slower code than requests later run (in a fresh test JVM, 789 SHA-256 iterations
 * per CPU ms against 8,196 once compiled, on a quiet host): two batches of that code agree just as well.
 */
interface JitState {
    /** Total compilation time in ms, moving whenever a compilation finishes; constant where the JVM cannot tell. */
    long compilationMs();

    /** Whether {@code method} ("pkg.Class.name") runs compiled at the JVM's top tier; true where that cannot be known. */
    boolean atTopTier(String method);

    /** Whether both answers come from the JVM rather than the defaults above. */
    boolean watched();

    /** HotSpot's answers: the CompilationMXBean's clock and the Compiler.codelist diagnostic command. */
    static JitState hotSpot() {
        return new HotSpot();
    }

    final class HotSpot implements JitState {
        private final CompilationMXBean clock = ManagementFactory.getCompilationMXBean();
        private final boolean timed = clock != null && clock.isCompilationTimeMonitoringSupported();
        /** The tier a hot method ends at: 4 (C2) unless tiered compilation stops lower; -1 without a JIT. */
        private final int topTier = topTier();
        private final ObjectName commands = commands();

        @Override
        public long compilationMs() {
            return timed ? clock.getTotalCompilationTime() : 0;
        }

        @Override
        public boolean atTopTier(String method) {
            if (topTier < 0 || commands == null) {
                return true;
            }
            String codelist;
            try {
                codelist = (String) ManagementFactory.getPlatformMBeanServer().invoke(commands, "compilerCodelist",
                        new Object[] {null}, new String[] {String[].class.getName()});
            } catch (Exception e) {
                return true;
            }
            // Lines read "<id> <tier> <state> <class.method>(<signature>) [addresses]"; state 0 is in use.
            String needle = " " + method + "(";
            return codelist.lines().anyMatch(line -> line.contains(needle)
                    && line.startsWith(topTier + " 0 ", line.indexOf(' ') + 1));
        }

        @Override
        public boolean watched() {
            return timed && topTier >= 0 && commands != null;
        }

        private static int topTier() {
            try {
                HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
                if (vm == null || !Boolean.parseBoolean(vm.getVMOption("UseCompiler").getValue())) {
                    return -1;
                }
                boolean tiered = Boolean.parseBoolean(vm.getVMOption("TieredCompilation").getValue());
                int stop = tiered ? Math.min(4, Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue())) : 4;
                return stop >= 1 ? stop : -1; // level 0 is the interpreter: nothing to wait for
            } catch (RuntimeException e) {
                return -1;
            }
        }

        private static ObjectName commands() {
            try {
                ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
                return ManagementFactory.getPlatformMBeanServer().isRegistered(name) ? name : null;
            } catch (Exception e) {
                return null;
            }
        }
    }
}
