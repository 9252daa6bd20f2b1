"""The statistics per label as page data: the sortable, filterable table, errors by type and by label, and the
series over time of the labels a reader picks. Plain data from the summary; the page script draws it."""

from __future__ import annotations

from urllib.parse import quote

from littlegrid.render import charts, fmt

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


def label_data(cell: dict) -> dict | None:
    """The table's data (JSON for the page script), or None when the cell has no statistics per label.

    rows: [label, transaction, has series, figures in COLUMNS order..., top errors as [[type index, count]]];
    `error_types` holds each error type's text once.
    """
    labels = cell.get("labels") or {}
    if not labels:
        return None
    types: dict[str, int] = {}
    series = ((cell.get("label_series") or {}).get("labels")) or {}
    rows = []
    for label in sorted(labels, key=str):
        st = labels[label]
        top = [[types.setdefault(str(e.get("type")), len(types)), e.get("count")] for e in st.get("top_errors") or []]
        rows.append([str(label), bool(st.get("transaction")), label in series]
                    + [_value(st.get(key)) for key, _, _ in COLUMNS] + [top])
    s = cell.get("series") or {}
    return {"columns": [{"key": k, "header": h, "kind": kind} for k, h, kind in COLUMNS],
            "rows": rows, "error_types": list(types),
            "series": {"t": [_value(t) for t in s.get("t_s") or []],
                       "window": [_value(s.get("window_start_s")), _value(s.get("window_end_s"))],
                       "rule": (cell.get("label_series") or {}).get("rule"),
                       "labels": {str(k): {key: [charts.sig(v) for v in (v_ or {}).get(key) or []]
                                           for key in SERIES_KEYS} for k, v_ in series.items()}}}


def table_view(cell: dict) -> dict | None:
    """What the template prints around the table: headers, the total row, counts for the controls."""
    labels = cell.get("labels") or {}
    if not labels:
        return None
    series = ((cell.get("label_series") or {}).get("labels")) or {}
    overall = cell.get("overall") or {}
    return {"columns": [{"key": k, "header": h, "kind": kind} for k, h, kind in COLUMNS],
            "total": [KINDS[kind](overall.get(k)) for k, _, kind in COLUMNS], "count": len(labels),
            "transactions": sum(1 for st in labels.values() if st.get("transaction")),
            "with_errors": sum(1 for st in labels.values() if st.get("errors")),
            "series_count": len(series), "series_rule": (cell.get("label_series") or {}).get("rule")}


def error_view(cell: dict) -> dict:
    """Errors by class and by type (overall) and the top errors of each label with errors, largest first."""
    overall = cell.get("overall") or {}
    total_errors, samples = overall.get("errors") or 0, overall.get("count") or 0
    by_class = [{"error_class": str(k), "count": n, "share": n / total_errors if total_errors else None,
                 "of_samples": n / samples if samples else None}
                for k, n in sorted((overall.get("errors_by_class") or {}).items(), key=lambda kv: (-kv[1], kv[0]))]
    types = (cell.get("errors") or {}).get("by_type") or []
    by_type = [{"type": str(t.get("type")), "count": t.get("count"), "share": t.get("share_of_errors"),
                "of_samples": t.get("count") / samples if samples else None} for t in types[:ERROR_TYPE_ROWS]]
    rest = types[ERROR_TYPE_ROWS:]
    summary_rest = cell.get("errors") or {}  # types the summary itself left out (analysis.cell.ERROR_TYPES_MAX)
    failing = sorted(((str(k), st) for k, st in (cell.get("labels") or {}).items() if st.get("errors")),
                     key=lambda kv: (-kv[1]["errors"], kv[0]))
    by_label = [{"label": label, "href": label_href(label), "count": st.get("count"), "errors": st.get("errors"),
                 "top": [(str(e.get("type")), e.get("count")) for e in st.get("top_errors") or []]}
                for label, st in failing[:TOP_ERROR_ROWS]]
    return {"by_class": by_class, "by_type": by_type,
            "types_not_listed": len(rest) + (summary_rest.get("types_not_listed") or 0),
            "errors_not_listed": sum(t.get("count") or 0 for t in rest) + (summary_rest.get("errors_not_listed") or 0),
            "by_label": by_label,
            "labels_not_listed": max(0, len(failing) - TOP_ERROR_ROWS), "total_errors": total_errors,
            "has_types": bool(cell.get("errors"))}


def codes_chart(cell: dict) -> dict | None:
    """Response codes per second (JMeter's "Codes per second"), one line per code the summary keeps."""
    s = cell.get("series") or {}
    codes, t = s.get("codes") or {}, s.get("t_s") or []
    if not codes or not t:
        return None
    window = (s.get("window_start_s"), s.get("window_end_s"))
    trimmed = None not in window and (window[0] > t[0] or window[1] < t[-1])
    return charts.chart("ts-codes", "Response codes per second", "time (s)", "per second", t,
                        [charts.series(code, values, group=i) for i, (code, values) in enumerate(codes.items())],
                        x_time=True, window=window if trimmed else None,
                        note="Every sample by its response code, placed by completion time"
                             + ("; shaded: trimmed warm-up and cool-down." if trimmed else "."))
