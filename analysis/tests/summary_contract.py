"""The summary contract in the tests: every summary `analyze` returns while the tests run is validated against the
typed model (littlegrid.summary.model), whose image docs/summary.schema.json is (tests/test_summary_schema.py holds
the two equal). So a field the analysis adds without the model, or a type that drifts, fails the test that
produced it. The model validates in Rust (pydantic-core): 0.65 s for a 110 MB summary that jsonschema takes
two minutes over."""

import functools
import json
import types
import typing

from pydantic import BaseModel

from littlegrid.summary import dumps, invalid


def validating(analyze):
    """analyze, checking that each summary it returns, as summary.json would hold it, reads back into the model (a
    value the model holds but JSON cannot, such as an infinite bound, would come back null and fail here)."""
    @functools.wraps(analyze)
    def checked(*args, **kwargs):
        result = analyze(*args, **kwargs)
        problem = invalid(json.loads(dumps(result)))
        assert problem is None, f"the summary breaks the typed model (docs/summary.schema.json): {problem}"
        return result
    return checked


def complete(data: dict, model=None) -> dict:
    """A hand-written summary (or part of one) with every field the test did not set given its blank value: null
    where the model allows it, else an empty list, map or record, 0 or "". Tests of check, explain and compare
    write the few figures they judge; the reader still gets a summary the model accepts."""
    from littlegrid.summary.model import Summary

    model = model or Summary
    out = {}
    for name, field in model.model_fields.items():
        key = field.alias or name
        out[key] = _filled(data[key], field.annotation) if key in data else _blank(field.annotation)
    return out | {k: v for k, v in data.items() if k not in out}  # unknown keys stay, for the model to refuse


def _filled(value, annotation):
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if value is None:
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and isinstance(value, dict):
        return complete(value, annotation)
    if origin in (types.UnionType, typing.Union):
        records = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        return _filled(value, records[0]) if records and isinstance(value, dict) else value
    if origin is list and isinstance(value, list):
        # a histogram's thousands of ints: copied as they are, without a call for each (most of a history's runs)
        return list(value) if _as_is(args[0]) else [_filled(v, args[0]) for v in value]
    if origin is dict and isinstance(value, dict):
        return dict(value) if _as_is(args[1]) else {k: _filled(v, args[1]) for k, v in value.items()}
    return value


@functools.cache
def _as_is(annotation) -> bool:
    """Whether _filled returns every value of this annotation unchanged: no record in it, nor a list or map."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return False
    if origin in (types.UnionType, typing.Union):
        return not any(isinstance(a, type) and issubclass(a, BaseModel) for a in args)
    return origin not in (list, dict)


def _blank(annotation):
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (types.UnionType, typing.Union) and type(None) in args:
        return None
    if origin is list:
        return []
    if origin is dict:
        return {}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return complete({}, annotation)
    return {str: "", int: 0, float: 0.0, bool: False}[annotation]


def typed(data: dict, model=None):
    """A hand-written summary (or a part of it: a Cell, pass the model) as the renderer reads it: completed, then
    validated into the typed model."""
    from littlegrid.summary.model import Summary

    model = model or Summary
    return model.model_validate(complete(data, model))
