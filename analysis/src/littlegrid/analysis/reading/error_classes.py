"""Classify failed samples from responseCode, responseMessage and failureMessage as JMeter writes them."""

import math
import re

import numpy as np
import pandas as pd

from littlegrid.analysis.reading.int_sort import unique_inverse

# The classes, in the order reports list them. HTTP families are open-ended ("http_2xx" is a 2xx response
# failed by an assertion), so a report must not assume this tuple is exhaustive for them.
CONNECTION_REFUSED = "connection_refused"
CONNECT_TIMEOUT = "connect_timeout"
READ_TIMEOUT = "read_timeout"
CONNECTION_RESET = "connection_reset"
OTHER = "other"
NON_HTTP_CLASSES = (CONNECTION_REFUSED, CONNECT_TIMEOUT, READ_TIMEOUT, CONNECTION_RESET, OTHER)

_HTTP_STATUS = re.compile(r"^\s*([1-5])\d\d\s*$")
# JMeter's JDBC Request writes a failed query's SQLSTATE and the driver's vendor code as its responseCode
# ("08001 0", "57014 0", "42P01 0"), and "000" (or nothing) for a failure that is no SQLException. Its successes
# carry 200 ("OK"), like HTTP.
_SQL_STATE = re.compile(r"^\s*([0-9A-Z]{2})[0-9A-Z]{3}(?:\s+-?\d+)?\s*$")
_SQL_TIMEOUT_STATES = ("57014",)  # query_canceled: the query timeout (or a cancel) ended it

# Ordered rules over the text "responseCode | responseMessage | failureMessage" of a non-HTTP failure.
# Timeouts come first: a connect timeout from HttpClient4 is a ConnectTimeoutException whose message also
# names the host ("Connect to h:p [...] failed: connect timed out"), and must not read as refused.
_RULES = (
    (CONNECT_TIMEOUT, re.compile(r"ConnectTimeoutException|connect timed out", re.I)),
    (READ_TIMEOUT, re.compile(r"SocketTimeoutException|Read timed out", re.I)),
    # java.net.ConnectException and HttpClient4's HttpHostConnectException (a subclass) mean the TCP connect
    # failed: refused by the peer in the common case ("Connection refused"), also "network unreachable".
    (CONNECTION_REFUSED, re.compile(r"java\.net\.ConnectException|HttpHostConnectException|Connection refused", re.I)),
    # PostgreSQL's JDBC driver: "Connection to 127.0.0.1:5432 refused. Check that the hostname and port are correct"
    (CONNECTION_REFUSED, re.compile(r"Connection to \S+ refused", re.I)),
    # The peer dropped an established connection: RST ("Connection reset"), or closed it before answering
    # (HttpClient4's NoHttpResponseException "h:p failed to respond"), or a write into a closed socket.
    (CONNECTION_RESET, re.compile(r"Connection reset|NoHttpResponseException|failed to respond|Broken pipe", re.I)),
)


def classify_one(response_code, response_message=None, failure_message=None) -> str:
    """The class of one failed sample (the caller knows it failed)."""
    code = "" if response_code is None or pd.isna(response_code) else str(response_code)
    m = _HTTP_STATUS.match(code)
    if m:
        return f"http_{m.group(1)}xx"
    text = " | ".join(
        "" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)
        for v in (code, response_message, failure_message)
    )
    for name, pattern in _RULES:
        if pattern.search(text):
            return name
    sql = _SQL_STATE.match(code)
    if sql:  # a database's own answer, by its SQLSTATE class: sql_08 connection, sql_42 syntax or access, sql_53...
        return READ_TIMEOUT if code.split()[0] in _SQL_TIMEOUT_STATES else f"sql_{sql.group(1).lower()}"
    return OTHER


_OK_STATUS = re.compile(r"^\s*[23]\d\d\s*$")


def failed_mask(samples: pd.DataFrame):
    """True for failed samples: success is false, or (success column absent/null) the code is not 2xx/3xx."""
    success = samples["success"]
    unknown = success.isna().to_numpy()
    failed = ~success.fillna(True).astype(bool).to_numpy()
    if unknown.any():
        codes = samples.loc[unknown, "response_code"].astype("string").fillna("")
        failed[unknown] = ~codes.str.match(_OK_STATUS).fillna(False).to_numpy(dtype=bool)
    return failed


def classify(samples: pd.DataFrame) -> pd.Series:
    """Error class per sample (null for successes) as a categorical Series aligned with `samples.index`.

    Classification runs once per distinct (code, message, failure) triple, so millions of identical
    "Connection refused" rows cost one regex pass.
    """
    return _per_failure(samples, lambda triple: classify_one(*triple))


ASSERTION_FAILED = "Assertion failed"


def error_type_one(response_code, response_message=None, failure_message=None) -> str:
    """The error type JMeter's dashboard counts a failed sample under (ErrorsSummaryConsumer): "code/message",
    or, when the response itself was fine (2xx/3xx or no code) and an assertion failed it, the assertion's
    failure message ("Assertion failed" when it left none)."""
    code, message, failure = ("" if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)
                              for v in (response_code, response_message, failure_message))
    if _OK_STATUS.match(code) or (not code.strip() and failure.strip()):
        return failure.strip() or ASSERTION_FAILED
    return (code + (f"/{message}" if message else "")) or "no response code"


