"""JMeter's timestamp_format (Java SimpleDateFormat) patterns: translation and detection."""

from __future__ import annotations

import re
from datetime import datetime

import numpy as np

# Java letters -> strptime directives (the subset JMeter users put in timestamp_format).
_JAVA_TO_STRPTIME = {
    "yyyy": "%Y", "yy": "%y", "MMMM": "%B", "MMM": "%b", "MM": "%m", "dd": "%d", "HH": "%H",
    "hh": "%I", "mm": "%M", "ss": "%S", "SSS": "%f", "a": "%p", "EEEE": "%A", "EEE": "%a",
    "Z": "%z", "XXX": "%z", "XX": "%z", "X": "%z", "M": "%m", "d": "%d", "H": "%H", "h": "%I",
    "m": "%M", "s": "%S", "S": "%f",
}
_TOKEN = re.compile(r"'[^']*'|([A-Za-z])\1*")

# Patterns tried when the file's timeStamp is not epoch milliseconds (most specific first).
COMMON_PATTERNS = (
    "yyyy/MM/dd HH:mm:ss.SSS", "yyyy-MM-dd HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy/MM/dd HH:mm:ss",
    "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ss", "dd.MM.yyyy HH:mm:ss.SSS",
    "dd.MM.yyyy HH:mm:ss",
)

EPOCH = re.compile(r"^\s*-?\d+\s*$")


def to_strptime(java_pattern: str) -> str:
    """Translate a SimpleDateFormat pattern; raises ValueError for letters it does not know."""
    out, pos = [], 0
    for match in _TOKEN.finditer(java_pattern):
        out.append(java_pattern[pos:match.start()].replace("%", "%%"))
        token = match.group(0)
        if token.startswith("'"):
            out.append(token[1:-1].replace("%", "%%") or "'")
        elif token in _JAVA_TO_STRPTIME:
            out.append(_JAVA_TO_STRPTIME[token])
        else:
            raise ValueError(f"pattern letter {token!r} is not supported")
        pos = match.end()
    out.append(java_pattern[pos:].replace("%", "%%"))
    return "".join(out)


def matches(value: str, java_pattern: str) -> bool:
    try:
        datetime.strptime(value.strip(), to_strptime(java_pattern))
        return True
    except ValueError:
        return False


def detect(values: list[str]) -> str | None:
    """The first common pattern every (non-empty) value matches, or None."""
    values = [v for v in values if v.strip()]
    if not values:
        return None
    for pattern in COMMON_PATTERNS:
        if all(matches(v, pattern) for v in values):
            return pattern
    return None


def has_zone(java_pattern: str) -> bool:
    return "%z" in to_strptime(java_pattern)


def to_epoch_ms(values: pd.Series, java_pattern: str) -> tuple[np.ndarray, np.ndarray]:
    """Parse formatted timestamps -> (epoch ms int64, ok mask). Times without a zone are taken as UTC."""
    import pandas as pd  # here, not above: the read-ahead sniffs with this module before pandas is imported

    parsed = pd.to_datetime(values.astype("string").str.strip(), format=to_strptime(java_pattern),
                            errors="coerce", utc=True)
    ok = parsed.notna().to_numpy()
    epoch_ms = np.zeros(len(values), dtype="int64")
    epoch_ms[ok] = parsed[ok].to_numpy(dtype="datetime64[ms]").astype("int64")
    return epoch_ms, ok
