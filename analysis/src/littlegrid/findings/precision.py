"""Figures written at the precision their interval supports: the one formatter the headline and the findings use.

A figure known to ±78 is not worth four significant digits: it is rounded at the decimal place of its interval's
half-width's leading digit (885.3 with 812.2 to 967.8, half-width 77.8 → the tens → 890), never to fewer than one
significant digit of its own. A figure without an interval is exact as far as this run goes (a count, a setting)
and is written as given."""

from __future__ import annotations

import math


def _place(value: float, half_width: float) -> int:
    """The decimal exponent to round at: the half-width's leading digit, but never past the value's own leading
    digit (a figure is never rounded to 0)."""
    place = math.floor(math.log10(half_width))
    if value:
        place = min(place, math.floor(math.log10(abs(value))))
    return place


def _at(value: float, place: int, way=round) -> str:
    """The value rounded at 10**place (`way`: round, or math.floor / math.ceil for an interval's ends, which are
    rounded outwards so that no interval is written narrower than it is; 1e-9 absorbs binary fractions such as
    3.55/0.1 = 35.4999…)."""
    scaled = value / 10 ** place
    nudge = 0.0 if way is round else (1e-9 if way is math.floor else -1e-9)
    rounded = way(scaled + nudge) * 10 ** place
    return f"{rounded:.{max(0, -place)}f}"


def _ends(low: float, high: float, place: int) -> tuple[str, str]:
    return _at(low, place, math.floor), _at(high, place, math.ceil)


def _half_width(value: float, low: float | None, high: float | None) -> float | None:
    if low is None or high is None:
        return None
    half = max(high - value, value - low, (high - low) / 2)
    return half if half > 0 and math.isfinite(half) else None


def figure(value: float, low: float | None = None, high: float | None = None) -> str:
    """The value at the precision of [low, high]; as given (Python's shortest form) without an interval."""
    half = _half_width(value, low, high)
    return f"{value:g}" if half is None else _at(value, _place(value, half))


def interval(value: float, low: float, high: float, unit: str = "") -> str:
    """"about 890% (810% to 970%)": the value and the ends of its interval, all at the interval's precision."""
    half = _half_width(value, low, high)
    if half is None:
        return f"{value:g}{unit}"
    place = _place(value, half)
    lo, hi = _ends(low, high, place)
    return f"about {_at(value, place)}{unit} ({lo}{unit} to {hi}{unit})"


def about(value: float, low: float | None = None, high: float | None = None, unit: str = "") -> str:
    """"about 890%" with an interval, the value as given without one ("0.61 ms")."""
    half = _half_width(value, low, high)
    return f"{value:g}{unit}" if half is None else f"about {_at(value, _place(value, half))}{unit}"


def ratio(rel: float, rel_low: float, rel_high: float, what: str = "") -> str:
    """A relative change b/a − 1 with its interval, as the ratio a reader repeats: "about 9.9× (9.1× to 10.7×)"
    when it is at least 2× or at most ½×, else as a percentage change: "about +12% (+8% to +16%)". `what` names
    the figure: "about 9.9× the throughput (9.1× to 10.7×)", "about +12% on the throughput (+8% to +16%)"."""
    r, lo, hi = 1 + rel, 1 + rel_low, 1 + rel_high
    if r >= 2 or 0 < r <= 0.5:
        text = interval(r, lo, hi, "×")
        return text.replace("× (", f"× {what} (", 1) if what and text.startswith("about") else text
    half = _half_width(100 * rel, 100 * rel_low, 100 * rel_high)
    if half is None:
        return f"{100 * rel:+g}%"
    place = _place(100 * rel, half)

    def signed(text: str) -> str:
        return text if text.startswith("-") else "+" + text

    low, high = _ends(100 * rel_low, 100 * rel_high, place)
    return (f"about {signed(_at(100 * rel, place))}%{f' on {what}' if what else ''} "
            f"({signed(low)}% to {signed(high)}%)")


def significant(value: float, digits: int) -> str:
    """`value` rounded to `digits` significant figures, written without an exponent or trailing zeros: 150 and 90, not "1.5e+02"
    (Python's "{:.2g}" turns to exponents from 10**digits on)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    place = digits - 1 - math.floor(math.log10(abs(value)))
    text = f"{round(value, place):.{max(place, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text  # as "{:g}" does: 10, not 10.0


def count(value: float, low: float | None, high: float | None) -> str:
    """A number of things (requests in service, workers) from an estimate: "about 4" when the interval lies within
    ±0.5 of that integer, else the range at its own precision, "3.6 to 4.7"; the estimate alone, at two significant
    digits, without an interval. The ends are rounded outwards."""
    if low is None or high is None:
        return f"about {significant(value, 2)}"
    k = round(value)
    if k - 0.5 < low and high < k + 0.5:
        return f"about {k:d}"
    lo, hi = _ends(low, high, _place(value, _half_width(value, low, high) or 0.5))
    return f"{lo} to {hi}"


def higher_over_lower(rel: float, rel_low: float, rel_high: float) -> tuple[float, float, float]:
    """The higher of two figures over the lower, as a change with its interval, from b/a − 1 and its interval:
    itself when b is the higher, else a/b − 1 = 1/(1 + rel) − 1 with the ends swapped. The one way a choice says
    by how much the chosen arm gives more (the finding's sentence and the headline's)."""
    if rel >= 0:
        return rel, rel_low, rel_high
    return 1 / (1 + rel) - 1, 1 / (1 + rel_high) - 1, 1 / (1 + rel_low) - 1
