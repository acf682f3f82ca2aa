"""Two builds of the extension module in one process, against the peers, round by round.

    python python/bench/ab.py BASE_SO [--rounds N] [--quick]

`BASE_SO` is the `_tooldef*.so` of another build (say, unpacked from the wheel of the commit
before a change); the build installed as `tooldef` is the other side. Each round times every
workload once for each build and each peer, interleaved, so that a busy machine slows all of
them alike; each figure is the best of a few passes over the set, and the table gives the
median over the rounds of each time and of each ratio (the peer's time over tooldef's, taken
within a round). Workloads as in `bench.py`: the weather call and BFCL's valid calls with their
invalid twins, from the model's text; `is_valid` through `Toolset.is_valid(tool, text)` and
through a `Toolset.validator(tool)`, and `validate(...).arguments` against pydantic's
`validate_json` on the weather model.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import jsonschema_rs
from pydantic import TypeAdapter

import tooldef

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402


def load(path: str) -> ModuleType:
    """The extension module at `path`, loaded beside the installed one."""
    name = "tooldef_base._tooldef"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def best(fn: Callable[[], object], passes: int) -> float:
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base", help="the _tooldef*.so of the other build")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    base = load(args.base)
    rounds = 1 if args.quick else args.rounds
    loads = json.loads

    # name -> (n calls, function running them all once, passes)
    work: dict[str, tuple[int, Callable[[], object], int]] = {}

    def add_is_valid(label: str, cases: list[bench.Case]) -> None:
        tools = cases[0].tools
        old = base.Toolset.from_sources_list(tools.sources)
        validators: dict[str, Any] = {}
        for c in cases:
            if c.tool not in validators:
                validators[c.tool] = tools.validator(c.tool)
        rs = {id(c.schema): jsonschema_rs.validator_for(c.schema) for c in cases}
        py = {id(c.schema): jsonschema.Draft202012Validator(c.schema) for c in cases}
        a = [(old.is_valid, c.tool, c.text) for c in cases]
        b = [(tools.is_valid, c.tool, c.text) for c in cases]
        v = [(validators[c.tool].is_valid, c.text) for c in cases]
        r = [(rs[id(c.schema)].is_valid, c.text) for c in cases]
        p = [(py[id(c.schema)].is_valid, c.text) for c in cases]
        n = len(cases)
        work[f"{label} base Toolset.is_valid"] = (n, lambda: [f(t, x) for f, t, x in a], 5)
        work[f"{label} new Toolset.is_valid"] = (n, lambda: [f(t, x) for f, t, x in b], 5)
        work[f"{label} new validator.is_valid"] = (n, lambda: [f(x) for f, x in v], 5)
        work[f"{label} jsonschema_rs"] = (n, lambda: [f(loads(x)) for f, x in r], 5)
        work[f"{label} jsonschema"] = (n, lambda: [f(loads(x)) for f, x in p], 2)

    weather = tooldef.Toolset.from_files(bench.ROOT / "examples" / "weather.tool")
    wv, wi = bench.weather_cases(weather)
    add_is_valid("weather valid", wv * 2000)
    add_is_valid("weather invalid", wi * 2000)
    found = bench.bfcl_cases()
    if found is not None:
        bv, bi, _ = found
        add_is_valid("BFCL valid", bv)
        add_is_valid("BFCL invalid", bi)

    adapter = TypeAdapter(bench.Weather)
    old_weather = base.Toolset.from_sources_list(weather.sources)
    tool = bench.WEATHER_TOOL
    validator = weather.validator(tool)
    reps = 2000
    for kind, value in (("valid", bench.WEATHER_VALID), ("invalid", bench.WEATHER_INVALID)):
        text = json.dumps(value)
        raw = text.encode()

        def old(text: str = text) -> None:
            for _ in range(reps):
                old_weather.validate(tool, text).arguments  # noqa: B018

        def new(text: str = text) -> None:
            for _ in range(reps):
                weather.validate(tool, text).arguments  # noqa: B018

        def new_v(text: str = text) -> None:
            for _ in range(reps):
                validator.validate(text).arguments  # noqa: B018

        def peer(raw: bytes = raw) -> None:
            for _ in range(reps):
                try:
                    adapter.validate_json(raw)
                except ValueError:
                    pass

        label = f"weather {kind} arguments"
        work[f"{label} base Toolset.validate"] = (reps, old, 7)
        work[f"{label} new Toolset.validate"] = (reps, new, 7)
        work[f"{label} new validator.validate"] = (reps, new_v, 7)
        work[f"{label} pydantic"] = (reps, peer, 7)

    times: dict[str, list[float]] = {k: [] for k in work}
    for _ in range(rounds):
        for name, (n, fn, passes) in work.items():
            times[name].append(best(fn, 1 if args.quick else passes) / n)

    def ratios(peer: str, ours: str) -> str:
        per_round = [p / o for p, o in zip(times[peer], times[ours], strict=True)]
        return f"{statistics.median(per_round):.2f}× ({min(per_round):.2f}–{max(per_round):.2f})"

    print(f"{rounds} rounds; median time a call; ratios: median (min–max) over the rounds\n")
    for name in work:
        print(f"{name:50s} {statistics.median(times[name]) * 1e9:9.0f} ns")
    print()
    sets = ["weather valid", "weather invalid", "BFCL valid", "BFCL invalid"]
    print("| set | tooldef | vs jsonschema | vs jsonschema_rs |")
    print("|---|---|---:|---:|")
    for s in sets:
        if f"{s} jsonschema" not in times:
            continue
        for ours in ("base Toolset.is_valid", "new Toolset.is_valid", "new validator.is_valid"):
            print(
                f"| {s} | {ours} | {ratios(f'{s} jsonschema', f'{s} {ours}')} "
                f"| {ratios(f'{s} jsonschema_rs', f'{s} {ours}')} |"
            )
    print("\n| set | tooldef | vs pydantic validate_json |")
    print("|---|---|---:|")
    for kind in ("valid", "invalid"):
        label = f"weather {kind} arguments"
        for ours in ("base Toolset.validate", "new Toolset.validate", "new validator.validate"):
            print(f"| weather {kind} | {ours} | {ratios(f'{label} pydantic', f'{label} {ours}')} |")


if __name__ == "__main__":
    main()