def error_types(samples: pd.DataFrame) -> pd.Series:
    """Error type per sample (null for successes), categorical, aligned with `samples.index`: once per
    distinct triple, like classify."""
    return _per_failure(samples, lambda triple: error_type_one(*triple))


def classes_and_types(samples: pd.DataFrame, types: bool = True) -> tuple[pd.Series, pd.Series | None]:
    """classify(samples) and (when `types`) error_types(samples), the failed rows' distinct triples found once
    for both: the analysis names every block's failures both ways."""
    if not types:
        return classify(samples), None
    return _per_failure(samples, lambda triple: classify_one(*triple), lambda triple: error_type_one(*triple))


def _per_failure(samples: pd.DataFrame, *names_of) -> pd.Series | tuple[pd.Series, ...]:
    """For each of `names_of`, name_of((code, message, failure)) for each failed sample, evaluated once per
    distinct triple; one Series for one function, else a tuple of them."""
    mask = failed_mask(samples)
    distinct = None
    if mask.any():
        rows = np.flatnonzero(mask)
        # per column a code per failed row and the text of each code (null as ""); only the distinct rows of
        # codes become text triples (a MultiIndex of the rows' strings took ~10 ms a 270 k-row block)
        codes, texts = zip(*(_coded(samples[c], rows) for c in ("response_code", "response_message",
                                                                  "failure_message")))
        sizes = [len(t) for t in texts]
        if math.prod(sizes) < KEY_LIMIT:  # one integer per row, its distinct values counted (no sort)
            key = codes[0]
            for c, size in zip(codes[1:], sizes[1:]):
                key *= size
                key += c
            keys, position = unique_inverse(key)
            triples = []
            for k in keys.tolist():
                c2, c1, c0 = k % sizes[2], k // sizes[2] % sizes[1], k // (sizes[1] * sizes[2])
                triples.append((c0, c1, c2))
        else:  # as many distinct texts as rows in every column
            keys, position = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
            triples, position = keys.tolist(), position.reshape(-1)
        distinct = [tuple(t[c] for t, c in zip(texts, triple)) for triple in triples]
    out = []
    for name_of in names_of:
        codes = np.full(len(samples), -1, dtype=np.int32)  # -1: success (null in the categorical)
        names: list[str] = []
        if distinct is not None:
            per_triple = [name_of(triple) for triple in distinct]
            names = sorted(set(per_triple))
            index = {n: i for i, n in enumerate(names)}
            lookup = np.array([index[n] for n in per_triple], dtype=np.int32)
            codes[mask] = lookup[position]
        # categorical: a small code a row, where an object column of names would take eight bytes
        out.append(pd.Series(pd.Categorical.from_codes(codes, categories=names), index=samples.index))
    return out[0] if len(out) == 1 else tuple(out)


KEY_LIMIT = 2**62  # the three columns' codes as one int64 key below this product of their sizes


def _coded(column: pd.Series, rows: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(a code per row of `rows`, the text of each code): a categorical's codes, else the factorized values; a
    null is the last code, read ""."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()[rows].astype(np.int64)
        texts = [str(c) for c in column.cat.categories]
    else:
        codes, uniques = pd.factorize(column.array.take(rows), use_na_sentinel=True)
        codes = codes.astype(np.int64)
        texts = [str(u) for u in uniques]
    codes[codes < 0] = len(texts)
    return codes, texts + [""]


def count_by_class(classes: pd.Series) -> dict:
    """{class: count} over the failed samples, largest first (ties by name, for stable output)."""
    return largest_first(count_names(classes))


COUNT_CHUNK_ROWS = 1 << 20  # codes counted at a time: bincount copies narrow codes to 8-byte integers first


def count_names(values: pd.Series, mask: np.ndarray | None = None) -> dict[str, int]:
    """{name: rows} of a Series of names (an error class or type per row; null and unused categories left out),
    over the rows where `mask` is True: a bincount of the categorical's codes, each category named once, not
    per row (every block's categorical has its own categories)."""
    cat = values if isinstance(values.dtype, pd.CategoricalDtype) else values.astype("category")
    codes = cat.cat.codes.to_numpy()
    codes = codes if mask is None else codes[mask]
    categories = cat.cat.categories
    counts = np.zeros(len(categories), dtype=np.int64)
    for lo in range(0, len(codes), COUNT_CHUNK_ROWS):
        chunk = codes[lo:lo + COUNT_CHUNK_ROWS]
        counts += np.bincount(chunk[chunk >= 0], minlength=len(categories))
    out: dict[str, int] = {}
    for i in np.flatnonzero(counts).tolist():
        out[str(categories[i])] = out.get(str(categories[i]), 0) + int(counts[i])
    return out


def largest_first(counts, limit: int | None = None) -> dict[str, int]:
    """{name: count} of a mapping, largest first, ties by name (stable output), at most `limit`, none of 0."""
    ordered = sorted(((name, n) for name, n in counts.items() if n > 0), key=lambda kv: (-kv[1], kv[0]))
    return dict(ordered[:limit])
