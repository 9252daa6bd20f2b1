"""The controller's jmeter.log read for when it saw each remote engine start and finish (analysis.workload.controller_log),
on lines as JMeter 5.6.3 writes them."""

from littlegrid.analysis.workload.controller_log import EngineTimes, engine_times

LOG = """\
2026-11-27 09:03:25,090 INFO o.a.j.e.DistributedRunner: Starting distributed test with remote engines: [10.231.0.3:1099, 10.231.0.4:1099] @ 2026 Nov 27 09:03:25 UTC (1795770205032)
2026-11-27 09:03:28,278 INFO o.a.j.JMeter: Started remote host:  10.231.0.3:1099 (1795770208278)
2026-11-27 09:03:28,571 INFO o.a.j.e.DistributedRunner: Remote engines have been started:[10.231.0.3:1099, 10.231.0.4:1099]
2026-11-27 09:03:29,352 INFO o.a.j.JMeter: Started remote host:  10.231.0.4:1099 (1795770209352)
2026-11-27 09:03:48,479 INFO o.a.j.JMeter: Finished remote host: 10.231.0.3:1099 (1795770228479)
"""


def test_each_engine_s_start_and_finish_on_the_controller_s_clock(tmp_path):
    log = tmp_path / "jmeter.log"
    log.write_text(LOG)
    assert engine_times(log) == {
        "10.231.0.3:1099": EngineTimes(1795770208278, 1795770228479),
        "10.231.0.4:1099": EngineTimes(1795770209352, None),  # the log was cut before it finished
    }


def test_no_log_or_a_log_of_a_run_on_one_host_names_no_engine(tmp_path):
    assert engine_times(None) == {}
    assert engine_times(tmp_path / "missing.log") == {}
    local = tmp_path / "jmeter.log"
    local.write_text("2026-11-27 09:03:25,090 INFO o.a.j.e.StandardJMeterEngine: Running the test!\n")
    assert engine_times(local) == {}
