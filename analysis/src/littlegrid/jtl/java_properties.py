"""Java `.properties` files as `java.util.Properties.load` reads them (JMeter loads jmeter.properties so)."""

from __future__ import annotations

from pathlib import Path

from littlegrid.usererror import at

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_SEPARATORS = "=: \t\f"


def load(path: Path) -> dict[str, str]:
    """name -> value of one properties file: `#`/`!` comments, `=`, `:` or blank separators, a trailing
    backslash continues the line, `\\t` `\\n` `\\uXXXX` escapes. ISO-8859-1, as Properties.load(InputStream)."""
    try:
        text = Path(path).read_bytes().decode("iso-8859-1")
    except OSError as error:
        raise at(path, None, f"cannot read: {error.strerror or error}") from None
    props: dict[str, str] = {}
    for number, line in _logical_lines(text):
        key, value = _split(line)
        try:
            props[_unescape(key)] = _unescape(value)
        except ValueError as error:
            raise at(path, number, str(error)) from None
    return props


def _logical_lines(text: str):
    """(first physical line number, logical line) without comments and blank lines."""
    pending, start = None, 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.lstrip(" \t\f")
        if pending is None:
            if not line or line[0] in "#!":
                continue
            start, pending = number, ""
        continued = (len(line) - len(line.rstrip("\\"))) % 2 == 1
        pending += line[:-1] if continued else line
        if not continued:
            yield start, pending
            pending = None
    if pending is not None:
        yield start, pending


def _split(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line) and line[i] not in _SEPARATORS:
        i += 2 if line[i] == "\\" else 1
    key, rest = line[:i], line[i:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):  # at most one = or : after the blanks that may end the key
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 == len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            digits = text[i + 2:i + 6]
            if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError(f"malformed \\uxxxx escape {text[i:i + 6]!r}")
            out.append(chr(int(digits, 16)))
            i += 6
        else:
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
    return "".join(out)
