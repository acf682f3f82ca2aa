"""Check a large JSON Lines file of recorded tool calls on a Dask cluster.

Each line is one call, ``{"tool": NAME, "arguments": TEXT}``, where ``TEXT`` is the arguments
as the model sent them. Every partition is validated with ``Toolset.validate_many`` (Rust
threads, the GIL released); the toolset travels to the workers pickled by its sources, and
each worker process compiles it once.

    python examples/dask_validate.py calls.jsonl tools/ [--scheduler tcp://HOST:8786]

Without ``--scheduler`` a ``LocalCluster`` with two worker processes is started; with it, the
same code runs on a real cluster.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import dask.bag as db
from dask.distributed import Client, LocalCluster

import tooldef


def check_partition(lines: Iterable[str], tools: tooldef.Toolset) -> list[dict[str, Any]]:
    """The verdicts of one partition: counts, and the first invalid calls with their messages."""
    by_tool: dict[str, list[str]] = defaultdict(list)
    unknown = 0
    rows = 0
    for line in lines:
        if not line.strip():
            continue
        rows += 1
        record = json.loads(line)
        if record["tool"] in tools:
            by_tool[record["tool"]].append(record["arguments"])
        else:
            unknown += 1
    valid = 0
    examples: list[tuple[str, str]] = []
    for tool, texts in by_tool.items():
        batch = tools.validate_many(tool, texts)
        valid += batch.valid_count
        for _, message in batch.invalid[: max(0, 5 - len(examples))]:
            examples.append((tool, message))
    return [{"rows": rows, "valid": valid, "unknown": unknown, "examples": examples}]


def combine(parts: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {"rows": 0, "valid": 0, "unknown": 0, "examples": []}
    for p in parts:
        for key in ("rows", "valid", "unknown"):
            total[key] += p[key]
        total["examples"].extend(p["examples"][: max(0, 5 - len(total["examples"]))])
    total["invalid"] = total["rows"] - total["valid"] - total["unknown"]
    return total


def validate_file(
    client: Client, path: str, tools: tooldef.Toolset, blocksize: str = "16MiB"
) -> dict[str, Any]:
    """Validates every call of a JSON Lines file on the client's cluster."""
    bag = db.read_text(path, blocksize=blocksize)
    # The toolset travels in the graph as its sources; a worker process compiles them on the
    # first task that unpickles them and reuses that copy for the others (`tooldef._rebuild`).
    parts = bag.map_partitions(check_partition, tools).compute(scheduler=client)
    return combine(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("calls", help="a JSON Lines file of {tool, arguments} records")
    parser.add_argument("tools", nargs="+", help=".tool files or folders")
    parser.add_argument("--scheduler", help="a Dask scheduler address; default: a local cluster")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tools = tooldef.Toolset.from_files(*args.tools)
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True)
        client = Client(cluster)
    with client:
        start = time.perf_counter()
        result = validate_file(client, args.calls, tools)
        seconds = time.perf_counter() - start
    print(json.dumps({**result, "seconds": round(seconds, 3)}, indent=2))


if __name__ == "__main__":
    main()
