"""Item 6: the tools registered on an MCP Python SDK server, called by an in-memory client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import tooldef

SOURCE = """
/// Add two numbers.
@lax @read_only
tool add -> Sum { a: number, b?: number = 1 }

/// A sum.
type Sum { total: number }

/// Forget everything.
@requires_approval @destructive
tool forget { what: string }
"""


def test_registered_tools_are_listed_validated_and_run() -> None:
    from mcp import Client
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ElicitRequestParams, ElicitResult

    tools = tooldef.Toolset.from_source(SOURCE, name="mcp.tool")
    server = MCPServer("tooldef-test")
    forgotten: list[str] = []
    names = tools.register(
        server,
        handlers={
            "add": lambda a: {"total": a["a"] + a["b"]},
            "forget": lambda a: forgotten.append(a["what"]) or "done",
        },
    )
    assert names == ["add", "forget"]
    answers = iter([True, False])
    asked: list[str] = []

    async def elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"approve": next(answers)})

    async def talk() -> None:
        # Elicitation is a server-initiated request: a connection with a back-channel.
        async with Client(server, mode="legacy", elicitation_callback=elicit) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["add"].input_schema == tools.emit("mcp")["tools"][0]["inputSchema"]
            assert listed["add"].annotations is not None
            assert listed["add"].annotations.read_only_hint is True
            # Lax: "2" is read as 2, and b gets its default.
            ok = await client.call_tool("add", {"a": "2"})
            assert not ok.is_error
            assert json.loads(ok.content[0].text) == {"total": 3}
            assert ok.structured_content == {"total": 3}
            # Invalid: an error result with the message for the model; the handler never runs.
            bad = await client.call_tool("add", {"b": 2})
            assert bad.is_error and "missing required parameter `a`" in bad.content[0].text
            # Approval through elicitation: approved once, then declined.
            yes = await client.call_tool("forget", {"what": "x"})
            assert not yes.is_error and forgotten == ["x"], yes.content
            no = await client.call_tool("forget", {"what": "y"})
            assert no.is_error and forgotten == ["x"]
            assert len(asked) == 2 and "forget" in asked[0]
        # Where the connection cannot ask the user, the call is refused, never run unasked.
        async with Client(server, elicitation_callback=elicit) as client:
            refused = await client.call_tool("forget", {"what": "z"})
            assert refused.is_error and forgotten == ["x"]
            assert "denied" in refused.content[0].text

    asyncio.run(talk())
