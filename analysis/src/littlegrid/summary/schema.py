"""docs/summary.schema.json, generated from the typed model: `python -m littlegrid.summary.schema > docs/summary.schema.json`
(tests/test_summary_schema.py fails when the committed file and the model differ)."""

import json

from littlegrid.summary import SCHEMA
from littlegrid.summary.model import Summary

SCHEMA_URI = "https://json-schema.org/draft/2020-12/schema"


def json_schema() -> dict:
    """The model's JSON Schema (draft 2020-12), its `schema` field pinned to this version's name."""
    schema = Summary.model_json_schema(by_alias=True)
    schema["properties"]["schema"]["const"] = SCHEMA
    return {"$schema": SCHEMA_URI, "$id": f"littlegrid:{SCHEMA}", **schema}


def text() -> str:
    return json.dumps(json_schema(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(text(), end="")
