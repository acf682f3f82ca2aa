"""Items 2 and 8: validating arguments, and what bad input does."""

from __future__ import annotations

import json

import pytest

import tooldef


def test_text_bytes_and_dict_give_the_same_verdict(forecast: tooldef.Toolset) -> None:
    text = '{"city": "Oslo", "days": 3}'
    for given in (text, text.encode(), json.loads(text)):
        r = forecast.validate("get_forecast", given)
        assert r.valid and bool(r)
        # Normalized: defaults filled in, keys in declaration order.
        assert r.arguments == {"city": "Oslo", "days": 3, "unit": "celsius"}
        assert list(r.arguments) == ["city", "days", "unit"]
        assert r.errors == [] and r.message is None
        assert forecast.is_valid("get_forecast", given)


def test_invalid_arguments_carry_every_error_and_the_message(forecast: tooldef.Toolset) -> None:
    r = forecast.validate("get_forecast", '{"city": "", "days": 30, "extra": 1}')
    assert not r.valid and r.arguments is None
    assert [(e["path"], e["code"]) for e in r.errors] == [
        ("/city", "too-short"),
        ("/days", "above-maximum"),
        ("/extra", "unknown-key"),
    ]
    assert r.message is not None
    assert "get_forecast" in r.message and "at most 14" in r.message
    assert not forecast.is_valid("get_forecast", '{"city": "", "days": 30}')


def test_lax_mode_coerces_and_repairs(forecast: tooldef.Toolset) -> None:
    text = "{city: 'Oslo', days: \"3\",}"
    assert not forecast.is_valid("get_forecast", text)
    r = forecast.validate("get_forecast", text, mode="lax")
    assert r.valid, r.message
    assert r.arguments == {"city": "Oslo", "days": 3, "unit": "celsius"}
    assert [c["rule"] for c in r.coercions] == ["integer-from-string"]
    assert r.coercions[0]["path"] == "/days" and r.coercions[0]["to"] == 3
    assert r.repairs and {"kind", "line", "column"} <= set(r.repairs[0])
    assert forecast.is_valid("get_forecast", text, mode="lax")


def test_target_reading_null_for_absent(forecast: tooldef.Toolset) -> None:
    text = '{"city": "Oslo", "days": null, "unit": null}'
    assert not forecast.is_valid("get_forecast", text)
    r = forecast.validate("get_forecast", text, target="openai-strict")
    assert r.valid and r.arguments == {"city": "Oslo", "days": 1, "unit": "celsius"}


def test_structured_outputs(forecast: tooldef.Toolset) -> None:
    block = forecast.response_format("Report", "openai")
    assert block["type"] == "json_schema"
    assert block["json_schema"]["schema"]["required"] == ["city", "high_c", "summary"]
    assert "input_schema" not in json.dumps(forecast.response_format("Report", "anthropic"))
    ok = forecast.parse("Report", '{"city": "Oslo", "high_c": 4}')
    assert ok.valid and ok.arguments == {"city": "Oslo", "high_c": 4}
    bad = forecast.parse("Report", '{"city": "Oslo"}')
    assert not bad.valid and bad.errors[0]["code"] == "missing-field"
    strict = forecast.parse(
        "Report", '{"city": "Oslo", "high_c": 4, "summary": null}', target="openai"
    )
    assert strict.valid and strict.arguments == {"city": "Oslo", "high_c": 4}
    with pytest.raises(KeyError, match="Report"):
        forecast.parse("Reprot", "{}")


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda t: t.validate(3, "{}"), "tool"),
        (lambda t: t.validate("get_forecast", 3), "arguments"),
        (lambda t: t.validate("get_forecast", ["a"]), "arguments"),
        (lambda t: t.is_valid("get_forecast", "{}", mode=1), "mode"),
        (lambda t: t.is_valid("get_forecast", "{}", target=b"openai"), "target"),
        (lambda t: t.validate("get_forecast", {1: "x"}), "arguments"),
        (lambda t: t.validate("get_forecast", {"city": object()}), "arguments"),
        (lambda t: t.validate_many("get_forecast", "{}"), "texts"),
        (lambda t: t.validate_many("get_forecast", ["{}", 3]), "texts[1]"),
        (lambda t: t.dispatch(42), "response"),
        (lambda t: t.emit(5), "target"),
        (lambda t: tooldef.Toolset.from_source(b"tool"), "text"),
        (lambda t: tooldef.Toolset.from_files(3), "paths"),
    ],
)
def test_wrong_types_are_type_errors_naming_the_parameter(
    forecast: tooldef.Toolset, call: object, param: str
) -> None:
    with pytest.raises(TypeError) as caught:
        call(forecast)  # type: ignore[operator]
    assert str(caught.value).startswith(param), str(caught.value)


def test_bad_values_are_value_errors(forecast: tooldef.Toolset) -> None:
    with pytest.raises(ValueError, match="mode"):
        forecast.validate("get_forecast", "{}", mode="loose")
    with pytest.raises(ValueError, match="UTF-8"):
        forecast.validate("get_forecast", b"\xff\xfe")
    with pytest.raises(ValueError, match="not a JSON number"):
        forecast.validate("get_forecast", {"city": float("nan")})
    with pytest.raises(KeyError, match="did you mean `get_forecast`"):
        forecast.validate("get_forecats", "{}")


def test_the_librarys_limits_hold(forecast: tooldef.Toolset) -> None:
    # Past 4 MiB of text: refused with a message, not read.
    big = '{"city": "' + "x" * (5 * 1024 * 1024) + '"}'
    r = forecast.validate("get_forecast", big)
    assert not r.valid and r.message
    assert not forecast.is_valid("get_forecast", big)
    # Deeper than 128 levels: refused by the validator, as text and as a dict.
    deep_text = '{"city": ' + "[" * 200 + "]" * 200 + "}"
    assert not forecast.validate("get_forecast", deep_text).valid
    deep: object = []
    for _ in range(200):
        deep = [deep]
    assert not forecast.validate("get_forecast", {"city": deep}).valid
    # Past what the edge converts, and a structure holding itself: a ValueError, no crash.
    deeper: object = []
    for _ in range(100_000):
        deeper = [deeper]
    with pytest.raises(ValueError, match="deeper"):
        forecast.validate("get_forecast", {"city": deeper})
    cycle: dict[str, object] = {}
    cycle["city"] = cycle
    with pytest.raises(ValueError, match="deeper"):
        forecast.validate("get_forecast", cycle)


def test_garbage_text_is_an_invalid_result(forecast: tooldef.Toolset) -> None:
    for text in ("", "nul", "[1, 2", '{"city": "\\ud800"}', "\x00" * 10, "{" * 100_000):
        r = forecast.validate("get_forecast", text)
        assert not r.valid and r.message
    for text in ("", "[1, 2", "\x00" * 10, "{" * 100_000):
        assert not forecast.validate("get_forecast", text, mode="lax").valid
