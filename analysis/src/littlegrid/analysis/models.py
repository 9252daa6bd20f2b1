"""Grid-level capacity models: asymptotic bounds, USL, knee, SLO capacity table and the exact M/M/c//N prediction."""

import math
import re

from littlegrid.analysis import mmcn, usl
from littlegrid.analysis.laws import not_made, throughput_bound, verdict
from littlegrid.criteria.grammar import parse
from littlegrid.summary import plain
from littlegrid.summary.model import (BoundPoint, Bounds, Cell, Check, Knee, MmcnPrediction, Models, SloCapacity,
                                      UslFit)

KNEE_EFFICIENCY = 0.9
KNEE_RULE = (f"largest measured N whose throughput is still at least {KNEE_EFFICIENCY:.0%} of the contention-free "
             f"line N/(D+Z); beyond it queueing costs more than {1 - KNEE_EFFICIENCY:.0%} of the throughput")
EXPONENTIAL_THINK = ("exponential", "exp")
POOL_FULL = 0.9  # busy threads / threads.max at which a pool counts as full (the findings use it too)


def latency_slos(criteria) -> list[tuple[str, str, float, bool]]:
    """(criterion text, percentile, threshold ms, strict) for the unscoped "pNN < / <= T" criteria of a grid.

    Criteria are parsed by littlegrid.criteria (the one grammar); scoped ones ("where users <= 40", a label)
    are left to `check`, since a capacity table needs the criterion to hold in every cell.
    """
    out = []
    for text in criteria or ():
        crit = parse(str(text))
        if (re.fullmatch(r"p\d+(\.\d+)?", crit.metric) and crit.op in ("<", "<=")
                and crit.scope.label is None and not crit.scope.where):
            out.append((crit.text or str(text), crit.metric[1:], float(crit.threshold), crit.op == "<"))
    return out


def group_key(axes: dict) -> tuple:
    """Cells that differ only in users (and repetition) form one curve X(N)."""
    return tuple((k, v) for k, v in axes.items() if k not in ("users", "rep", "repetition"))


def curves(cells) -> dict[tuple, list[Cell]]:
    """{group key: [cell, ...] sorted by N} over complete cells with samples in the window. Spikes
    are left out: a burst that runs down has no steady-state X(N) for a curve, a bound or a fit."""
    out = {}
    for c in cells:
        if c.overall is None or not c.overall.count or c.users is None:
            continue
        if c.intended.workload == "spike":
            continue
        out.setdefault(group_key(c.axes), []).append(c)
    for members in out.values():
        members.sort(key=lambda c: c.users.n)
    return out


def think_of(c: Cell) -> float | None:
    """A cell's think time for the models: the intended one, else the realised mean (bare JTLs; a mean within
    the 1 ms rounding below zero is 0), else 0 when no gap was measured; None when think time does not apply
    (a thread's samples overlap: think_time.ThinkSequence), so that no bound is drawn with a made-up Z."""
    if c.intended.think_ms is not None:
        return c.intended.think_ms
    think = c.think_time
    if think is not None and think.sequence.rule == "does not apply":
        return None
    return max(0.0, (think.mean_ms if think is not None else None) or 0.0)


def _curve(key: tuple, members: list) -> dict:
    """The fields every model of one curve shares (model.Curve)."""
    return {"think_ms": think_of(members[0]), "group": dict(key)}


def bounds(key: tuple, members: list[Cell], service) -> Bounds:
    """X(N) ≤ min(N/(D+Z), 1/D_max), R(N) ≥ max(D, N·D_max − Z), N* = (D+Z)/D_max.

    D and D_max come from the grid when the server's c and S are known (D = S, D_max = S/c); otherwise they are
    estimates, marked as such in "basis": D_max = 1/(highest X measured), and D = R at the lightest cell, or its
    R_server when that cell's thread pool is already full. Then its R holds the wait for a thread in front of the
    server (a blocking proxy with 10 threads at N = 20: R = 208 ms for 100 ms of service), and a D with that queue
    in it puts N* and the "lower" bound too high. Only then: R_server leaves out the client's and the network's
    share of D too, which is the larger part where the service itself is short (a 0.05 ms transform).
    """
    z = think_of(members[0])
    if service is not None:
        d, d_max, basis = service.service_ms, service.service_ms / service.servers, "grid: S and c of the server"
    else:
        d = members[0].overall.mean_ms
        basis = "estimated: D = R at the lightest cell, D_max = 1/max X"
        lightest = members[0].server
        r_server, busy = (lightest.service_mean_ms, lightest.busy_threads_mean) if lightest else (None, None)
        pool = (lightest.threads_max if lightest else None) or members[0].axes.get("server.tomcat.threads.max")
        if r_server and busy is not None and pool and busy >= POOL_FULL * float(pool) and r_server < d:
            d = r_server
            basis = "estimated: D = R_server at the lightest cell (its thread pool is full), D_max = 1/max X"
        d_max = 1000.0 / max(c.overall.throughput_per_s for c in members)
    points = [BoundPoint(users=c.users.n,
                         x_upper=min(c.users.n / ((d + z) / 1000.0) if d + z > 0 else math.inf, 1000.0 / d_max),
                         r_lower_ms=max(d, c.users.n * d_max - z)) for c in members]
    return Bounds(**_curve(key, members), d_ms=d, d_max_ms=d_max, n_star=(d + z) / d_max, basis=basis, points=points)


