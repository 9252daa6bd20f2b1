"""The base of every record of the summary, and the value an axis takes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


AxisValue = int | float | str | bool


class Record(BaseModel):
    """Every part of the summary: immutable, strict types (no "3" for 3), no field the model does not name."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
