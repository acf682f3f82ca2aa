"""Checks the messages `Runtime::run_response` builds against the provider SDKs' own types
(tests/turn.rs writes them on standard input as {provider: [message, ...]}): Anthropic's
`MessageParam`, google-genai's `Content`, and the MCP SDK's `CallToolResult` inside a JSON-RPC
response; and the tool choices of `Toolset::tool_choice`, as Anthropic's `ToolChoiceParam` and
google-genai's `ToolConfig`. Prints one line per message checked; exits non-zero on the first that does not fit."""

import json
import sys

from pydantic import TypeAdapter

import anthropic.types
import mcp.types
from google.genai import types as genai

cases = json.load(sys.stdin)
checked = 0
for message in cases["anthropic"]:
    TypeAdapter(anthropic.types.MessageParam).validate_python(message, strict=False)
    for block in message["content"]:
        TypeAdapter(anthropic.types.ToolResultBlockParam).validate_python(block)
    checked += 1
for message in cases["gemini"]:
    content = genai.Content.model_validate(message)
    assert content.role == "user", content
    assert all(p.function_response is not None for p in content.parts or []), content
    checked += 1
for message in cases["mcp"]:
    response = mcp.types.JSONRPCResponse.model_validate(message)
    mcp.types.CallToolResult.model_validate(response.result)
    checked += 1
for choice in cases.get("anthropic_tool_choice", []):
    TypeAdapter(anthropic.types.ToolChoiceParam).validate_python(choice)
    checked += 1
for config in cases.get("gemini_tool_config", []):
    parsed = genai.ToolConfig.model_validate(config)
    assert parsed.function_calling_config is not None, config
    checked += 1
print(f"{checked} messages fit the SDKs' types")
