"""Host metrics: /proc/stat and /proc/meminfo parsed, CPU shares between two readings."""

from littlegrid.run.host_metrics import (COLUMNS, CpuTimes, HostSampler, cpu_shares, parse_cpus, parse_meminfo_used,
                                         parse_proc_stat)

STAT = """cpu  100 10 50 800 40 5 5 0 0 0
cpu0 50 5 25 400 20 2 3 0 0 0
cpu1 50 5 25 400 20 3 2 0 0 0
intr 12345
procs_running 3
procs_blocked 0
"""


def test_proc_stat_gives_the_aggregate_cpu_line_and_the_run_queue():
    cpu, running = parse_proc_stat(STAT)
    assert running == 3
    assert cpu == CpuTimes(user=110, system=60, iowait=40, idle=800, total=1010)


def test_cpu_shares_are_fractions_of_all_cpus_over_the_interval():
    before = CpuTimes(user=100, system=50, iowait=0, idle=850, total=1000)
    after = CpuTimes(user=160, system=70, iowait=20, idle=950, total=1200)  # 200 ticks: 60 user, 20 sys, 20 io, 100 idle
    assert cpu_shares(before, after) == {"cpu_util": 0.4, "cpu_user": 0.3, "cpu_system": 0.1, "cpu_iowait": 0.1}


def test_no_interval_means_no_cpu_figure_rather_than_a_made_up_one():
    same = CpuTimes(user=1, system=1, iowait=0, idle=1, total=3)
    assert cpu_shares(None, same)["cpu_util"] is None
    assert cpu_shares(same, same)["cpu_util"] is None


def test_memory_in_use_is_total_minus_available_in_bytes():
    assert parse_meminfo_used("MemTotal:  1000 kB\nMemFree: 100 kB\nMemAvailable:  400 kB\n") == 600 * 1024
    assert parse_meminfo_used("MemTotal: 1000 kB\n") is None


def test_the_sampler_reads_a_proc_folder_and_fills_every_column(tmp_path):
    (tmp_path / "loadavg").write_text("1.50 0.80 0.40 2/118 10807\n")
    (tmp_path / "stat").write_text(STAT)
    (tmp_path / "meminfo").write_text("MemTotal: 2000 kB\nMemAvailable: 500 kB\n")
    sampler = HostSampler(proc=tmp_path)
    first = sampler.sample()
    assert list(first) == COLUMNS
    assert first["load1"] == 1.5 and first["run_queue"] == 3 and first["mem_used_bytes"] == 1500 * 1024
    assert first["cpu_util"] is None  # nothing before the first reading
    (tmp_path / "stat").write_text(STAT.replace("cpu  100 10 50 800", "cpu  150 10 50 850"))
    assert sampler.sample()["cpu_util"] == 0.5


def test_a_missing_proc_file_leaves_its_columns_empty(tmp_path):
    row = HostSampler(proc=tmp_path).sample()
    assert row["load1"] is None and row["run_queue"] is None and row["mem_used_bytes"] is None


def test_the_cpus_the_server_was_pinned_to_are_summed_from_their_own_lines():
    assert parse_cpus(STAT, (1,)) == CpuTimes(user=55, system=30, iowait=20, idle=400, total=505)
    assert parse_cpus(STAT, (0, 1)) == CpuTimes(user=110, system=60, iowait=40, idle=800, total=1010)
    assert parse_cpus(STAT, (2,)) is None  # a CPU the file does not list: no figure rather than a wrong one


def test_the_sampler_measures_the_server_cpus_apart_only_when_the_server_was_pinned(tmp_path):
    (tmp_path / "stat").write_text(STAT)
    pinned, free = HostSampler(proc=tmp_path, server_cpus=(1,)), HostSampler(proc=tmp_path)
    assert pinned.sample()["server_cpu_util"] is None and free.sample()["server_cpu_util"] is None
    # CPU 1 busy for 90 of 100 ticks, CPU 0 idle: the host half busy, the server's own CPU 90%
    (tmp_path / "stat").write_text(STAT.replace("cpu  100 10 50 800", "cpu  190 10 50 910")
                                   .replace("cpu0 50 5 25 400", "cpu0 50 5 25 500")
                                   .replace("cpu1 50 5 25 400", "cpu1 140 5 25 410"))
    row = pinned.sample()
    assert row["cpu_util"] == 0.45 and row["server_cpu_util"] == 0.9
    assert free.sample()["server_cpu_util"] is None
