"""Item 7 on one machine: validate_many, pickling, and one toolset shared by threads."""

from __future__ import annotations

import json
import pickle
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import tooldef
from conftest import FORECAST


def texts(n: int, seed: int = 7) -> list[str]:
    """Calls of which about a third are invalid, in several ways."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            args: dict[str, object] = {"city": f"city{i}", "days": rng.randint(1, 14)}
        elif kind == 1:
            args = {"city": "Oslo", "unit": rng.choice(["celsius", "fahrenheit"])}
        else:
            args = {"city": "", "days": rng.randint(15, 99)}
        out.append(json.dumps(args))
    return out


def test_validate_many_agrees_with_validate(forecast: tooldef.Toolset) -> None:
    calls = texts(3_000)
    batch = forecast.validate_many("get_forecast", calls)
    assert len(batch) == len(calls)
    expected = [forecast.validate("get_forecast", t) for t in calls]
    assert batch.valid == [r.valid for r in expected]
    assert batch.messages == [r.message for r in expected]
    assert batch.invalid_count == 1_000 and batch.valid_count == 2_000
    assert [i for i, _ in batch.invalid] == [i for i in range(3_000) if i % 3 == 2]
    # Any number of threads gives the same verdicts; bytes are text too.
    one = forecast.validate_many("get_forecast", [t.encode() for t in calls], threads=1)
    assert one.messages == batch.messages


def test_validate_many_lax_and_empty(forecast: tooldef.Toolset) -> None:
    batch = forecast.validate_many("get_forecast", ['{"city": "Oslo", "days": "3"}'], mode="lax")
    assert batch.valid == [True]
    assert len(forecast.validate_many("get_forecast", [])) == 0
    with pytest.raises(KeyError):
        forecast.validate_many("nope", ["{}"])


def test_toolset_pickles_by_its_sources(forecast: tooldef.Toolset, tmp_path: Path) -> None:
    again = pickle.loads(pickle.dumps(forecast))
    assert again.names == forecast.names
    assert again.sources == [("forecast.tool", FORECAST)]
    calls = texts(300)
    assert again.validate_many("get_forecast", calls).messages == (
        forecast.validate_many("get_forecast", calls).messages
    )
    (tmp_path / "f.tool").write_text(FORECAST)
    from_file = tooldef.Toolset.from_files(tmp_path / "f.tool")
    assert pickle.loads(pickle.dumps(from_file)).sources == from_file.sources


def test_one_toolset_from_eight_threads(forecast: tooldef.Toolset) -> None:
    calls = texts(600)
    expected = [
        (r.valid, r.message, r.arguments)
        for r in (forecast.validate("get_forecast", t) for t in calls)
    ]

    def work(seed: int) -> bool:
        order = list(range(len(calls)))
        random.Random(seed).shuffle(order)
        for i in order:
            r = forecast.validate("get_forecast", calls[i])
            if (r.valid, r.message, r.arguments) != expected[i]:
                return False
            if forecast.is_valid("get_forecast", calls[i]) != expected[i][0]:
                return False
        batch = forecast.validate_many("get_forecast", calls, threads=2)
        return batch.messages == [e[1] for e in expected]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(8)))
    assert results == [True] * 8


def test_a_process_compiles_the_same_sources_once(forecast: tooldef.Toolset) -> None:
    data = pickle.dumps(forecast)
    assert pickle.loads(data) is pickle.loads(data)
