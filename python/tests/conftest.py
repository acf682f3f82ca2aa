"""Shared fixtures: the repository's examples and the external corpus beside the project."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import tooldef

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CORPUS = ROOT.parent / "shared" / "corpus"

WEATHER = EXAMPLES / "weather.tool"
FORECAST = """
/// Return the weather forecast for a city.
@read_only
tool get_forecast {
  /// The city, e.g. "Paris".
  city: string @min_length(1)
  /// Forecast length in days.
  days?: integer @min(1) @max(14) = 1
  unit?: "celsius" | "fahrenheit" = "celsius"
}

/// A forecast as the model reports it.
type Report { city: string, high_c: number, summary?: string }
"""


@pytest.fixture(scope="module")
def forecast() -> tooldef.Toolset:
    return tooldef.Toolset.from_source(FORECAST, name="forecast.tool")


@pytest.fixture(scope="module")
def weather() -> tooldef.Toolset:
    return tooldef.Toolset.from_files(WEATHER)


def corpus_dir() -> Path:
    """The corpus, or a skip with a notice (a failure under CI, where it must be present)."""
    if CORPUS.is_dir():
        return CORPUS
    if os.environ.get("CI") == "true":
        pytest.fail(f"the corpus is missing at {CORPUS} (CI=true)")
    pytest.skip(f"notice: the corpus is absent at {CORPUS}; corpus tests skipped")


def bfcl_calls() -> Iterator[dict[str, object]]:
    """Every single-turn BFCL ground-truth call the reference validator accepts."""
    derived = corpus_dir() / "bfcl" / "derived"
    for path in sorted(derived.glob("*.calls.jsonl")):
        with path.open(encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                if record.get("jsonschema_valid"):
                    yield record
