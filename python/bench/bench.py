"""Benchmark of the tooldef package against its Python peers, from the model's text.

    python python/bench/bench.py [--quick] [--dask-rows N]

Workloads: the weather example (`examples/weather.tool`, one valid call and one with 3
errors) and every valid single-turn BFCL call of `../shared/corpus/bfcl/derived/*.calls.jsonl`
(each function imported from its JSON Schema with `tooldef.import_tools`; the calls both sides
accept on the emitted, closed schema) with an invalid twin of each (the first argument given a
value of another JSON type, plus an undeclared key).

Every peer checks the same schema: tooldef's emitted `json-schema` parameters, which
`jsonschema_rs` and python `jsonschema` receive after `json.loads` of the same text, and a
pydantic model written to match the weather tool. Each figure is the best of several rounds of
a loop over the whole set; the ratios are the peer's time over tooldef's, measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema
import jsonschema_rs
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

import tooldef

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
WEATHER_TOOL = "get_weather_by_locality"
WEATHER_VALID = {
    "city": "Paris",
    "country": "FR",
    "unit": "celsius",
    "days": 3,
    "format": "html",
    "tags": ["travel", "spring"],
    "at": {"lat": 48.8566, "lon": 2.3522},
}
WEATHER_INVALID = {"city": "", "country": "FR", "unit": "kelvin", "days": 20, "tags": ["travel"]}


class Location(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    lat: Annotated[float, Field(ge=-90, le=90)]
    lon: Annotated[float, Field(ge=-180, le=180)]


class Weather(BaseModel):
    """The weather tool's parameters as a pydantic model (strict, closed, the same bounds)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)
    city: Annotated[str, Field(min_length=1)]
    state: str | None = None
    country: str
    unit: Literal["celsius", "fahrenheit"] = "celsius"
    days: Annotated[int, Field(ge=1, le=14)] = 1
    format: Literal["html", "markdown"] = "markdown"
    tags: Annotated[list[str], Field(max_length=10)] | None = None
    at: Location | None = None
    labels: dict[str, str] | None = None
    first_name: str | None = Field(default=None, alias="first-name")


class Case:
    """One call: the tool, its text, and each peer's validator for it."""

    def __init__(self, tools: tooldef.Toolset, tool: str, text: str, schema: dict[str, Any]):
        self.tools = tools
        self.tool = tool
        self.text = text
        self.schema = schema


