"""Serving a toolset's tools from an MCP Python SDK server (``mcp.server.mcpserver.MCPServer``).

Each tool is listed with the ``inputSchema`` (and ``outputSchema``, annotations, title) tooldef
emits for MCP, and each call goes through ``Toolset.call``: the Rust runtime validates the
arguments (with lax coercions where the tool is ``@lax``), asks for approval where the tool is
``@requires_approval`` (here through MCP elicitation, the client asking its user), and runs the
handler under the tool's policies. An invalid call is an ``isError`` result with the message for
the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldef._tooldef import Toolset


def register(
    toolset: Toolset,
    server: Any,
    handlers: Mapping[str, Callable[[dict[str, Any]], Any]] | None = None,
) -> list[str]:
    """Registers every tool of ``toolset`` on ``server``; returns the names registered."""
    import anyio.from_thread
    import anyio.to_thread
    from mcp.server.mcpserver.tools.base import Tool
    from mcp.types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import BaseModel

    from tooldef._tooldef import CallError

    class Approve(BaseModel):
        approve: bool

    for name, function in (handlers or {}).items():
        toolset.register_handler(name, function)

    class TooldefTool(Tool):
        """A tool whose calls the toolset validates and runs."""

        emitted_output: dict[str, Any] | None = None

        @property
        def output_schema(self) -> dict[str, Any] | None:
            return self.emitted_output

        async def run(
            self, arguments: dict[str, Any], context: Any, convert_result: bool = False
        ) -> Any:
            def approver(tool: str, args: dict[str, Any]) -> bool | str:
                message = f"Allow the call of `{tool}` with {json.dumps(args)}?"
                result = anyio.from_thread.run(context.elicit, message, Approve)
                if result.action == "accept" and result.data.approve:
                    return True
                return f"the user did not approve the call ({result.action})"

            name = self.name

            def call() -> CallToolResult:
                try:
                    reply = toolset.call(name, arguments, approver=approver)
                except CallError as e:
                    return CallToolResult(
                        content=[TextContent(type="text", text=str(e))], is_error=True
                    )
                content = reply.content
                text = content if isinstance(content, str) else json.dumps(content)
                structured = (
                    content
                    if isinstance(content, dict) and not reply.is_error and self.emitted_output
                    else None
                )
                return CallToolResult(
                    content=[TextContent(type="text", text=text)],
                    structured_content=structured,
                    is_error=reply.is_error,
                )

            return await anyio.to_thread.run_sync(call)

    async def placeholder() -> None:
        """Never called: the toolset runs the calls."""

    names = []
    manager = server._tool_manager
    for spec in toolset.emit("mcp")["tools"]:
        annotations = spec.get("annotations")
        base = Tool.from_function(
            placeholder,
            name=spec["name"],
            title=spec.get("title"),
            description=spec.get("description", ""),
            annotations=ToolAnnotations.model_validate(annotations) if annotations else None,
        )
        fields = {key: getattr(base, key) for key in type(base).model_fields}
        fields["parameters"] = spec["inputSchema"]
        tool = TooldefTool(**fields, emitted_output=spec.get("outputSchema"))
        manager._tools[tool.name] = tool
        names.append(tool.name)
    return names