def usl_fit(key: tuple, members: list[Cell]) -> UslFit:
    result = usl.fit([c.users.n for c in members], [c.overall.throughput_per_s for c in members])
    return UslFit.model_validate(plain(_curve(key, members) | result))


def knee(key: tuple, members: list[Cell], bound: Bounds) -> Knee:
    """The knee by KNEE_RULE (None when even the lightest cell is below it)."""
    z, d = think_of(members[0]), bound.d_ms
    users = None
    for c in members:
        line = c.users.n / ((d + z) / 1000.0) if d + z > 0 else math.inf
        if c.overall.throughput_per_s >= KNEE_EFFICIENCY * line:
            users = c.users.n
        else:
            break
    return Knee(**_curve(key, members), users=users, n_star=bound.n_star, rule=KNEE_RULE)


def slo_capacity(key: tuple, members: list[Cell], slos, percentile_of) -> list[SloCapacity]:
    """For each latency criterion, the largest N meeting it at this think time.

    Walks N upwards while the criterion holds; at the first failure, interpolates the percentile linearly
    between the last passing and the first failing N ("interpolated"; "measured" when that lands on the
    passing N). If every N passes, the largest tested N is reported as measured (capacity may be higher);
    if the lightest fails, "none".
    """
    out = []
    for text, percentile, limit, strict in slos:
        last = None
        entry = _curve(key, members) | {"criterion": text, "max_users": None, "how": "none", "note": None}
        for c in members:
            value = percentile_of(c.id, percentile)
            if value is not None and (value < limit if strict else value <= limit):
                last = (c.users.n, value)
                continue
            if last is not None and value is not None:
                n_a, v_a = last
                n_b = c.users.n
                n_cross = n_a + (limit - v_a) * (n_b - n_a) / (value - v_a)
                users = max(n_a, math.floor(n_cross))
                entry |= {"max_users": users, "how": "interpolated" if users > n_a else "measured",
                          "note": f"p{percentile} crosses {limit:g} ms between N = {n_a} and N = {n_b}"}
            break
        else:
            if last is not None:
                entry |= {"max_users": last[0], "how": "measured", "note": "every tested N meets it"}
        out.append(SloCapacity.model_validate(plain(entry)))
    return out


def mmcn_prediction(cell: Cell, service) -> MmcnPrediction | None:
    """Exact M/M/c//N throughput beside the measurement, for exponential think and service times only."""
    think = cell.intended
    if service is None or service.dist != "exp" or think.think_dist not in EXPONENTIAL_THINK:
        return None
    if think.think_ms is None or cell.overall is None or not cell.overall.count:
        return None
    n = int(cell.users.n)
    predicted = mmcn.throughput_per_s(n, service.servers, service.service_ms, think.think_ms)
    measured = cell.overall.throughput_per_s
    # The same model with the service time the server measured and the think time the threads realised:
    # when the grid's S is not what the server delivers (overhead, a loaded host), this tells the two apart.
    measured_s = cell.server.service_mean_ms if cell.server else None
    realised_z = cell.think_time.mean_ms if cell.think_time else None
    with_measured = (mmcn.throughput_per_s(n, service.servers, measured_s, realised_z)
                     if measured_s and realised_z is not None and realised_z >= 0 else None)
    return MmcnPrediction.model_validate(plain({
        "think_ms": think.think_ms, "users": n, "servers": service.servers, "service_ms": service.service_ms,
        "predicted_x": predicted, "measured_x": measured, "rel_error": abs(measured - predicted) / predicted,
        "predicted_r_ms": mmcn.response_ms(n, service.servers, service.service_ms, think.think_ms),
        "measured_r_ms": cell.overall.mean_ms, "measured_service_ms": measured_s,
        "realised_think_ms": realised_z, "predicted_x_measured_inputs": with_measured, "cell": cell.id}))


