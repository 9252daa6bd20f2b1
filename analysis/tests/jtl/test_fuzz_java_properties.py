"""Fuzz: any bytes as a .properties file (keys, separators, continuations, escapes, any Latin-1) give the table
java.util.Properties would, or a refusal in one line naming the file and the line of the bad escape."""

from hypothesis import given
from hypothesis import strategies as st

from fuzz import accepted, assert_one_line_refusal, budget, fuzz
from littlegrid.jtl import java_properties
from littlegrid.usererror import UserError

PIECES = ["key", "jmeter.save.saveservice.output_format", "=", ":", " ", "\t", "\f", "\\", "\\\\", "\\u0041", "\\u00",
          "\\uZZZZ", "\\n", "\\t", "#", "!", "\n", "\r\n", "\r", "csv", "true", "é", "\xff", "\x00", "日本"]


@fuzz
@budget(200)
@given(text=st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=5)), max_size=40).map("".join))
def test_any_properties_text_gives_a_table_or_a_one_line_refusal_at_its_line(tmp_path, text):
    path = tmp_path / "user.properties"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        table = java_properties.load(path)
    except UserError as error:
        assert_one_line_refusal(error, path)
        assert "malformed \\uxxxx escape" in str(error) and str(error)[len(str(path)):].split(":")[1].isdigit()
        return
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in table.items())
    accepted()
