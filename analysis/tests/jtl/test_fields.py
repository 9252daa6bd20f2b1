"""read_jtl(fields=...): the columns asked for are read exactly as in a full read; the others come back null."""

import pandas as pd
import pytest

from littlegrid.jtl import ALWAYS_READ, COLUMNS, read_jtl
from littlegrid.usererror import UserError

FIELDS = ("latency_ms", "success", "response_code", "all_threads")


@pytest.mark.parametrize("name", ["default-header.jtl", "subresults-and-transactions.jtl",
                                  "sample-variables-mixed-case-booleans.jtl", "malformed-middle-rows.jtl"])
def test_selected_columns_equal_a_full_read_and_the_rest_are_null_with_the_same_schema(fixture, name):
    full = read_jtl(fixture(name))
    some = read_jtl(fixture(name), fields=FIELDS)
    assert list(some.samples.columns) == list(COLUMNS)
    assert some.samples.dtypes.astype(str).tolist() == full.samples.dtypes.astype(str).tolist()
    for column in COLUMNS:
        if column in FIELDS or column in ALWAYS_READ:
            pd.testing.assert_series_equal(some.samples[column], full.samples[column], check_categorical=False)
        else:
            assert some.samples[column].isna().all(), column
    # the report of what was read does not change: unread is not absent
    assert some.absent_columns == full.absent_columns
    assert (some.rows_read, some.rows_skipped, some.warnings) == (full.rows_read, full.rows_skipped, full.warnings)
    assert some.transaction_labels == full.transaction_labels


def test_an_unknown_field_is_refused_in_one_line(fixture):
    with pytest.raises(UserError, match="unknown field 'latency'"):
        read_jtl(fixture("default-header.jtl"), fields=["latency"])
