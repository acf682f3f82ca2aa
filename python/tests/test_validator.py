"""`Toolset.validator(tool)`: one tool's validator with its mode and target settled, and the
per-name cache behind `Toolset.is_valid` and `Toolset.validate`."""

from __future__ import annotations

import gc
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import tooldef
from conftest import FORECAST

CALLS = [
    '{"city": "Oslo", "days": 3}',
    '{"days": 3, "city": "Oslo"}',
    '{"city": "", "days": 30, "extra": 1}',
    '{"city": "Oslo", "days": "3"}',
    "{city: 'Oslo', days: \"3\",}",
    '{"city": "Oslo", "days": null, "unit": null}',
    '{"city": "Oslo", "unit": "kelvin"}',
    "not json",
    "",
]


def outcome(r: tooldef.ValidationResult) -> tuple[object, ...]:
    return (r.valid, r.arguments, r.errors, r.message, r.coercions, r.repairs)


@pytest.mark.parametrize(
    "options",
    [{}, {"mode": "strict"}, {"mode": "lax"}, {"target": "openai-strict"}],
    ids=["default", "strict", "lax", "openai-strict"],
)
def test_a_validator_answers_as_its_toolset(forecast: tooldef.Toolset, options: dict) -> None:
    v = forecast.validator("get_forecast", **options)
    for text in CALLS:
        for given in (text, text.encode()):
            assert v.is_valid(given) == forecast.is_valid("get_forecast", given, **options)
            assert outcome(v.validate(given)) == outcome(
                forecast.validate("get_forecast", given, **options)
            )
    parsed = {"city": "Oslo", "days": 3}
    assert v.is_valid(parsed) == forecast.is_valid("get_forecast", parsed, **options)
    assert outcome(v.validate(parsed)) == outcome(
        forecast.validate("get_forecast", parsed, **options)
    )


def test_a_validator_names_its_settings(forecast: tooldef.Toolset) -> None:
    v = forecast.validator("get_forecast")
    assert (v.tool, v.mode, v.target) == ("get_forecast", "strict", None)
    assert v.signature == forecast.signature("get_forecast")
    assert repr(v) == "ToolValidator('get_forecast', mode='strict')"
    lax = forecast.validator("get_forecast", mode="lax", target="openai-strict")
    assert (lax.mode, lax.target) == ("lax", "openai-strict")
    assert repr(lax) == "ToolValidator('get_forecast', mode='lax', target='openai-strict')"


def test_a_validator_outlives_its_toolset() -> None:
    tools = tooldef.Toolset.from_source(FORECAST, name="forecast.tool")
    v = tools.validator("get_forecast")
    del tools
    gc.collect()
    assert v.is_valid('{"city": "Oslo"}')
    assert v.validate('{"city": "Oslo"}').arguments == {
        "city": "Oslo",
        "days": 1,
        "unit": "celsius",
    }


def test_a_validator_refuses_what_the_toolset_refuses(forecast: tooldef.Toolset) -> None:
    with pytest.raises(KeyError, match="did you mean `get_forecast`"):
        forecast.validator("get_forecats")
    with pytest.raises(TypeError, match="^tool"):
        forecast.validator(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mode"):
        forecast.validator("get_forecast", mode="loose")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="target"):
        forecast.validator("get_forecast", target="nope")  # type: ignore[arg-type]
    v = forecast.validator("get_forecast")
    for bad in (3, ["a"], None):
        with pytest.raises(TypeError, match="^arguments"):
            v.is_valid(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="^arguments"):
            v.validate(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="UTF-8"):
        v.is_valid(b"\xff\xfe")
    with pytest.raises(TypeError, match=r"^texts\[1\]"):
        v.validate_many(["{}", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="^texts"):
        v.validate_many("{}")
    # The library's limits hold: past 4 MiB of text, refused without a crash.
    big = '{"city": "' + "x" * (5 * 1024 * 1024) + '"}'
    assert not v.is_valid(big) and not v.validate(big).valid


def test_validate_many_on_a_validator(forecast: tooldef.Toolset) -> None:
    calls = CALLS * 200
    lax = forecast.validator("get_forecast", mode="lax")
    for threads in (1, 2):
        batch = lax.validate_many(calls, threads=threads)
        expected = forecast.validate_many("get_forecast", calls, mode="lax", threads=threads)
        assert batch.messages == expected.messages
        assert batch.valid == [lax.is_valid(t) for t in calls]


def test_one_validator_from_eight_threads(forecast: tooldef.Toolset) -> None:
    v = forecast.validator("get_forecast")
    calls = CALLS * 50
    expected = [(v.is_valid(t), v.validate(t).message) for t in calls]

    def work(_: int) -> list[tuple[bool, str | None]]:
        return [(v.is_valid(t), v.validate(t).message) for t in calls]

    with ThreadPoolExecutor(max_workers=8) as pool:
        for got in pool.map(work, range(8)):
            assert got == expected


class Name(str):
    """A `str` subclass whose equality and hash are its own (the cache must not trust them)."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0


def test_the_cache_by_name_gives_the_uncached_answers() -> None:
    tools = tooldef.Toolset.from_source(
        FORECAST + "\n/// Time.\ntool get_time {\n  /// Zone.\n  tz: string\n}\n",
        name="forecast.tool",
    )
    # The first call of a name makes its validator, the later ones find it; a subclass of
    # `str` takes the general path, and an unknown name is still a KeyError.
    for _ in range(3):
        assert tools.is_valid("get_forecast", '{"city": "Oslo"}')
        assert not tools.is_valid("get_time", '{"city": "Oslo"}')
        assert tools.is_valid(Name("get_time"), '{"tz": "UTC"}')
        assert not tools.is_valid(Name("get_time"), '{"city": "Oslo"}')
        assert tools.validate("get_time", '{"tz": "UTC"}').arguments == {"tz": "UTC"}
        # Explicit None is the default, as omitted.
        assert tools.is_valid("get_forecast", '{"city": "Oslo"}', mode=None, target=None)
        with pytest.raises(KeyError, match="did you mean"):
            tools.is_valid("get_forecats", "{}")
        with pytest.raises(TypeError, match="^arguments"):
            tools.is_valid("get_forecast", 3)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="^tool"):
            tools.validate(3, "{}")  # type: ignore[arg-type]


def test_object_keys_are_the_same_however_many_there_are(forecast: tooldef.Toolset) -> None:
    # Keys come from a cache of `str` objects, bounded: past the bound they are made anew.
    tools = tooldef.Toolset.from_source(
        "/// Labels.\ntool tag {\n  /// Labels.\n  labels: map<string>\n}\n", name="tag.tool"
    )
    labels = {f"key-{i}-{'x' * (i % 80)}": str(i) for i in range(6000)}
    text = json.dumps({"labels": labels})
    for _ in range(2):
        got = tools.validate("tag", text).arguments
        assert got == {"labels": labels}
        assert list(got["labels"]) == list(labels)
    assert forecast.validate("get_forecast", '{"city": "Oslo"}').arguments == {
        "city": "Oslo",
        "days": 1,
        "unit": "celsius",
    }
