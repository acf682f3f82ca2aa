"""Drives `tooldef serve` with the MCP Python SDK and prints what it saw as one JSON object.

    client.py stdio -- COMMAND ARGS...   (the server is started by the SDK's stdio client)
    client.py http URL TOKEN             (the server is already listening; TOKEN is required)

Handlers started by the server write their pid to $TOOLDEF_TEST_PID_DIR (see handlers/slow.py),
which lets this script check that a timed-out or cancelled handler's process is gone. The Rust
test (mcp_server.rs) makes the assertions; this script only records.
"""

import asyncio
import contextlib
import json
import os
import sys
import time

import httpx2
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

PID_DIR = os.environ["TOOLDEF_TEST_PID_DIR"]


def texts(result):
    return [c.text for c in result.content if getattr(c, "type", None) == "text"]


def call_record(result):
    return {
        "is_error": bool(result.is_error),
        "structured": result.structured_content,
        "text": texts(result),
    }


def pids():
    return {f for f in os.listdir(PID_DIR) if f.endswith(".pid")}


def alive(pid):
    """Whether a process runs: it exists and is not a zombie waiting to be reaped."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False


async def wait_gone(pid, within):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.02)
    return not alive(pid)


async def new_pid(before, within=10.0):
    deadline = time.monotonic() + within
    while True:
        new = pids() - before
        if new:
            with open(os.path.join(PID_DIR, new.pop())) as f:
                return int(f.read())
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(0.01)


class Approver:
    def __init__(self):
        self.answer = "accept"
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params.message)
        if self.answer == "accept":
            return types.ElicitResult(action="accept", content={})
        return types.ElicitResult(action=self.answer)


async def scenario(session, approver, out):
    init = await session.initialize()
    out["init"] = {
        "protocol_version": init.protocol_version,
        "server": init.server_info.name,
        "instructions": init.instructions,
    }

    tools, pages, cursor = [], 0, None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        pages += 1
        tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
        cursor = page.next_cursor
        if not cursor or pages > 20:
            break
    out["tools"] = tools
    out["pages"] = pages

    out["echo"] = call_record(await session.call_tool("echo", {"message": "hi", "tags": ["a"]}))
    out["invalid"] = call_record(await session.call_tool("echo", {"message": ""}))
    out["add"] = call_record(await session.call_tool("add", {"a": 2}))
    out["wrong_output"] = call_record(await session.call_tool("wrong_output", {"a": 2}))
    out["crash"] = call_record(await session.call_tool("crash", {"reason": "boom"}))
    out["unbound"] = call_record(await session.call_tool("unbound", {}))
    try:
        r = await session.call_tool("ech", {})
        out["unknown"] = {"result": call_record(r)}
    except MCPError as e:
        out["unknown"] = {"code": e.code, "message": e.message}

    # Timeout: the binding allows 3 s; the handler would sleep 5.
    before = pids()
    start = time.monotonic()
    r = await session.call_tool("slow", {"seconds": 5})
    out["timeout"] = call_record(r)
    out["timeout"]["seconds"] = time.monotonic() - start
    pid = await new_pid(before, within=0)
    out["timeout"]["pid_seen"] = pid is not None
    out["timeout"]["killed"] = pid is not None and await wait_gone(pid, 2.0)

    # Cancellation: cancel the call's task once its handler runs; the SDK sends
    # notifications/cancelled for the abandoned request.
    before = pids()
    task = asyncio.create_task(session.call_tool("slow", {"seconds": 30}))
    pid = await new_pid(before)
    cancelled_at = time.monotonic()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    out["cancel"] = {
        "pid_seen": pid is not None,
        "killed": pid is not None and await wait_gone(pid, 5.0),
        "seconds_to_gone": time.monotonic() - cancelled_at,
    }

    # Progress: a call with a progress callback, short enough to finish.
    notes = []

    async def on_progress(progress, total, message):
        notes.append({"progress": progress, "message": message})

    r = await session.call_tool("slow", {"seconds": 1.1}, progress_callback=on_progress)
    out["progress"] = call_record(r)
    out["progress"]["notes"] = notes

    # Approval through elicitation.
    approver.answer = "accept"
    out["approve_accept"] = call_record(await session.call_tool("delete_file", {"path": "/x"}))
    approver.answer = "decline"
    out["approve_decline"] = call_record(await session.call_tool("delete_file", {"path": "/x"}))
    out["approval_asked"] = approver.asked

    # A valid call still works after all of that.
    out["after"] = call_record(await session.call_tool("add", {"a": 1, "b": 2}))


async def no_elicitation(session, out):
    await session.initialize()
    out["approve_unsupported"] = call_record(
        await session.call_tool("delete_file", {"path": "/x"})
    )


async def over_stdio(command, out):
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    approver = Approver()
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w, elicitation_callback=approver) as s:
            await scenario(s, approver, out)
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await no_elicitation(s, out)


async def over_http(url, token, out):
    # Without the token, and with a wrong one, the endpoint answers 401 before MCP sees anything.
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient() as c:
        r = await c.post(url, json=hello, headers=accept)
        out["http_no_token"] = {"status": r.status_code, "www_authenticate": r.headers.get("www-authenticate")}
        r = await c.post(url, json=hello, headers={**accept, "Authorization": "Bearer wrong-" + token})
        out["http_wrong_token"] = {"status": r.status_code}

    def client():
        return httpx2.AsyncClient(
            headers={"Authorization": "Bearer " + token}, timeout=httpx2.Timeout(30.0, read=60.0)
        )

    approver = Approver()
    async with client() as http:
        async with streamable_http_client(url, http_client=http) as streams:
            r, w = streams[0], streams[1]
            async with ClientSession(r, w, elicitation_callback=approver) as s:
                await scenario(s, approver, out)
    async with client() as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await no_elicitation(s, out)


def main():
    out = {}
    try:
        if sys.argv[1] == "stdio":
            asyncio.run(over_stdio(sys.argv[3:], out))
        else:
            asyncio.run(over_http(sys.argv[2], sys.argv[3], out))
    finally:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
