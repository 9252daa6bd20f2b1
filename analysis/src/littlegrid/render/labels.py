"""The statistics per label as page data: the sortable, filterable table, errors by type and by label, and the
series over time of the labels a reader picks. Plain data from the summary; the page script draws it."""

from __future__ import annotations

from urllib.parse import quote

from littlegrid.render import charts, fmt
from littlegrid.summary.model import Cell

# (summary key, header, kind): the kind tells the page script how to print the figure (it sorts on the number).
# Times are in ms, X per second, bytes a mean per sample; the headers say so, the cells carry bare numbers.
COLUMNS = [("count", "samples", "count"), ("errors", "errors", "count"), ("error_rate", "error %", "pct"),
           ("throughput_per_s", "X /s", "num"), ("mean_ms", "mean ms", "num"), ("min_ms", "min", "num"),
           ("p50_ms", "p50", "num"), ("p90_ms", "p90", "num"), ("p95_ms", "p95", "num"), ("p99_ms", "p99", "num"),
           ("p999_ms", "p99.9", "num"), ("max_ms", "max", "num"), ("latency_mean_ms", "latency ms", "num"),
           ("connect_mean_ms", "connect ms", "num"), ("bytes_mean", "bytes", "num"),
           ("received_bytes_per_s", "received KB/s", "kb"), ("sent_bytes_per_s", "sent KB/s", "kb")]
# How a figure of each kind is printed; littlegrid.js prints the rows the same way (fmtKind).
KINDS = {"count": fmt.num, "num": fmt.num, "pct": lambda v: fmt.pct(v).replace(" %", ""),
         "kb": lambda v: fmt.num(None if v is None else v / 1024)}
SERIES_KEYS = ("p50_ms", "p90_ms", "p99_ms", "throughput", "errors")
TOP_ERROR_ROWS = 100  # labels in the "top errors by label" table; the rest are one filter away in the table
ERROR_TYPE_ROWS = 50  # error types listed; the rest summed on one line


def label_href(label: str) -> str:
    """The link that opens a label's own section (the page script reads it from the address's fragment)."""
    return "#label=" + quote(str(label), safe="")


def _value(v):
    return charts.sig(v, 6)  # 6 significant digits: exact for every millisecond figure under 1,000 s


def label_data(cell: Cell) -> dict | None:
    """The table's data (JSON for the page script), or None when the cell has no statistics per label.

    rows: [label, transaction, has series, figures in COLUMNS order..., top errors as [[type index, count]]];
    `error_types` holds each error type's text once.
    """
    if not cell.labels:
        return None
    types: dict[str, int] = {}
    series = cell.label_series.labels if cell.label_series is not None else {}
    rows = []
    # Transactions (Transaction Controller rows) first: in a multi-step plan they are what a user waits for.
    for label in sorted(cell.labels, key=lambda name: (not cell.labels[name].transaction, name)):
        st = cell.labels[label]
        top = [[types.setdefault(e.type, len(types)), e.count] for e in st.top_errors]
        rows.append([label, st.transaction, label in series]
                    + [_value(getattr(st, key)) for key, _, _ in COLUMNS] + [top])
    s = cell.series
    return {"columns": [{"key": k, "header": h, "kind": kind} for k, h, kind in COLUMNS],
            "rows": rows, "error_types": list(types),
            "series": {"t": [_value(t) for t in s.t_s] if s else [],
                       "window": [_value(s.window_start_s), _value(s.window_end_s)] if s else [None, None],
                       "rule": cell.label_series.rule if cell.label_series is not None else None,
                       "labels": {k: {key: [charts.sig(v) for v in getattr(one, key)] for key in SERIES_KEYS}
                                  for k, one in series.items()}}}


def table_view(cell: Cell) -> dict | None:
    """What the template prints around the table: headers, the total row, counts for the controls."""
    if not cell.labels:
        return None
    labels = cell.labels.values()
    return {"columns": [{"key": k, "header": h, "kind": kind} for k, h, kind in COLUMNS],
            "total": [KINDS[kind](getattr(cell.overall, k, None)) for k, _, kind in COLUMNS], "count": len(cell.labels),
            "transactions": sum(1 for st in labels if st.transaction),
            "with_errors": sum(1 for st in labels if st.errors),
            "series_count": len(cell.label_series.labels) if cell.label_series is not None else 0,
            "series_rule": cell.label_series.rule if cell.label_series is not None else None}


def error_view(cell: Cell) -> dict:
    """Errors by class and by type (overall) and the top errors of each label with errors, largest first."""
    total_errors = cell.overall.errors if cell.overall is not None else 0
    samples = cell.overall.count if cell.overall is not None else 0
    by_class = [{"error_class": k, "count": n, "share": n / total_errors if total_errors else None,
                 "of_samples": n / samples if samples else None}
                for k, n in sorted((cell.overall.errors_by_class if cell.overall is not None else {}).items(),
                                   key=lambda kv: (-kv[1], kv[0]))]
    types = cell.errors.by_type if cell.errors is not None else []
    by_type = [{"type": t.type, "count": t.count, "share": t.share_of_errors,
                "of_samples": t.count / samples if samples else None} for t in types[:ERROR_TYPE_ROWS]]
    rest = types[ERROR_TYPE_ROWS:]
    failing = sorted(((k, st) for k, st in cell.labels.items() if st.errors), key=lambda kv: (-kv[1].errors, kv[0]))
    by_label = [{"label": label, "href": label_href(label), "count": st.count, "errors": st.errors,
                 "top": [(e.type, e.count) for e in st.top_errors]}
                for label, st in failing[:TOP_ERROR_ROWS]]
    left_out = cell.errors  # with the types the summary itself left out (analysis.statistics.stats.ERROR_TYPES_MAX)
    return {"by_class": by_class, "by_type": by_type,
            "types_not_listed": len(rest) + (left_out.types_not_listed if left_out else 0),
            "errors_not_listed": sum(t.count for t in rest) + (left_out.errors_not_listed if left_out else 0),
            "by_label": by_label,
            "labels_not_listed": max(0, len(failing) - TOP_ERROR_ROWS), "total_errors": total_errors,
            "has_types": cell.errors is not None}


def codes_chart(cell: Cell) -> dict | None:
    """Response codes per second (JMeter's "Codes per second"), one line per code the summary keeps."""
    s = cell.series
    if s is None or not s.codes or not s.t_s:
        return None
    t = s.t_s
    trimmed = s.window_start_s > t[0] or s.window_end_s < t[-1]
    return charts.chart("ts-codes", "Response codes per second", "time (s)", "per second", t,
                        [charts.series(code, values, group=i) for i, (code, values) in enumerate(s.codes.items())],
                        x_time=True, window=(s.window_start_s, s.window_end_s) if trimmed else None,
                        note="Every sample by its response code, placed by completion time"
                             + ("; shaded: trimmed warm-up and cool-down." if trimmed else "."))
