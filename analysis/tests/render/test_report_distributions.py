"""Distribution page data: overlays grouped the right way, think-time overlays drawn as the summary holds them."""

from littlegrid.render import distributions
from littlegrid.summary.model import Summary


def cells_of(summary: dict):
    return Summary.model_validate(summary).cells


def _think_cell(summary: dict, expo, pois) -> dict:
    """The first cell with think time, its histogram's expected counts set to `expo` and `pois`."""
    cell = next(c for c in summary["cells"] if c["think_time"])
    h = cell["think_time"]["histogram"]
    h["edges_ms"], h["counts"] = [0.0, 10.0, 20.0, 30.0], [5, 3, 1]
    h["expected_exponential"], h["expected_poisson"] = expo, pois
    return cell


def test_the_think_time_chart_draws_the_expected_counts_the_summary_holds_and_computes_none(golden_summary):
    # counts no distribution of the cell's mean would give: the chart can only have read them
    cell = _think_cell(golden_summary, [4.5, 3.25, 2.125], [1.5, 6.0, 0.75])
    (chart, *_) = distributions.think_charts(cells_of(golden_summary))
    assert chart["x"] == [5, 15, 25]
    assert [(s["label"], s["values"]) for s in chart["series"]] == [
        ("realised", [5, 3, 1]), ("exponential, same mean", [4.5, 3.25, 2.125]),
        ("Poisson, same mean (JMeter Poisson timer)", [1.5, 6.0, 0.75])]
    assert cell["id"] in chart["title"]


def test_without_stored_expected_counts_the_think_time_chart_shows_the_realised_bars_alone(golden_summary):
    _think_cell(golden_summary, None, None)  # a summary of an older littlegrid, or a test not made
    (chart, *_) = distributions.think_charts(cells_of(golden_summary))
    assert [s["label"] for s in chart["series"]] == ["realised"]


def test_overlays_per_n_need_two_think_times_and_overlays_per_think_time_list_every_n(golden_summary):
    pdf = distributions.overlay_charts(Summary.model_validate(golden_summary), "pdf")
    assert len(pdf["fixed_n"]) == 3 and all(len(c["series"]) == 2 for c in pdf["fixed_n"])
    assert len(pdf["fixed_z"]) == 2 and [s["label"] for s in pdf["fixed_z"][0]["series"]] == ["N = 1", "N = 5", "N = 20"]
    ccdf = distributions.overlay_charts(Summary.model_validate(golden_summary), "ccdf")
    assert ccdf["fixed_z"][0]["log_x"] and ccdf["fixed_z"][0]["log_y"]
    assert all(v is None or v > 0 for s in ccdf["fixed_z"][0]["series"] for v in s["values"])
    assert "(α = " in ccdf["fixed_z"][0]["series"][0]["label"]


def test_think_time_charts_show_the_poisson_overlay_only_where_the_analysis_fitted_the_poisson_timer(golden_summary):
    charts = distributions.think_charts(cells_of(golden_summary))
    assert len(charts) == 3  # the cells with 50 ms think time; Z = 0 has no gaps to show
    assert [s["label"] for s in charts[0]["series"]] == ["realised", "exponential, same mean",
                                                          "Poisson, same mean (JMeter Poisson timer)"]
    for c in golden_summary["cells"]:  # what analyze writes for an exponential timer: no Poisson fit, no counts
        if c["think_time"]:
            c["think_time"]["ks_poisson"] = c["think_time"]["histogram"]["expected_poisson"] = None
    assert all(len(c["series"]) == 2 for c in distributions.think_charts(cells_of(golden_summary)))
