"""The peer of benches/mcp_load.rs: an MCP server on the Python SDK whose one tool validates its
arguments as tooldef's `echo` does (pydantic, from the type hints) and answers at once.

Usage: python3 echo_server.py PORT
"""

import sys
from typing import Annotated, Optional

from pydantic import Field

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer as Server

    NEW = True
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

    NEW = False

port = int(sys.argv[1])
server = Server("echo") if NEW else Server("echo", host="127.0.0.1", port=port, log_level="WARNING")


@server.tool()
def echo(
    message: Annotated[str, Field(min_length=1)],
    times: Annotated[int, Field(ge=1, le=5)] = 1,
    tags: Optional[list[str]] = None,
) -> dict:
    """Echo the arguments back."""
    return {"received": {"message": message, "times": times, "tags": tags}}


if NEW:
    server.run(transport="streamable-http", host="127.0.0.1", port=port)
else:
    server.run(transport="streamable-http")
