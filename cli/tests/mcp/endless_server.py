"""An MCP server over standard input and output (the standard library only) whose `tools/list`
never ends: every page holds 256 more tools, about a megabyte of JSON, and a new `nextCursor`."""
import json
import sys

BLOB = "x" * 4096
listed = 0
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "endless", "version": "1"},
        }
    elif method == "tools/list":
        tools = []
        for _ in range(256):
            listed += 1
            tools.append(
                {"name": f"t{listed}", "description": BLOB, "inputSchema": {"type": "object"}}
            )
        result = {"tools": tools, "nextCursor": str(listed)}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
