"""The search strategy against simulated systems whose answers are known on paper (no JMeter)."""

import math

import pytest

from littlegrid.search.slo import Figure
from littlegrid.search.strategy import Probe, Space, next_step, remaining
from simulated import ClosedMMc, drive, exact_probe, sampled_probe

SLO = "p90 < 300ms"
MMC = ClosedMMc(servers=10, service_ms=100.0)


def test_the_simulated_system_is_the_textbook_one():
    # N ≤ c: R is the service time alone, p90 = S·ln 10; beyond, each extra user adds S/c to the mean wait
    assert MMC.quantile(5, 0.9) == pytest.approx(100 * math.log(10), rel=1e-9)
    assert MMC.quantile(16, 0.9) == pytest.approx(293.47, abs=0.01)
    assert MMC.quantile(17, 0.9) == pytest.approx(304.01, abs=0.01)


def test_exact_probes_find_the_largest_n_whose_p90_is_under_300ms_in_at_most_12_probes():
    truth = max(n for n in range(1, 81) if MMC.quantile(n, 0.9) < 300)
    answer, probes = drive(Space("users", 1, 80), lambda n, k, longer: exact_probe(MMC, SLO, n))
    assert truth == 16
    assert answer.kind == "found" and answer.load == truth and answer.above.load == truth + 1
    assert answer.separated
    assert len(probes) <= 12
    assert len({p.load for p in probes}) == len(probes)  # exact probes need no repeats


def test_a_stated_service_time_jumps_straight_to_the_boundary():
    answer, probes = drive(Space("users", 1, 80, service=(10, 100.0)), lambda n, k, l: exact_probe(MMC, SLO, n))
    assert answer.load == 16
    assert len(probes) < 7


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_noisy_20_second_probes_answer_within_one_user_and_say_whether_the_intervals_separate(seed):
    answer, probes = drive(Space("users", 1, 80), lambda n, k, l: sampled_probe(MMC, SLO, n, seed * 100 + k))
    assert answer.kind == "found"
    assert answer.load in (15, 16, 17)  # p90 at 15, 16, 17: 283, 293, 304 ms; 20 s cells resolve ±10 ms
    assert len(probes) <= 20  # 12 distinct loads at most, plus at most 3 repeats at each side of the boundary
    at, above = answer.at, answer.above
    assert at.passes and not above.passes and above.load == answer.load + 1
    if answer.separated:
        assert at.figures[0].hi < 300 <= above.figures[0].lo
    else:
        assert max(at.repeats, above.repeats) == 3  # it repeated as much as it may before saying so
    assert len({p.load for p in probes}) <= 12


def test_an_invalid_probe_is_rerun_lengthened_and_never_used():
    calls = []

    def probe(n, attempt, lengthen):
        calls.append((n, attempt, lengthen))
        if n == 16 and attempt == 0:
            return Probe(16, None, False, "closed_law: X·(R+Z) = 14.1 but N = 16")
        return exact_probe(MMC, SLO, n)

    answer, probes = drive(Space("users", 1, 80), probe)
    assert answer.load == 16
    assert (16, 1, True) in calls  # the rerun is lengthened
    assert [p.load for p in probes].count(16) == 2


def test_a_load_that_stays_invalid_ends_the_search_without_an_answer():
    answer, probes = drive(Space("users", 1, 80),
                           lambda n, k, l: Probe(n, None, False, "generator sizing") if n == 8 else
                           exact_probe(MMC, SLO, n))
    assert answer.kind == "invalid" and answer.load is None
    assert [p.load for p in probes].count(8) == 3 and "generator sizing" in answer.why


def test_an_slo_never_met_answers_none_below_min():
    answer, probes = drive(Space("users", 5, 80), lambda n, k, l: exact_probe(MMC, "p90 < 200ms", n))
    assert answer.kind == "none" and answer.load is None and answer.above.load == 5
    assert [p.load for p in probes] == [5]


def test_an_slo_always_met_answers_at_least_max():
    answer, probes = drive(Space("users", 1, 40), lambda n, k, l: exact_probe(MMC, "p90 < 2s", n))
    assert answer.kind == "all" and answer.load == 40
    assert probes[-1].load == 40 and len(probes) <= 7


def test_a_first_failure_above_min_probes_min_itself():
    probes = [exact_probe(MMC, SLO, 30)]
    step = next_step(Space("users", 1, 80), probes)
    assert step.load == 1


