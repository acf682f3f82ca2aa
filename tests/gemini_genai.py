"""Checks tooldef's Gemini output (both forms) against google-genai's own models, offline.

Reads a JSON array of cases from standard input, each {"name": ..., "tools": <gemini output>},
where the output is a list of `Tool` objects. Every `Tool` must validate as
`google.genai.types.Tool` (which forbids unknown keys) and dump back to the same JSON, so no
key is dropped or renamed on the way. Every declaration must also validate on its own as
`types.FunctionDeclaration` and use one schema form only: `parameters` (gemini-openapi), or
`parametersJsonSchema` and `responseJsonSchema` (gemini), whose keywords must all be among those
google-genai documents as supported for Gemini's JSON Schema (the docstring of
`GenerateContentConfig.response_json_schema`). Exits with status 1 and one line per problem
otherwise, and with status 3 when google-genai is not installed.
"""

import json
import re
import sys

try:
    from google.genai import types
except ImportError:
    print("google-genai is not installed", file=sys.stderr)
    sys.exit(3)


def supported_json_schema_keywords() -> set:
    """The keywords google-genai lists as supported in Gemini's JSON Schema."""
    doc = " ".join(types.GenerateContentConfig.model_fields["response_json_schema"].description.split())
    listed = doc.split("only the following properties are supported:")[1]
    listed = listed.split("The non-standard")[0]
    keywords = set(re.findall(r"`([$A-Za-z]+)`", listed))
    keywords.add("propertyOrdering")
    if not {"type", "$ref", "anyOf"} <= keywords:
        raise SystemExit(f"cannot read the supported keywords from google-genai: {keywords}")
    return keywords


SCHEMA_LISTS = ("anyOf", "oneOf", "prefixItems")
SCHEMA_MAPS = ("properties", "$defs")
SCHEMA_ONE = ("items", "additionalProperties")


def unsupported_keywords(schema, supported, at):
    """Every keyword of `schema` (and of its subschemas) that Gemini does not list."""
    if not isinstance(schema, dict):
        return []
    found = [f"{at}: `{k}`" for k in schema if k not in supported]
    for k in SCHEMA_LISTS:
        for i, sub in enumerate(schema.get(k) or []):
            found += unsupported_keywords(sub, supported, f"{at}.{k}[{i}]")
    for k in SCHEMA_MAPS:
        for name, sub in (schema.get(k) or {}).items():
            found += unsupported_keywords(sub, supported, f"{at}.{k}.{name}")
    for k in SCHEMA_ONE:
        found += unsupported_keywords(schema.get(k), supported, f"{at}.{k}")
    return found


def declaration_problems(name, decl, supported):
    """What is wrong with one declaration, checked as a `FunctionDeclaration` of its own."""
    try:
        parsed = types.FunctionDeclaration.model_validate(decl)
    except Exception as e:  # pydantic.ValidationError, reported with the case name
        return [f"{name}: not a google.genai FunctionDeclaration: {e}"]
    problems = []
    back = parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
    if back != decl:
        problems.append(f"{name}: the FunctionDeclaration round trip changed it")
    if parsed.parameters is not None and parsed.parameters_json_schema is not None:
        problems.append(f"{name}: parameters and parametersJsonSchema are mutually exclusive")
    for field in ("parameters_json_schema", "response_json_schema"):
        schema = getattr(parsed, field)
        if schema is None:
            continue
        if field == "parameters_json_schema" and schema.get("type") != "object":
            problems.append(f"{name}: parametersJsonSchema must describe an object")
        for bad in unsupported_keywords(schema, supported, field):
            problems.append(f"{name}: keyword not supported by Gemini's JSON Schema at {bad}")
    return problems


def main() -> int:
    cases = json.load(sys.stdin)
    supported = supported_json_schema_keywords()
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
            for decl in tool.get("functionDeclarations") or []:
                problems += declaration_problems(case["name"], decl, supported)
    if checked == 0:
        problems.append("no function declaration was checked")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"checked {checked} function declarations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
