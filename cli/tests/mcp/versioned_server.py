"""A small MCP server (the Python SDK's high-level server, mcp >= 2) whose tools change with
`TOOLDEF_TEST_TOOLS`, for the `tooldef lock --server` tests (cli/tests/diff_lock.rs).

    TOOLDEF_TEST_TOOLS=1 python3 versioned_server.py    # the version that gets pinned
    TOOLDEF_TEST_TOOLS=2 python3 versioned_server.py    # `convert` takes fewer units
    TOOLDEF_TEST_TOOLS=3 python3 versioned_server.py    # `convert` is described anew

Over stdio. Every version has `ping`, unchanged.
"""

import os
from typing import Literal

from mcp.server.mcpserver import MCPServer as Server

version = os.environ.get("TOOLDEF_TEST_TOOLS", "1")
mcp = Server("tooldef-versioned", log_level="WARNING")


@mcp.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


if version == "2":

    @mcp.tool()
    def convert(value: float, unit: Literal["c", "f"]) -> str:
        """Converts a temperature."""
        return f"{value} {unit}"

elif version == "3":

    @mcp.tool()
    def convert(value: float, unit: Literal["c", "f", "k"]) -> str:
        """Converts a temperature to another unit, and rounds it."""
        return f"{value} {unit}"

else:

    @mcp.tool()
    def convert(value: float, unit: Literal["c", "f", "k"]) -> str:
        """Converts a temperature."""
        return f"{value} {unit}"


mcp.run()