def _open_probe(rate: float, service_ms: float = 20.0) -> Probe:
    """M/M/1 at rate λ: R is exponential with mean S/(1−ρ), so p90 = ln 10 · S/(1−ρ)."""
    rho = rate * service_ms / 1000.0
    mean = service_ms / (1 - rho) if rho < 1 else 1e9
    p90 = math.log(10) * mean
    fig = Figure(SLO, "p90", p90, p90 * 0.99, p90 * 1.01, 300.0, True)
    return Probe(rate, (fig,), True, mean_ms=mean, throughput_per_s=rate, duration_s=30)


def test_an_open_rate_search_ends_within_2_percent_of_the_exact_rate():
    # p90 = 300 ms where 1 − ρ = ln 10 · 20/300: λ = (1 − 0.1535) / 0.020 = 42.32/s
    exact = (1 - math.log(10) * 20 / 300) / 0.020
    answer, probes = drive(Space("rate_per_s", 5, 49), lambda r, k, l: _open_probe(r))
    assert answer.kind == "found"
    assert answer.load < exact < answer.above.load
    assert answer.above.load - answer.load <= 0.02 * answer.load
    assert len(probes) <= 12


def test_a_trusted_jump_names_its_basis_in_the_workload_s_words_and_says_when_doubling_caps_it():
    # open M/M/1, S = 20 ms: 10/s queues (R = 25 ms against 20.4 ms at 5/s), so D_max is measured; the model
    # puts the boundary far above, and a trusted jump never more than doubles the load
    step = next_step(Space("rate_per_s", 5, 49), [_open_probe(5), _open_probe(10)])
    assert step.load == 20
    assert step.why.startswith("model (queueing measured): boundary near ")
    assert step.why.endswith(", at most doubling the load") and "knee" not in step.why
    # closed M/M/10//N, S = 100 ms: X = 100/s at N = 12 is past the knee; the boundary N = 14 is within doubling
    step = next_step(Space("users", 1, 80), [exact_probe(MMC, SLO, n) for n in (1, 12)])
    assert step.why == "model (past the knee): boundary near N = 14"
    assert step.load == 15


def test_the_remaining_estimate_shrinks_to_zero_at_the_answer():
    space, probes = Space("users", 1, 80), []
    seen = [remaining(space, probes)]
    while not hasattr(step := next_step(space, probes), "kind"):
        probes.append(exact_probe(MMC, SLO, step.load))
        seen.append(remaining(space, probes))
    assert seen[0] >= len(probes) - 2 and seen[-1] <= 1


def _on_threshold_at_17(n, rel):
    """MMC's probes, but p90 = 300 ms·N/17: at N = 17 exactly on the threshold, known to ±rel."""
    p = exact_probe(MMC, SLO, n)
    value = 300.0 * n / 17
    f = p.figures[0]
    return Probe(n, (type(f)(f.criterion, f.metric, value, value * (1 - rel), value * (1 + rel), f.threshold,
                             f.strict),), True, mean_ms=p.mean_ms, throughput_per_s=p.throughput_per_s,
                 think_ms=0.0, duration_s=p.duration_s)


def test_a_precise_search_does_not_repeat_a_load_whose_figure_is_on_the_threshold_at_the_precision_asked():
    """p90 at N = 17 is 300 ms [297, 303]: known to ±1%, within the ±2% asked, and still reaching the threshold.
    Repeats would narrow an interval around the threshold itself and never separate it: a precise search answers
    at once and says the boundary sits on the threshold; a fixed search (no precision) repeats as before, and a
    figure less precise than asked (±2.5%) is repeated until the repeats make it so (±2.5%/√2 = ±1.8%)."""
    precise, probes = drive(Space("users", 1, 80, precision=0.02), lambda n, k, l: _on_threshold_at_17(n, 0.01))
    assert precise.kind == "found" and precise.load == 16 and precise.above.load == 17
    assert not precise.separated and precise.above.repeats == 1
    assert "sits on the threshold: at N = 17 the figure is known to the ±2% asked" in precise.why
    fixed, fixed_probes = drive(Space("users", 1, 80), lambda n, k, l: _on_threshold_at_17(n, 0.01))
    assert fixed.load == 16 and fixed.above.repeats == 3 and len(fixed_probes) == len(probes) + 2
    assert fixed.why == "the intervals do not separate from the threshold after 3 probes per load"
    wide, _ = drive(Space("users", 1, 80, precision=0.02), lambda n, k, l: _on_threshold_at_17(n, 0.025))
    assert wide.above.repeats == 2 and not wide.separated
