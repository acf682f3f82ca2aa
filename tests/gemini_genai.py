"""Checks tooldef's Gemini output against google-genai's own models, offline.

Reads a JSON array of cases from standard input, each {"name": ..., "tools": <gemini output>},
where the output is a list of `Tool` objects. Every `Tool` must validate as
`google.genai.types.Tool` (which forbids unknown keys) and dump back to the same JSON, so no
key is dropped or renamed on the way. Exits with status 1 and one line per problem otherwise,
and with status 3 when google-genai is not installed.
"""

import json
import sys

try:
    from google.genai import types
except ImportError:
    print("google-genai is not installed", file=sys.stderr)
    sys.exit(3)


def main() -> int:
    cases = json.load(sys.stdin)
    problems = []
    checked = 0
    for case in cases:
        for tool in case["tools"]:
            try:
                parsed = types.Tool.model_validate(tool)
            except Exception as e:  # pydantic.ValidationError, reported with the case name
                problems.append(f"{case['name']}: not a google.genai Tool: {e}")
                continue
            back = parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
            if back != tool:
                problems.append(
                    f"{case['name']}: round trip changed the tool:\n"
                    f"  sent: {json.dumps(tool, sort_keys=True)}\n"
                    f"  back: {json.dumps(back, sort_keys=True)}"
                )
            for decl in parsed.function_declarations or []:
                if not isinstance(decl, types.FunctionDeclaration) or not decl.name:
                    problems.append(f"{case['name']}: a declaration without a name")
                checked += 1
    if checked == 0:
        problems.append("no function declaration was checked")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"checked {checked} function declarations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