def best(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def weather_cases(tools: tooldef.Toolset) -> tuple[list[Case], list[Case]]:
    [doc] = tools.emit("json-schema")
    schema = doc["parameters"]
    valid = [Case(tools, WEATHER_TOOL, json.dumps(WEATHER_VALID), schema)]
    invalid = [Case(tools, WEATHER_TOOL, json.dumps(WEATHER_INVALID), schema)]
    return valid, invalid


def twin(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The call with its first argument of another JSON type and an undeclared key."""
    out = dict(args)
    if out:
        key = next(iter(out))
        out[key] = [] if not isinstance(out[key], list) else "x"
    out["__undeclared"] = 1
    return out


def bfcl_cases() -> tuple[list[Case], list[Case], dict[str, int]] | None:
    derived = CORPUS / "bfcl" / "derived"
    if not derived.is_dir():
        return None
    sources: dict[str, str] = {}
    names: dict[str, str] = {}
    records = []
    stats = {"records": 0, "not_imported": 0, "disagree": 0}
    for path in sorted(derived.glob("*.calls.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if not record.get("jsonschema_valid"):
                continue
            stats["records"] += 1
            key = json.dumps(record["json_schema"], sort_keys=True)
            if key not in names:
                name = f"f{len(names)}"
                names[key] = name
                try:
                    source = tooldef.import_tools(record["json_schema"], name=name)
                    tooldef.Toolset.from_source(source)
                except ValueError:
                    source = ""
                sources[name] = source
            if not sources[names[key]]:
                stats["not_imported"] += 1
                continue
            records.append((names[key], record["args"]))
    kept = [(name, text) for name, text in sources.items() if text]
    tools = tooldef.Toolset.from_sources_list([(f"{n}.tool", t) for n, t in kept])
    schemas = {d["name"]: d["parameters"] for d in tools.emit("json-schema")}
    valid: list[Case] = []
    invalid: list[Case] = []
    for name, args in records:
        schema = schemas[name]
        text = json.dumps(args)
        if not (tools.is_valid(name, text) and jsonschema_rs.validator_for(schema).is_valid(args)):
            stats["disagree"] += 1
            continue
        valid.append(Case(tools, name, text, schema))
        bad = twin(args, schema)
        invalid.append(Case(tools, name, json.dumps(bad), schema))
    stats["tools"] = len(kept)
    return valid, invalid, stats


def measure(
    label: str,
    valid: list[Case],
    invalid: list[Case],
    rounds: int,
    py_rounds: int,
    rows: list[list[str]],
) -> None:
    rs = {id(c.schema): jsonschema_rs.validator_for(c.schema) for c in valid + invalid}
    py = {id(c.schema): jsonschema.Draft202012Validator(c.schema) for c in valid + invalid}
    loads = json.loads

    def ours_is_valid(cases: Sequence[Case]) -> Callable[[], object]:
        items = [(c.tools.is_valid, c.tool, c.text) for c in cases]
        return lambda: [f(t, x) for f, t, x in items]

    # Each tool's validator taken once, as the peers' validators are.
    validators: dict[tuple[int, str], tooldef.ToolValidator] = {}
    for c in valid + invalid:
        validators.setdefault((id(c.tools), c.tool), c.tools.validator(c.tool))

    def ours_validator(cases: Sequence[Case]) -> Callable[[], object]:
        items = [(validators[id(c.tools), c.tool].is_valid, c.text) for c in cases]
        return lambda: [f(x) for f, x in items]

    def rs_is_valid(cases: Sequence[Case]) -> Callable[[], object]:
        items = [(rs[id(c.schema)].is_valid, c.text) for c in cases]
        return lambda: [f(loads(x)) for f, x in items]

    def py_is_valid(cases: Sequence[Case]) -> Callable[[], object]:
        items = [(py[id(c.schema)].is_valid, c.text) for c in cases]
        return lambda: [f(loads(x)) for f, x in items]

    def ours_validate(cases: Sequence[Case]) -> Callable[[], object]:
        items = [(c.tools.validate, c.tool, c.text) for c in cases]
        return lambda: [(r.valid, r.message) for r in (f(t, x) for f, t, x in items)]

    def rs_validate(cases: Sequence[Case]) -> Callable[[], object]:
        items = [(rs[id(c.schema)].iter_errors, c.text) for c in cases]
        return lambda: [[str(e) for e in f(loads(x))] for f, x in items]

    for kind, cases in (("valid", valid), ("invalid", invalid)):
        n = len(cases)
        ours = best(ours_is_valid(cases), rounds)
        held = best(ours_validator(cases), rounds)
        peer = best(rs_is_valid(cases), rounds)
        slow = best(py_is_valid(cases), py_rounds)
        for operation, t in (("is_valid", ours), ("validator(tool).is_valid", held)):
            rows.append(
                [
                    f"{label} {kind} ({n})",
                    operation,
                    us(t, n),
                    f"jsonschema_rs {us(peer, n)}",
                    ratio(peer, t),
                ]
            )
            rows.append(
                [
                    f"{label} {kind} ({n})",
                    operation,
                    us(t, n),
                    f"jsonschema {us(slow, n)}",
                    ratio(slow, t),
                ]
            )
        ours = best(ours_validate(cases), rounds)
        peer = best(rs_validate(cases), rounds)
        rows.append(
            [
                f"{label} {kind} ({n})",
                "validate + messages",
                us(ours, n),
                f"jsonschema_rs iter_errors {us(peer, n)}",
                ratio(peer, ours),
            ]
        )


def us(seconds: float, n: int) -> str:
    return f"{seconds / n * 1e6:.2f} µs"


def ratio(peer: float, ours: float) -> str:
    return f"{peer / ours:.2f}×"


def pydantic_rows(tools: tooldef.Toolset, rounds: int, rows: list[list[str]]) -> None:
    adapter = TypeAdapter(Weather)
    validator = tools.validator(WEATHER_TOOL)
    for kind, args in (("valid", WEATHER_VALID), ("invalid", WEATHER_INVALID)):
        text = json.dumps(args)
        reps = 20_000
        bytes_text = text.encode()

        def ours(text: str = text, reps: int = reps) -> None:
            for _ in range(reps):
                tools.validate(WEATHER_TOOL, text).arguments  # noqa: B018

        def held(text: str = text, reps: int = reps) -> None:
            for _ in range(reps):
                validator.validate(text).arguments  # noqa: B018

        def peer(bytes_text: bytes = bytes_text, reps: int = reps) -> None:
            for _ in range(reps):
                try:
                    adapter.validate_json(bytes_text)
                except ValueError:
                    pass

        a, h, b = best(ours, rounds), best(held, rounds), best(peer, rounds)
        for operation, t in (("validate → arguments", a), ("validator.validate → arguments", h)):
            rows.append(
                [
                    f"weather {kind} (1)",
                    operation,
                    us(t, reps),
                    f"pydantic validate_json {us(b, reps)}",
                    ratio(b, t),
                ]
            )


def many_rows(
    valid: list[Case], invalid: list[Case], rows: list[list[str]], weather: tooldef.Toolset
) -> None:
    # The weather tool: one million texts, a third invalid.
    texts = [json.dumps({**WEATHER_VALID, "days": 1 + i % 14}) for i in range(200)]
    texts += [json.dumps(WEATHER_INVALID)] * 100
    texts = texts * (1_000_000 // len(texts) + 1)
    texts = texts[:1_000_000]
    for threads in (1, 2):
        start = time.perf_counter()
        batch = weather.validate_many(WEATHER_TOOL, texts, threads=threads)
        seconds = time.perf_counter() - start
        assert len(batch) == len(texts)
        rows.append(
            [
                f"weather ({len(texts):,})",
                f"validate_many, {threads} thread(s)",
                f"{seconds:.2f} s",
                f"{len(texts) / seconds * 60 / 1e6:.1f}M calls/min",
                "",
            ]
        )
    if not valid:
        return
    # BFCL: every call and twin, grouped by tool, repeated to about a million texts.
    by_tool: dict[str, list[str]] = {}
    for c in valid + invalid:
        by_tool.setdefault(c.tool, []).append(c.text)
    total = sum(len(v) for v in by_tool.values())
    times = 1_000_000 // total + 1
    tools = valid[0].tools
    start = time.perf_counter()
    count = 0
    for tool, group in by_tool.items():
        count += len(tools.validate_many(tool, group * times))
    seconds = time.perf_counter() - start
    rows.append(
        [
            f"BFCL ({count:,})",
            "validate_many, 2 threads",
            f"{seconds:.2f} s",
            f"{count / seconds * 60 / 1e6:.1f}M calls/min",
            "",
        ]
    )


def dask_rows(rows_count: int, rows: list[list[str]]) -> None:
    sys.path.insert(0, str(ROOT / "python" / "examples"))
    import dask_validate
    from dask.distributed import Client, LocalCluster

    tools = tooldef.Toolset.from_files(ROOT / "examples" / "weather.tool")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "calls.jsonl")
        good = json.dumps({"tool": WEATHER_TOOL, "arguments": json.dumps(WEATHER_VALID)})
        bad = json.dumps({"tool": WEATHER_TOOL, "arguments": json.dumps(WEATHER_INVALID)})
        with open(path, "w", encoding="utf-8") as f:
            for i in range(rows_count):
                f.write((bad if i % 10 == 0 else good) + "\n")
        size = os.path.getsize(path)
        seconds = {}
        for workers in (1, 2):
            cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
            )
            with cluster, Client(cluster) as client:
                # Once to warm the workers (imports, the toolset compiled), then timed.
                dask_validate.validate_file(client, path, tools, blocksize="8MiB")
                start = time.perf_counter()
                result = dask_validate.validate_file(client, path, tools, blocksize="8MiB")
                seconds[workers] = time.perf_counter() - start
            assert result["rows"] == rows_count
            rows.append(
                [
                    f"Dask JSONL ({rows_count:,} rows, {size / 2**20:.0f} MiB)",
                    f"{workers} worker process(es)",
                    f"{seconds[workers]:.2f} s",
                    f"{rows_count / seconds[workers] * 60 / 1e6:.1f}M calls/min",
                    "" if workers == 1 else f"{seconds[1] / seconds[2]:.2f}× of 1 worker",
                ]
            )


def main() -> None:
    parser = argparse.ArgumentParser(description="tooldef's Python benchmark")
    parser.add_argument("--quick", action="store_true", help="one round each (a smoke run)")
    parser.add_argument("--dask-rows", type=int, default=2_000_000)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    rounds, py_rounds = (1, 1) if args.quick else (7, 2)
    rows: list[list[str]] = []
    weather = tooldef.Toolset.from_files(ROOT / "examples" / "weather.tool")
    wv, wi = weather_cases(weather)
    # One call is too short a loop to time: the weather call is repeated.
    measure("weather", wv * 2000, wi * 2000, rounds, py_rounds, rows)
    pydantic_rows(weather, rounds, rows)
    bfcl = bfcl_cases()
    if bfcl is None:
        print(f"notice: the corpus is absent at {CORPUS}; the BFCL rows are skipped")
        bv: list[Case] = []
        bi: list[Case] = []
    else:
        bv, bi, stats = bfcl
        print(f"BFCL: {stats}")
        measure("BFCL", bv, bi, rounds, py_rounds, rows)
    many_rows(bv, bi, rows, weather)
    if not args.no_dask:
        dask_rows(args.dask_rows if not args.quick else 20_000, rows)
    header = ["set", "operation", "tooldef", "peer", "ratio (peer / tooldef)"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(
        f"\n{os.cpu_count()} cores, Python {sys.version.split()[0]}, tooldef {tooldef.__version__}"
    )


if __name__ == "__main__":
    main()
