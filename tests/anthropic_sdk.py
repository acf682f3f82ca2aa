"""Checks tooldef's anthropic-strict output against the anthropic SDK's own types, offline.

Reads a JSON array of cases from standard input, each {"name": ..., "tools": <anthropic-strict
output>}, a list of tools. Every tool must validate as `anthropic.types.ToolParam` (in
pydantic's strict mode) and dump back to the same JSON, so that no key is unknown to the SDK
(unknown keys are dropped on the way) and none is renamed; it must say `"strict": true`; and its
`input_schema` must pass the SDK's own `transform_schema`, which refuses a schema without a
`type`, `anyOf`, `enum` or `const`. Exits with status 1 and one line per problem otherwise, and
with status 3 when the anthropic package is not installed.
"""

import json
import sys

try:
    import anthropic
    from anthropic.types import ToolParam
    from pydantic import TypeAdapter, ValidationError
except ImportError:
    print("the anthropic package is not installed", file=sys.stderr)
    sys.exit(3)


def tool_problems(name, tool, adapter):
    """What is wrong with one tool."""
    try:
        validated = adapter.validate_python(tool, strict=True)
    except ValidationError as e:
        return [f"{name}: not a ToolParam: {e}"]
    problems = []
    dumped = adapter.dump_python(validated, mode="json")
    if dumped != tool:
        problems.append(f"{name}: ToolParam does not round-trip:\n  sent {json.dumps(tool)}\n  kept {json.dumps(dumped)}")
    if tool.get("strict") is not True:
        problems.append(f"{name}: `strict` is not true")
    try:
        anthropic.transform_schema(tool["input_schema"])
    except Exception as e:  # the SDK raises ValueError for a schema it cannot read
        problems.append(f"{name}: the SDK's transform_schema refuses the input_schema: {e}")
    return problems


def main():
    cases = json.load(sys.stdin)
    adapter = TypeAdapter(ToolParam)
    problems = []
    tools = 0
    for case in cases:
        for tool in case["tools"]:
            tools += 1
            problems += tool_problems(f"{case['name']}: {tool.get('name')}", tool, adapter)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"anthropic {anthropic.__version__}: {tools} tools in {len(cases)} outputs validate as ToolParam")


main()
