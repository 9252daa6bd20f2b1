"""`littlegrid analyze`: a run folder or JTL files in, summary.json (statistics, law checks, models) out."""

import functools
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

from littlegrid import cells as cells_mod
from littlegrid import findings, histogram, laws, models, server_metrics, summary
from littlegrid.blocks import BlockHistograms
from littlegrid.criteria import parse
from littlegrid.criteria_eval import evaluate
from littlegrid.error_classes import classify, error_types
from littlegrid.findings import expect
from littlegrid.int_sort import sort_ints
from littlegrid.jtl_options import add_reader_arguments, reader_options
from littlegrid.series import label_series, time_series
from littlegrid.stats import nearest_rank, sample_stats, stats_by_label
from littlegrid.think_time import RULE_EVERY, RULE_NONE, think_sequence, think_time_stats, thread_keys
from littlegrid.usererror import UserError
from littlegrid.window import EmptyWindow, in_window, steady_window, window_mask

# The columns the window's copy carries (not messages, URL, bytes…: at millions of rows every column costs).
WINDOW_COLUMNS = ["start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "label", "thread", "host"]
# The table columns the analysis reads: URL, bytes… are never parsed (a third of a default JTL). IdleTime
# gives a transaction's whole span (its timers), which tells the samplers it wraps.
ANALYZED_FIELDS = ("start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "idle_ms", "label", "success",
                   "response_code", "response_message", "failure_message", "thread", "all_threads", "host")
# Read only for the statistics per label (bytes received and sent per sample).
LABEL_FIELDS = ("bytes", "sent_bytes")
LABEL_COLUMNS = ["start_ms", "end_ms", "elapsed_ms", "latency_ms", "connect_ms", "label", *LABEL_FIELDS]
HELP = "steady-state statistics, queueing-law checks and capacity models of a run folder or JTL files -> summary.json"
EXAMPLES = [
    "littlegrid analyze reports/<run-id>",
    "littlegrid analyze results.jtl --warmup 5 --cooldown 2 --json results.summary.json",
    "littlegrid analyze engine1.jtl engine2.jtl --by-label --json -",
]


def add_arguments(parser) -> None:
    parser.add_argument("inputs", nargs="+", metavar="RUN_DIR|JTL", help="a run folder, or JTL files forming one cell")
    parser.add_argument("--json", metavar="FILE", help="where to write (default RUN_DIR/summary.json, or "
                        "<first JTL>.summary.json); '-' prints to stdout")
    parser.add_argument("--warmup", type=float, metavar="S", help="seconds trimmed after the first sample's start "
                        "(default: the cell's warmup_s, else 0)")
    parser.add_argument("--cooldown", type=float, metavar="S", help="seconds trimmed before the last sample's end "
                        "(default: the cell's cooldown_s, else 0)")
    parser.add_argument("--by-label", action="store_true", help="also compute the statistics per label "
                        "(always done for JTL files)")
    parser.add_argument("--force", action="store_true", help="overwrite FILE even if it is not a littlegrid summary")
    add_reader_arguments(parser)


def _threads_of_open_plan(cell, n):
    """The open plan's pool: its `threads` property when set (the plan sizes it by Little's law otherwise)."""
    return cells_mod.number(cell.properties.get("threads")) or n


def _percentile_lookup(sorted_elapsed: dict):
    def percentile_of(cell_id, percentile):
        values = sorted_elapsed.get(cell_id)
        return nearest_rank(values, percentile) if values is not None and len(values) else None
    return percentile_of


def _interarrival_cv(window_samples: pd.DataFrame):
    """CV of the merged inter-arrival times (sample starts) in the window, and the number of arrivals."""
    starts = sort_ints(window_samples["start_ms"].to_numpy(dtype=np.int64))
    if len(starts) < 3:
        return None, len(starts)
    gaps = np.diff(starts).astype(float)
    return (float(gaps.std(ddof=1) / gaps.mean()) if gaps.mean() > 0 else None), len(starts)


def _users(cell, samples, steady, keys) -> dict:
    """N = plan users × engines (allThreads is per engine, never summed); bare JTLs: the threads seen.
    `keys`: thread_keys(steady)."""
    # keys are small integers (host code × thread code): counting them beats np.unique's sort of millions
    small = len(keys) and int(keys.max()) < 4 * len(keys) + (1 << 20)
    threads_seen = int(np.count_nonzero(np.bincount(keys)) if small else len(np.unique(keys)))
    all_threads_max = samples["all_threads"].max()  # nulls skipped, no copy
    from_plan = cell.plan_users is not None
    return {"n": cell.plan_users * (cell.engines or 1) if from_plan else threads_seen,
            "plan_users": cell.plan_users, "engines": cell.engines,
            "all_threads_max": None if pd.isna(all_threads_max) else int(all_threads_max),
            "threads_seen": threads_seen,
            "basis": "plan users × engines" if from_plan else "threads seen in the window"}


def _cell_checks(cell, entry: dict, steady, tol: dict) -> list:
    """The per-cell law checks that apply: closed law (not for a spike); users from a manifest; think-time
    fidelity for closed cells, arrival-rate checks for open ones; Little's law at the server when it
    reported metrics."""
    users, think, o, T = entry["users"], entry["think_time"], entry["overall"], entry["window"]["length_s"]
    n, x, r = users["n"], o["throughput_per_s"], o["mean_ms"]
    spike = cell.workload == "spike"  # users released at once run down one by one: no steady state to check
    checks = [laws.not_made("closed_law", cell.id, "a spike has no steady state (its users finish one by one); "
                            "the time series and the error classes tell what the server did with the burst")
              if spike else _closed_law(cell.id, n, cell.plan_users is None, x, r, think, T, tol["closed_law"],
                                        entry["reading"]["transaction_rows_excluded"])]
    if cell.plan_users is not None:
        checks.append(laws.users_count(cell.id, n, users["all_threads_max"], cell.engines, users["threads_seen"]))
    if cell.rate_per_s and not spike:
        cv, arrivals = _interarrival_cv(steady)
        checks += [laws.open_rate(cell.id, x, cell.rate_per_s, T, tol["open_rate"]),
                   laws.interarrival_cv(cell.id, cv, arrivals, tol["interarrival_cv"]),
                   laws.generator_sizing(cell.id, cell.rate_per_s, r, _threads_of_open_plan(cell, n),
                                         tol["generator_sizing"])]
    elif cell.intended_think_ms is not None and not spike:
        checks += [laws.think_time_fidelity(cell.id, think["mean_ms"], cell.intended_think_ms, r, think["sd_ms"],
                                            think["gaps"], tol["think_time"]),
                   laws.workload_fidelity(cell.id, n, x, r, cell.intended_think_ms, T, tol["workload"],
                                          think["sd_ms"], think["gaps"])]
    srv = entry["server"]
    if srv is not None:
        srv.update(server_metrics.in_front_of_server(x, r, srv, steady=not spike))
        srv["client_minus_server_ms"] = srv["wait_in_front_ms"]  # the older name of the same figure
    if srv is not None and not spike:  # 1 Hz counters cannot resolve a burst that lasts a few seconds
        checks.append(laws.server_little(cell.id, srv["in_flight_mean"], srv["in_flight_se"],
                                         srv["throughput_per_s"], srv["service_mean_ms"], srv["in_flight_source"],
                                         tol["server_little"]))
    return checks


def _closed_law(cell_id, n, n_seen: bool, x, r, think: dict, window_s, floor, transaction_rows: int):
    """N = X·(R+Z) on the sequence think time was measured on: the samples themselves (X and R as reported), the
    outermost ones (their own X and R, since Z runs between them), or none when a thread's samples overlap.
    n_seen (bare JTLs: nobody says how many users ran, N is the threads seen): when fewer threads were active on
    average than were seen (ramp-up, early exits, an Ultimate Thread Group inside the window), N was not constant
    and the law with one N does not apply; saying it failed would misread the test."""
    seq = think["sequence"]
    if seq["rule"] == RULE_NONE:
        return laws.does_not_apply("closed_law", cell_id, seq["text"].removeprefix("does not apply: "))
    active, z = seq["active_threads"], think["mean_ms"]
    r_seq = r if seq["rule"] == RULE_EVERY else seq["mean_ms"]
    # the deficit of active threads the check itself would tolerate (its window error, 3 standard errors)
    slack = (max(floor, 3 * laws.window_error((r_seq + z) / 1000.0, window_s, n))
             if None not in (n, r_seq, z) and n > 0 and window_s > 0 else floor)
    if n_seen and n and active is not None and active < (1 - slack) * n:
        return laws.does_not_apply("closed_law", cell_id, (
            f"the number of active threads changes inside the window ({n:g} threads seen, {active:.1f} active on "
            f"average: ramp-up, early exits or a stepping thread group); --warmup and --cooldown can trim the "
            f"window to the part where all of them ran"))
    if seq["rule"] == RULE_EVERY and not transaction_rows:
        return laws.closed_law(cell_id, n, x, r, think["mean_ms"], window_s, floor)
    return laws.closed_law(cell_id, n, seq["throughput_per_s"], seq["mean_ms"], think["mean_ms"], window_s, floor,
                           basis=f"X and R of the {seq['rule']} ({seq['count']:,} in the window)")


def _think_time(table, window, keys, cell, transactions) -> dict:
    """Realised think time on `table`: every row, Transaction Controller rows (labels `transactions`) included."""
    seq = think_sequence(table, window, thread_keys(table) if keys is None else keys, transactions)
    gaps = seq.gaps if seq.gaps is not None else pd.DataFrame({"key": [], "gap_ms": [], "cycle_ms": []}, dtype=np.int64)
    return think_time_stats(gaps, cell.think_dist, cell.think_offset_ms) | {"sequence": seq.as_dict(window.length_s)}


def _sample_figures(entry, samples, everything, transactions, window, keys, cell, by_label):
    """Fills the entry's overall, labels and users; returns the window's rows, their sorted elapsed times, the
    error class of every sample and whether each of the window's rows failed (as overall counts it)."""
    mask = window_mask(samples, window)
    steady = in_window(samples, window, WINDOW_COLUMNS, mask)
    all_classes = classify(samples)  # on the full table: the window's copy need not carry the messages
    classes = all_classes if steady is samples else all_classes[mask]  # same rows and index as `steady`
    T = window.length_s
    elapsed_sorted = sort_ints(steady["elapsed_ms"].to_numpy(dtype=np.int64))
    entry["overall"] = sample_stats(steady, classes, T, elapsed_sorted)
    if by_label:  # on every row, transactions included: they keep their own per-label statistics
        everything_classes = classify(everything) if transactions else all_classes
        types = error_types(everything)
        everything_mask = window_mask(everything, window)
        labelled = in_window(everything, window, LABEL_COLUMNS, everything_mask)
        whole = labelled is everything  # every row in the window: no copies
        entry["labels"] = stats_by_label(labelled, everything_classes if whole else everything_classes[everything_mask],
                                         T, types if whole else types[everything_mask], transactions)
        entry["errors"] = _error_tables(types if steady is everything else
                                        types[mask] if everything is samples else types.reindex(steady.index), T)
        entry["label_series"] = label_series(everything, everything_classes.notna().to_numpy(), window)
    entry["users"] = _users(cell, samples, steady, keys if steady is samples else thread_keys(steady))
    return steady, elapsed_sorted, all_classes, classes.notna().to_numpy()


ERROR_TYPES_MAX = 100  # error types listed; messages with ids or timestamps in them could make thousands


def _error_tables(types: pd.Series, window_s: float) -> dict:
    """The window's errors by type (JMeter's "Errors" table), largest first (ties by type): count, share of the
    errors, rate; the ERROR_TYPES_MAX largest, the others counted in types_not_listed / errors_not_listed."""
    counts = types.dropna().value_counts()
    counts = counts[counts > 0]
    total = int(counts.sum())
    rows = sorted(((str(t), int(n)) for t, n in counts.items()), key=lambda r: (-r[1], r[0]))
    rest = rows[ERROR_TYPES_MAX:]
    return {"by_type": [{"type": t, "count": n, "share_of_errors": n / total,
                         "per_s": n / window_s if window_s > 0 else None} for t, n in rows[:ERROR_TYPES_MAX]],
            "types_not_listed": len(rest), "errors_not_listed": sum(n for _, n in rest)}


def analyze_cell(cell, warmup_s, cooldown_s, by_label, tol, read_jtl, bare=False):
    """One cell's summary entry (contract §5), its sorted elapsed times (for grid-level percentiles) and the
    window's (elapsed_ms, end_ms, failed) in file order (a search's intervals resample them by second), None
    without."""
    entry = {"id": cell.id, "axes": cell.axes, "status": cell.status, "reason": cell.reason, "warnings": [],
             "reading": None, "window": None, "users": None,
             "intended": {"think_ms": cell.intended_think_ms, "think_dist": cell.think_dist,
                          "think_offset_ms": cell.think_offset_ms if cell.think_dist == "poisson" else None,
                          "rate_per_s": cell.rate_per_s, "workload": cell.workload},
             "overall": None, "labels": {}, "errors": None, "label_series": None, "think_time": None, "server": None, "host": None, "series": None,
             "histogram": None, "checks": []}
    if not cell.jtl_paths:
        return entry, None, None
    try:
        reading = read_jtl([str(p) for p in cell.jtl_paths],
                           fields=ANALYZED_FIELDS + (LABEL_FIELDS if by_label else ()))
    except UserError as e:
        if bare:  # the user's own file: their mistake, said in one line
            raise
        entry["reason"] = "; ".join(filter(None, [entry["reason"], str(e)]))  # one bad cell does not sink the run
        return entry, None, None
    everything = reading.samples
    # Transaction Controller parents sit beside their samplers in a CSV JTL: counting them would count each
    # request twice and break every per-thread cycle; they keep their own per-label statistics.
    transactions = frozenset(getattr(reading, "transaction_labels", ()) or ())
    samples = everything[~everything["label"].isin(transactions)] if transactions else everything
    entry["reading"] = {"rows_read": reading.rows_read,
                        "rows_skipped": int(getattr(reading, "skipped_total", 0)),
                        "transaction_rows_excluded": int(len(everything) - len(samples)),
                        "absent_columns": list(reading.absent_columns), "format": reading.format}
    entry["warnings"].extend(reading.warnings)
    warmup = warmup_s if warmup_s is not None else (cell.warmup_s or 0.0)
    cooldown = cooldown_s if cooldown_s is not None else (cell.cooldown_s or 0.0)
    try:
        window = steady_window(samples, warmup, cooldown)
    except EmptyWindow as e:
        if bare:  # the user's input cannot be analysed at all
            raise UserError(f"{cell.jtl_paths[0]}: {e}") from None
        entry["reason"] = "; ".join(filter(None, [entry["reason"], f"no steady window: {e}"]))
        return entry, None, None
    entry["window"] = window.as_dict()
    keys = thread_keys(samples)  # shared by the users count and the gaps (the window's rows, when untrimmed)
    # The think-time figures (a sort by thread, two gathers, a sort of the gaps) run beside the sample
    # statistics: NumPy releases the GIL in both, and two cores take ~0.3 s off a 5 M-sample cell. Both
    # branches only read `samples`; neither may add or change a column while the other runs.
    with ThreadPoolExecutor(max_workers=1) as worker:
        think = worker.submit(_think_time, everything, window, keys if everything is samples else None, cell,
                              transactions)
        steady, elapsed_sorted, all_classes, steady_failed = _sample_figures(entry, samples, everything, transactions,
                                                                             window, keys, cell, by_label)
        end_ms = steady["end_ms"].to_numpy()
        entry["histogram"] = histogram.cell_histogram(elapsed_sorted, end_ms, entry["window"])
        entry["histogram"]["blocks"] = BlockHistograms.from_samples(
            steady["elapsed_ms"].to_numpy(), end_ms, window.start_ms, window.end_ms,
            np.asarray(entry["histogram"]["elapsed_ms"]["values"], np.int64)).as_summary()
        server_frame = server_metrics.read_metrics(cell.server_metrics)
        host_frame = server_metrics.read_metrics(cell.host_metrics)
        entry["server"] = server_metrics.server_figures(server_frame, window)
        entry["host"] = server_metrics.host_figures(host_frame, window)
        entry["series"] = time_series(samples, all_classes.notna().to_numpy(), window, cell.engines, server_frame,
                                      host_frame)
        entry["think_time"] = think.result()
    del keys

    entry["checks"] = [c.as_dict() for c in _cell_checks(cell, entry, steady, tol)]
    return entry, elapsed_sorted, (steady["elapsed_ms"].to_numpy(), steady["end_ms"].to_numpy(), steady_failed)


def _bound_checks(entries: list, services: dict, tol: dict) -> None:
    """X_ok ≤ min(N/(D+Z), c/S) per cell: D = S from the grid, else R of the lightest cell of the same curve.
    Successful completions only: a refused or timed-out connection costs no service time and shortens its
    thread's cycle, so counting it would let X exceed a bound that still holds for the requests served."""
    for members in models.curves(entries).values():
        lightest = members[0]
        for c in members:
            service = services.get(c["id"])
            z = models.think_of(c)
            x_ok = c["overall"]["successes_per_s"]
            if c["intended"].get("rate_per_s"):  # open: the timer's waits are not think time
                check = laws.throughput_bound(c["id"], x_ok, None, None, None,
                                              service and service.servers, service and service.service_ms,
                                              tol["throughput_bound"], "c/S from the grid")
            elif service is not None:
                check = laws.throughput_bound(c["id"], x_ok, c["users"]["n"], z, service.service_ms,
                                              service.servers, service.service_ms, tol["throughput_bound"],
                                              f"D = S = {service.service_ms:g} ms, c = {service.servers} from the grid")
            elif c is lightest:
                check = laws.not_made("throughput_bound", c["id"], "the grid does not give c and S, and D is "
                                      "estimated from this cell (the lightest of its curve)")
            else:
                d = lightest["overall"]["mean_ms"]
                check = laws.throughput_bound(c["id"], x_ok, c["users"]["n"], z, d, None, None,
                                              tol["throughput_bound"], f"D = {d:.1f} ms, R of the lightest cell")
            c["checks"].append(check.as_dict())


def _trim(entries, warmup_s, cooldown_s) -> dict:
    def one(flag, key):
        if flag is not None:
            return flag
        values = {e["window"][key] for e in entries if e["window"]}
        return values.pop() if len(values) == 1 else None  # None: differs per cell, see each cell's window
    return {"warmup_s": one(warmup_s, "warmup_s"), "cooldown_s": one(cooldown_s, "cooldown_s"),
            "basis": "first sample"}


def _label_scoped(criteria) -> bool:
    """Whether a grid criterion is scoped to a label: it needs the per-label statistics, whatever the flag says."""
    if not criteria:
        return False
    return any(parse(c).scope.label is not None for c in criteria)


def _evaluate_criteria(criteria, result: dict) -> list:
    if not criteria:
        return []
    return evaluate(list(criteria), result)


def analyze(inputs, warmup_s=None, cooldown_s=None, by_label=False, read_options=None) -> dict:
    """The summary (contract §5) of a run folder or JTL files; nothing is written. The capacity table's latency
    objectives are the grid's unscoped latency criteria, the tolerances the grid's [tolerances].
    read_options: read_jtl keywords for every JTL (littlegrid.jtl_options: --columns, --jmeter-properties...).
    """
    from littlegrid.jtl import read_jtl
    if read_options:
        read_jtl = functools.partial(read_jtl, **read_options)
    for name, value in (("--warmup", warmup_s), ("--cooldown", cooldown_s)):
        if value is not None and value < 0:
            raise UserError(f"{name} {value:g}: must be 0 or more seconds")
    found = cells_mod.discover(list(inputs))
    # a JTL is one test whose labels are what its user reads first; a grid's cells get them when asked
    by_label = by_label or found.run["source"] == "jtl" or _label_scoped(found.criteria)
    overrides = dict(found.tolerances)
    unknown = sorted(set(overrides) - set(laws.DEFAULT_TOLERANCES))
    if unknown:
        raise UserError(f"[tolerances]: unknown name {unknown[0]!r} (known: {', '.join(laws.DEFAULT_TOLERANCES)})")
    tol = laws.tolerances(overrides)
    entries, sorted_elapsed = [], {}
    for cell in sorted(found.cells, key=lambda c: c.index):
        entry, elapsed, _ = analyze_cell(cell, warmup_s, cooldown_s, by_label, tol, read_jtl,
                                         bare=found.run["source"] == "jtl")
        entries.append(entry)
        if elapsed is not None:
            sorted_elapsed[cell.id] = elapsed
    services = {c.id: c.service for c in found.cells if c.service is not None}
    _bound_checks(entries, services, tol)
    slos = models.latency_slos(found.criteria)
    grid_models, grid_checks = models.grid_models(entries, services, slos, _percentile_lookup(sorted_elapsed), tol)
    result = summary.skeleton(found.run, _trim(entries, warmup_s, cooldown_s), found.axes)
    result["tolerances"] = tol
    result["cells"] = entries
    result["models"] = grid_models
    result["checks"] = [c.as_dict() for c in grid_checks]
    result = summary.plain(result)
    result["criteria"] = summary.plain(_evaluate_criteria(found.criteria, result))
    # the last stage: a pure function of everything above (littlegrid.findings, docs/analysis.md "Findings")
    result["findings"] = summary.plain(findings.as_json(findings.findings(result)))
    result["expectations"] = summary.plain(expect.evaluate(found.run.get("expect") or [], result, result["findings"]))
    return result


def _default_output(inputs: list) -> Path:
    first = Path(inputs[0])
    return first / summary.NAME if first.is_dir() else first.with_name(first.name + "." + summary.NAME)


def _refuse_foreign(path: Path) -> None:
    """Only a littlegrid summary is overwritten without --force (a mistyped --json must not eat a JTL)."""
    if not path.exists():
        return
    try:
        summary.read(path)
    except UserError as e:
        if "written by an older littlegrid" in str(e):  # our own file, an earlier schema: analyze upgrades it
            return
        raise UserError(f"{path}: exists and is not a littlegrid summary; use --force to overwrite it") from None


def main(args) -> int:
    result = analyze(args.inputs, warmup_s=args.warmup, cooldown_s=args.cooldown, by_label=args.by_label,
                     read_options=reader_options(args))
    failed = [c for e in result["cells"] for c in e["checks"] if c["passed"] is False] + \
             [c for c in result["checks"] if c["passed"] is False]
    if args.json == "-":
        import json
        json.dump(result, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    out = Path(args.json) if args.json else _default_output(args.inputs)
    if not args.force:
        _refuse_foreign(out)
    summary.write(result, out)
    print(f"wrote {out}: {len(result['cells'])} cells, {len(failed)} checks failed"
          + "".join(f"\n  {c['cell'] or 'grid'}: {c['name']}: {c['explanation']}" for c in failed[:20]))
    return 0
