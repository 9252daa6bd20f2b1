"""The Prometheus text exposition format (and OpenMetrics, its successor) read into samples, and series selectors
(`metric{label="value"}`) parsed and matched: the one reader every scrape and every mapping of a scrape goes through."""

from __future__ import annotations

import re
from dataclasses import dataclass

from littlegrid.usererror import UserError

METRIC_NAME = r"[A-Za-z_:][A-Za-z0-9_:]*"
LABEL_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NAME = re.compile(METRIC_NAME)
# {labels}: quoted values may hold braces, commas, '#' and escaped quotes
_LABEL_SET = re.compile(r'\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\}')
# after the labels: the value, an optional timestamp, an optional OpenMetrics exemplar (` # {trace_id="..."} 1.0`)
_REST = re.compile(r"^\s+(\S+)(?:\s+-?[0-9.]+(?:[eE][+-]?\d+)?)?(?:\s+#\s+\{.*)?\s*$")
_LABEL = re.compile(rf'({LABEL_NAME})\s*=\s*"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(.)")
_UNESCAPED = {"n": "\n", "\\": "\\", '"': '"'}
# An exposition that is not Prometheus text: an HTML page (a login form, a proxy's error page, a UI's index) or JSON.
_NOT_TEXT = re.compile(r"^\s*(<|\{|\[)")


def parse_prometheus(text: str) -> list[tuple[str, dict, float]]:
    """(metric name, labels, value) for every sample line; bad lines are skipped. OpenMetrics' `# EOF` ends the
    exposition (anything after it is not part of it); NaN, +Inf, -Inf and exponents read as the format allows; a
    timestamp or an exemplar after the value is left out."""
    samples = []
    for line in text.splitlines():
        line = line.strip()
        if line == "# EOF":
            break
        if not line or line.startswith("#"):
            continue
        name_match = _NAME.match(line)
        if not name_match:
            continue
        name, pos = name_match.group(0), name_match.end()
        labels_match = _LABEL_SET.match(line, pos)
        labels_text = labels_match.group(0) if labels_match else ""
        rest = _REST.match(line[labels_match.end() if labels_match else pos:])
        if not rest:
            continue
        value_text = rest.group(1)
        try:
            value = float(value_text)
        except ValueError:
            continue
        labels = {k: _ESCAPE.sub(lambda e: _UNESCAPED.get(e.group(1), e.group(0)), v)
                  for k, v in _LABEL.findall(labels_text or "")}
        samples.append((name, labels, value))
    return samples


def exposition_problem(text: str, content_type: str = "") -> str | None:
    """Why `text` is not a Prometheus (or OpenMetrics) exposition, in a few words; None when it is one.
    An exposition holds at least one sample line; HTML or JSON is refused by its first character or its type."""
    kind = content_type.split(";")[0].strip().lower()
    if kind in ("text/html", "application/json", "application/xhtml+xml") or _NOT_TEXT.match(text):
        what = "HTML" if kind.endswith("html") or text.lstrip().startswith("<") else "JSON"
        return f"answers {what}, not Prometheus text (is this the metrics path, e.g. /metrics or /actuator/prometheus?)"
    if not parse_prometheus(text):
        return "answers no Prometheus sample line (name{labels} value)"
    return None


def label_text(labels: dict) -> str:
    """Labels as the format writes them, sorted by name: `a="1",b="x\\"y"` (empty for none): one series, one text."""
    return ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(labels.items()))


def parse_label_text(text: str) -> dict:
    """label_text's inverse."""
    return {k: _ESCAPE.sub(lambda e: _UNESCAPED.get(e.group(1), e.group(0)), v) for k, v in _LABEL.findall(text)}


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@dataclass(frozen=True)
class Matcher:
    label: str
    op: str       # = != =~ !~
    value: str

    def matches(self, labels: dict) -> bool:
        actual = labels.get(self.label, "")  # a missing label matches as the empty string, as in PromQL
        if self.op == "=":
            return actual == self.value
        if self.op == "!=":
            return actual != self.value
        found = re.fullmatch(self.value, actual) is not None  # PromQL's regular expressions are anchored
        return found if self.op == "=~" else not found


@dataclass(frozen=True)
class Selector:
    """A series selector as PromQL writes one: a metric name and label matchers (`=`, `!=`, `=~`, `!~`)."""

    metric: str
    matchers: tuple[Matcher, ...] = ()

    def matches(self, name: str, labels: dict) -> bool:
        return name == self.metric and all(m.matches(labels) for m in self.matchers)

    def __str__(self) -> str:
        inner = ",".join(f'{m.label}{m.op}"{_escape(m.value)}"' for m in self.matchers)
        return self.metric + (f"{{{inner}}}" if inner else "")


_SELECTOR = re.compile(rf"^\s*({METRIC_NAME})\s*(?:\{{(.*)\}})?\s*$", re.S)
_MATCHER = re.compile(rf'\s*({LABEL_NAME})\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(,|$)')


def parse_selector(text: str) -> Selector:
    """`metric` or `metric{label="v",other=~"re.*"}` into a Selector; anything else raises UserError saying what."""
    m = _SELECTOR.match(text) if isinstance(text, str) else None
    if not m:
        raise UserError(f"{text!r} is not a series selector: a metric name, optionally with label matchers, "
                        'e.g. executor_active_threads{name="workers"}')
    name, inner = m.group(1), (m.group(2) or "").strip()
    matchers, pos = [], 0
    while pos < len(inner):
        mm = _MATCHER.match(inner, pos)
        if not mm or mm.end() == pos:
            raise UserError(f"{text!r}: cannot read the label matchers from {inner[pos:]!r} "
                            '(write label="value", label!="value", label=~"regex" or label!~"regex")')
        label, op, value = mm.group(1), mm.group(2), _ESCAPE.sub(lambda e: _UNESCAPED.get(e.group(1), e.group(0)),
                                                               mm.group(3))
        if op in ("=~", "!~"):
            try:
                re.compile(value)
            except re.error as e:
                raise UserError(f"{text!r}: {label}{op}\"{value}\" is not a regular expression ({e})")
        matchers.append(Matcher(label, op, value))
        pos = mm.end()
    return Selector(name, tuple(matchers))
