"""Header-less files with a reduced save configuration: inferred when only one configuration fits."""

from littlegrid.jtl.columns_infer import infer


def _rows(text, delimiter=","):
    return [line.split(delimiter) for line in text.strip().splitlines()]


def test_reduced_configuration_with_idle_and_connect_is_inferred():
    rows = _rows("""
1669803936232,1711,login,200,Thread Group 1-1,true,1227,275,1,1,1710,0,1314
1669803937987,496,Get Feeds,200,Thread Group 1-1,true,32568,317,1,1,494,0,0
1669803938539,314,Get Channels,200,Thread Group 1-1,true,4337,320,1,1,314,0,0
""")
    assert infer(rows) == ["timeStamp", "elapsed", "label", "responseCode", "threadName", "success", "bytes",
                           "sentBytes", "grpThreads", "allThreads", "Latency", "IdleTime", "Connect"]


def test_sample_count_columns_and_a_trailing_variable_are_inferred():
    rows = _rows("""
1436484057951|6011|get csv|200|ThreadGroup 1-2|true|243971|2|2|28|1|0|null
1436484059459|8067|get csv|200|ThreadGroup 1-1|true|244000|2|2|30|1|0|null
1436484060000|500|get csv|404|ThreadGroup 1-1|false|1000|2|2|30|1|1|null
""", "|")
    assert infer(rows) == ["timeStamp", "elapsed", "label", "responseCode", "threadName", "success", "bytes",
                           "grpThreads", "allThreads", "Latency", "SampleCount", "ErrorCount", "var1"]


def test_ambiguous_configuration_is_not_guessed():
    assert infer(_rows("1700000000000,5,7\n1700000000001,6,8")) is None