def mmcn_check(row: MmcnPrediction, cycle_cv: float | None, completions: int, floor: float) -> Check:
    """Measured X against the exact model. Exponential service and think times make X itself noisy: its
    relative standard error is about cycle_cv/√completions (renewal cycles), so the tolerance is
    max(floor, 3 × that), with cycle_cv the measured CV of R+Z per cycle."""
    noise = (cycle_cv or 1.0) / math.sqrt(max(completions, 1))
    tol = max(floor, 3 * noise)
    ok = row.rel_error <= tol
    why = (f"X = {row.measured_x:.2f}/s vs M/M/{row.servers}//{row.users} {row.predicted_x:.2f}/s "
           f"(statistical error of X ≈ {noise:.1%}): "
           + ("the server behaves as the exact model predicts." if ok else
              "the system is not the M/M/c//N the grid describes (service or think time not exponential, "
              "extra servers or overhead)."))
    if not ok and row.predicted_x_measured_inputs:
        why += (f" With the server's measured S = {row.measured_service_ms:.1f} ms and the realised Z = "
                f"{row.realised_think_ms:.1f} ms the model gives {row.predicted_x_measured_inputs:.2f}/s.")
    return verdict("mmcn", row.cell, row.measured_x, row.predicted_x, row.rel_error, tol, ok, why)


def bound_checks(cells: list[Cell], services: dict, tol: dict) -> list[Cell]:
    """X_ok ≤ min(N/(D+Z), c/S) per cell: D = S from the grid, else R of the lightest cell of the same curve.
    Successful completions only: a refused or timed-out connection costs no service time and shortens its
    thread's cycle, so counting it would let X exceed a bound that still holds for the requests served.
    The cells come back in their order, each of a curve with its throughput_bound check added."""
    added = {}
    for members in curves(cells).values():
        lightest = members[0]
        for c in members:
            service = services.get(c.id)
            z = think_of(c)
            x_ok = c.overall.successes_per_s
            if c.intended.rate_per_s:  # open: the timer's waits are not think time
                check = throughput_bound(c.id, x_ok, None, None, None,
                                              service and service.servers, service and service.service_ms,
                                              tol["throughput_bound"], "c/S from the grid")
            elif service is not None:
                check = throughput_bound(c.id, x_ok, c.users.n, z, service.service_ms,
                                              service.servers, service.service_ms, tol["throughput_bound"],
                                              f"D = S = {service.service_ms:g} ms, c = {service.servers} from the grid")
            elif c is lightest:
                check = not_made("throughput_bound", c.id, "the grid does not give c and S, and D is "
                                      "estimated from this cell (the lightest of its curve)")
            else:
                d = lightest.overall.mean_ms
                check = throughput_bound(c.id, x_ok, c.users.n, z, d, None, None,
                                              tol["throughput_bound"], f"D = {d:.1f} ms, R of the lightest cell")
            added[id(c)] = check
    return [c.model_copy(update={"checks": [*c.checks, added[id(c)]]}) if id(c) in added else c for c in cells]


def grid_models(cells: list[Cell], services: dict, slos, percentile_of, tolerances: dict) -> tuple[Models, list]:
    """The contract's "models" block and the grid-level checks (M/M/c//N agreement)."""
    models = {"bounds": [], "usl": [], "knee": [], "slo_capacity": [], "mmcn": []}
    for key, members in curves(cells).items():
        service = services.get(members[0].id)
        if think_of(members[0]) is not None:  # bounds and knee need Z
            bound = bounds(key, members, service)
            models["bounds"].append(bound)
            models["knee"].append(knee(key, members, bound))
        models["usl"].append(usl_fit(key, members))
        models["slo_capacity"].extend(slo_capacity(key, members, slos, percentile_of))
    checks = []
    for c in cells:
        if c.overall is None:
            continue
        row = mmcn_prediction(c, services.get(c.id))
        if row is not None:
            models["mmcn"].append(row)
            checks.append(mmcn_check(row, c.think_time.cycle_cv if c.think_time else None, c.overall.count,
                                     tolerances["mmcn"]))
    return Models(**models), checks
