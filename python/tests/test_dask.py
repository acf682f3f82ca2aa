"""Item 7 on a cluster: the Dask example over a JSON Lines file of recorded calls."""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import pytest

import tooldef
from conftest import FORECAST, WEATHER

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

ROWS = 200_000


def write_calls(path: Path, rows: int) -> tuple[int, int, int]:
    """Writes `rows` recorded calls to two tools and one unknown tool; returns the counts of
    valid, invalid and unknown calls."""
    rng = random.Random(54)
    valid = invalid = unknown = 0
    with path.open("w", encoding="utf-8") as f:
        for i in range(rows):
            r = rng.random()
            if r < 0.01:
                record = {"tool": "get_horoscope", "arguments": "{}"}
                unknown += 1
            elif r < 0.5:
                ok = rng.random() < 0.8
                args = {"city": "Oslo" if ok else "", "days": rng.randint(1, 14)}
                record = {"tool": "get_forecast", "arguments": json.dumps(args)}
                valid, invalid = valid + ok, invalid + (not ok)
            else:
                ok = rng.random() < 0.8
                args = {
                    "city": f"c{i}",
                    "country": "NO",
                    "unit": "celsius" if ok else "kelvin",
                }
                record = {"tool": "get_weather_by_locality", "arguments": json.dumps(args)}
                valid, invalid = valid + ok, invalid + (not ok)
            f.write(json.dumps(record) + "\n")
    return valid, invalid, unknown


def test_dask_local_cluster_two_worker_processes(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    import dask_validate

    (tmp_path / "forecast.tool").write_text(FORECAST)
    tools = tooldef.Toolset.from_files(tmp_path / "forecast.tool", WEATHER)
    calls = tmp_path / "calls.jsonl"
    valid, invalid, unknown = write_calls(calls, ROWS)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        start = time.perf_counter()
        result = dask_validate.validate_file(client, str(calls), tools, blocksize="1MiB")
        seconds = time.perf_counter() - start
    print(f"dask: {ROWS} rows, 2 worker processes, {seconds:.2f} s")
    assert result["rows"] == ROWS
    assert (result["valid"], result["invalid"], result["unknown"]) == (valid, invalid, unknown)
    assert len(result["examples"]) == 5
    assert all("invalid" in message for _, message in result["examples"])
