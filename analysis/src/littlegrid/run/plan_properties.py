"""What a plan declares (its `${__P(name,default)}` knobs) and the JMeter properties every run of a plan uses."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from littlegrid.usererror import UserError

# The variable in which closed.jmx's think-time timer leaves its draw (ms) before each request. Saved as the JTL's
# last column (JMeter's `sample_variables`), it separates what the timer asked for from what a busy generator
# delivered; plans without that timer write `null` there.
THINK_DRAWN_VARIABLE = "think_drawn_ms"

# The columns of every JTL the suite writes, in JMeter's fixed CSV order, sample variables last (plans/README.md).
JTL_COLUMNS = (
    "timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName", "success",
    "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL", "Latency", "IdleTime", "Connect",
    THINK_DRAWN_VARIABLE,
)

# Save-service settings that give exactly JTL_COLUMNS: CSV with a header, timeStamp = sample start in epoch ms,
# one row per request (a redirect's hops are not written as extra rows). A JMX cannot hold them, because `-l`
# builds its writer from the properties, so every run passes them: the runner as -J (and -G for remote engines),
# a person with `-q plans/littlegrid.properties` (a test keeps that file equal to this dict).
SAVE_SERVICE_PROPERTIES: dict[str, str] = {
    "jmeter.save.saveservice.output_format": "csv",
    "jmeter.save.saveservice.print_field_names": "true",
    "jmeter.save.saveservice.default_delimiter": ",",
    "sampleresult.timestamp.start": "true",
    "jmeter.save.saveservice.timestamp_format": "ms",
    "jmeter.save.saveservice.time": "true",
    "jmeter.save.saveservice.label": "true",
    "jmeter.save.saveservice.response_code": "true",
    "jmeter.save.saveservice.response_message": "true",
    "jmeter.save.saveservice.thread_name": "true",
    "jmeter.save.saveservice.successful": "true",
    "jmeter.save.saveservice.assertion_results_failure_message": "true",
    "jmeter.save.saveservice.bytes": "true",
    "jmeter.save.saveservice.sent_bytes": "true",
    "jmeter.save.saveservice.thread_counts": "true",
    "jmeter.save.saveservice.url": "true",
    "jmeter.save.saveservice.latency": "true",
    "jmeter.save.saveservice.idle_time": "true",
    "jmeter.save.saveservice.connect_time": "true",
    "jmeter.save.saveservice.data_type": "false",
    "jmeter.save.saveservice.filename": "false",
    "jmeter.save.saveservice.encoding": "false",
    "jmeter.save.saveservice.sample_count": "false",
    "jmeter.save.saveservice.hostname": "false",
    "jmeter.save.saveservice.assertion_results": "none",
    "jmeter.save.saveservice.assertions": "false",
    "jmeter.save.saveservice.response_data": "false",
    "jmeter.save.saveservice.response_data.on_error": "false",
    "jmeter.save.saveservice.samplerData": "false",
    "jmeter.save.saveservice.requestHeaders": "false",
    "jmeter.save.saveservice.responseHeaders": "false",
    "jmeter.save.saveservice.subresults": "false",
    "sample_variables": THINK_DRAWN_VARIABLE,
}

PROPERTIES_FILE = Path("plans/littlegrid.properties")  # relative to the checkout


def save_service_properties() -> dict[str, str]:
    """A fresh copy of SAVE_SERVICE_PROPERTIES, to pass as `-J` properties to every JMeter run of a plan."""
    return dict(SAVE_SERVICE_PROPERTIES)


def read_properties_file(path: Path) -> dict[str, str]:
    """`name=value` lines of a Java properties file (comments and blank lines skipped; no continuations)."""
    props: dict[str, str] = {}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        text = line.strip()
        if not text or text[0] in "#!":
            continue
        if "=" not in text:
            raise UserError(f"{path}:{number}: expected name=value, got {text!r}")
        name, value = text.split("=", 1)
        props[name.strip()] = value.strip()
    return props


class _Calls:
    """Scans text for `${__P(name,default)}` calls, nested functions and `\\,` escapes included."""

    def __init__(self, text: str):
        self.text = text

    def __iter__(self):
        start = 0
        while (i := self.text.find("${__P(", start)) >= 0:
            args, _ = self._arguments(i + len("${__P("))
            yield args
            start = i + 2  # also find calls nested inside this one's default

    def _arguments(self, i: int) -> tuple[list[str], int]:
        """Arguments of a call whose `(` ends just before i, split on top-level commas; and the index after `)`."""
        args, current, depth = [], [], 0
        text = self.text
        while i < len(text):
            c = text[i]
            if c == "\\" and i + 1 < len(text):
                current.append(text[i:i + 2])  # JMeter's escape: kept as written
                i += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    args.append("".join(current))
                    return args, i + 1
                depth -= 1
            elif c == "," and depth == 0:
                args.append("".join(current))
                current = []
                i += 1
                continue
            current.append(c)
            i += 1
        raise ValueError("unterminated ${__P(")


def property_calls(text: str) -> list[tuple[str, str | None]]:
    """Every `${__P(name[,default])}` in text as (name, default or None), in order, nested calls included."""
    calls = []
    for args in _Calls(text):
        name = args[0].strip()
        default = args[1] if len(args) > 1 else None
        calls.append((name, default))
    return calls


def plan_strings(plan_path: Path) -> list[tuple[str, str]]:
    """(where, text) for every property value and attribute in a JMX, where = element path for messages."""
    try:
        root = ET.parse(plan_path).getroot()
    except (ET.ParseError, OSError) as e:
        raise UserError(f"{plan_path}: not a readable JMX file ({e})")
    found: list[tuple[str, str]] = []

    def walk(element: ET.Element, where: str) -> None:
        if element.tag in ("jmeterTestPlan", "hashTree"):  # structure only: not worth naming in a message
            here = where
        else:
            label = element.get("testname") or element.get("name") or element.tag
            here = f"{where}/{label}" if where else label
        for attribute, value in element.attrib.items():
            found.append((f"{here}@{attribute}", value))
        if element.text and element.text.strip():
            found.append((here, element.text))
        for child in element:
            walk(child, here)

    walk(root, "")
    return found


def declared_properties(plan_path: Path) -> dict[str, str | None]:
    """The properties a plan reads, name -> default as written in the plan (None when a call has no default).

    A name used with two different defaults is a broken plan: UserError naming both.
    """
    declared: dict[str, str | None] = {}
    for where, text in plan_strings(Path(plan_path)):
        try:
            calls = property_calls(text)
        except ValueError as e:
            raise UserError(f"{plan_path}: {where}: {e}")
        for name, default in calls:
            if "${" in name or name.startswith("__jm."):
                continue  # a name computed at run time (an engine's own users.<engine>), or JMeter's own property
            if name in declared and declared[name] != default:
                raise UserError(f"{plan_path}: property {name!r} has two defaults, "
                                f"{declared[name]!r} and {default!r} ({where})")
            declared[name] = default
    return declared


def workload_of(declared: dict) -> str:
    """The plan's kind of workload, from the properties it reads: an arrival rate makes it open, a number of
    requests per released user a spike, anything else is a closed loop (users and think time)."""
    if "rate_per_s" in declared:
        return "open"
    if "requests_per_user" in declared:
        return "spike"
    return "closed"
