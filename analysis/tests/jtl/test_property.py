"""Property: any mutation of a valid JTL gives a Reading or a UserError, never another exception."""

import gzip

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz import budget, fuzz
from littlegrid.jtl import Reading, read_jtl
from littlegrid.usererror import UserError

from .conftest import FIXTURES

SEEDS = [FIXTURES / name for name in ("default-header.jtl", "subresults-and-transactions.jtl",
                                      "sample-variables-mixed-case-booleans.jtl", "timestamp-format.jtl",
                                      "nested-transaction-responsedata.xml")]
INJECTIONS = [b'"', b"\n", b"\r\n", b",", b";", b"\t", b"|", b'""', b"\x00", b"<", b"\xff", b"true", b"-1"]


@st.composite
def mutated(draw):
    data = bytearray(draw(st.sampled_from(SEEDS)).read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["truncate", "delete", "duplicate", "inject", "flip"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "truncate":
            del data[at:]
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 20))]
        elif kind == "duplicate":
            data[at:at] = data[at:at + draw(st.integers(1, 40))]
        elif kind == "inject":
            data[at:at] = draw(st.sampled_from(INJECTIONS))
        else:  # flip every delimiter of one kind into another
            old, new = draw(st.sampled_from([b",", b";", b"\t", b"|"])), draw(st.sampled_from([b",", b";", b"|"]))
            data = bytearray(bytes(data).replace(old, new))
    return bytes(data), draw(st.booleans())


# pyarrow reports a row it cannot decode as UTF-8 through an "unraisable" exception before falling
# back (then the csv-module path reads the file): that is pyarrow's noise, not ours.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@fuzz
@budget(150)
@given(case=mutated())
def test_mutated_files_give_a_reading_or_a_user_error(tmp_path, case):
    data, compress = case
    path = tmp_path / "mutated.jtl"
    path.write_bytes(gzip.compress(data) if compress else data)
    try:
        reading = read_jtl(path)
    except UserError as error:
        assert str(error).startswith(str(path)) and "\n" not in str(error)
        return
    assert isinstance(reading, Reading)
    assert reading.rows_read == len(reading.samples) + reading.skipped_total
    assert (reading.samples.end_ms >= reading.samples.start_ms).all()
