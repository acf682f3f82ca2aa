"""A small MCP server (the Python SDK's high-level server, mcp >= 2) for the `tooldef import --server/--url` and `tooldef call` tests.

Run by cli/tests/cli_mcp_client.rs:

    python3 fastmcp_server.py [--calls FILE] [--page-size N] [--http [--token TOKEN]]
    python3 fastmcp_server.py --dump-tools

Over stdio by default. `--calls FILE` appends one JSON line per tool call (name and arguments),
so that a test can tell whether the server was called. `--page-size N` splits `tools/list` into
pages of N tools, linked by `nextCursor`. `--http` serves streamable HTTP on 127.0.0.1 at a free
port and prints `PORT <n>` on standard output once listening; `--token TOKEN` then answers 401
to requests without `Authorization: Bearer TOKEN`. `--dump-tools` prints the server's own
`tools/list` result (all tools, as the SDK serializes them) and exits: what the tests compare the
import with.
"""

import argparse
import json
import socket
from typing import Literal, Optional

from pydantic import BaseModel, Field

# mcp 2 renamed FastMCP to MCPServer; server middleware (the pagination below) is new in 2.
from mcp.server.mcpserver import MCPServer as Server
from mcp.server.mcpserver.exceptions import ToolError

parser = argparse.ArgumentParser()
parser.add_argument("--calls")
parser.add_argument("--page-size", type=int)
parser.add_argument("--http", action="store_true")
parser.add_argument("--token")
parser.add_argument("--dump-tools", action="store_true")
opts = parser.parse_args()


def record(name, arguments):
    if opts.calls:
        with open(opts.calls, "a", encoding="utf-8") as f:
            f.write(json.dumps({"name": name, "arguments": arguments}) + "\n")


async def paginate(ctx, call_next):
    """Serves `tools/list` in pages of `--page-size` tools; the cursor is the next offset."""
    result = await call_next(ctx)
    if ctx.method != "tools/list" or not opts.page_size:
        return result
    if isinstance(result, BaseModel):
        result = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    params = ctx.params or {}
    start = int(params.get("cursor") or 0)
    end = start + opts.page_size
    tools = result["tools"]
    result["tools"] = tools[start:end]
    if end < len(tools):
        result["nextCursor"] = str(end)
    else:
        result.pop("nextCursor", None)
    return result


mcp = Server("tooldef-test", log_level="WARNING", middleware=[paginate])


class Size(BaseModel):
    width: int = Field(ge=1, description="Width in centimetres.")
    height: int = Field(ge=1)


class Parcel(BaseModel):
    """A parcel to send."""

    label: str = Field(min_length=1, max_length=40)
    weight: float
    size: Optional[Size] = None


class Stats(BaseModel):
    count: int
    mean: float


@mcp.tool()
def greet(
    name: str,
    times: int = 1,
    style: Literal["plain", "shout"] = "plain",
    tags: Optional[list[str]] = None,
) -> str:
    """Greets someone."""
    record("greet", {"name": name, "times": times, "style": style, "tags": tags})
    text = f"Hello, {name}!"
    if style == "shout":
        text = text.upper()
    return " ".join([text] * times)


@mcp.tool()
def send_parcel(parcel: Parcel, express: bool = False) -> str:
    """Sends a parcel."""
    record("send_parcel", {"parcel": parcel.model_dump(), "express": express})
    return f"sent {parcel.label}"


@mcp.tool()
def stats(values: list[float]) -> Stats:
    """Counts and averages numbers."""
    record("stats", {"values": values})
    return Stats(count=len(values), mean=sum(values) / len(values) if values else 0.0)


@mcp.tool()
def explode(reason: str) -> str:
    """Always fails."""
    record("explode", {"reason": reason})
    raise ToolError(f"exploded: {reason}")


def serve_http():
    import uvicorn

    app = mcp.streamable_http_app()

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and opts.token:
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {opts.token}".encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections made from now on wait in the backlog for uvicorn
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(guarded, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


async def dump_tools():
    tools = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in await mcp.list_tools()]
    print(json.dumps({"tools": tools}))


if opts.dump_tools:
    import asyncio

    asyncio.run(dump_tools())
elif opts.http:
    serve_http()
else:
    mcp.run()
