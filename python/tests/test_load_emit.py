"""Item 1: loading sources, compile errors, and emitting every target."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import tooldef
from conftest import EXAMPLES, FORECAST, WEATHER


def test_from_files_reads_a_file_and_a_folder(tmp_path: Path) -> None:
    one = tooldef.Toolset.from_files(WEATHER)
    assert one.names == ["get_weather_by_locality"]
    two = tooldef.Toolset.from_files(WEATHER, str(EXAMPLES / "issue_tracker.tool"))
    assert "get_weather_by_locality" in two
    assert len(two) > len(one)
    # Folders are read as the command line reads them: hidden folders are skipped.
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.tool").write_text("this does not compile")
    (tmp_path / "a.tool").write_text(FORECAST)
    assert tooldef.Toolset.from_files(tmp_path).names == ["get_forecast"]


def test_imports_are_read_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "common.tool").write_text("type City = string @min_length(1)\n")
    (tmp_path / "main.tool").write_text(
        'import { City } from "./common.tool"\n/// Look a city up.\ntool find { city: City }\n'
    )
    tools = tooldef.Toolset.from_files(tmp_path / "main.tool")
    assert not tools.is_valid("find", '{"city": ""}')
    assert tools.is_valid("find", '{"city": "Oslo"}')


def test_compile_error_lists_every_diagnostic_like_the_cli() -> None:
    with pytest.raises(tooldef.CompileError) as caught:
        tooldef.Toolset.from_source("tool t { a: strng }", name="bad.tool")
    e = caught.value
    assert isinstance(e, ValueError)
    assert str(e).splitlines() == [
        "bad.tool:1:6: [missing-description] tool `t` has no description",
        "bad.tool:1:10: [undescribed-field] parameter `a` of tool `t` has no description",
        "bad.tool:1:13: [unknown-type] unknown type `strng`",
    ]
    codes = [(d["code"], d["line"], d["column"], d["severity"]) for d in e.diagnostics]
    assert codes == [
        ("missing-description", 1, 6, "error"),
        ("undescribed-field", 1, 10, "warning"),
        ("unknown-type", 1, 13, "error"),
    ]
    assert e.diagnostics[2]["file"] == "bad.tool"


def test_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.tool"):
        tooldef.Toolset.from_files(tmp_path / "nope.tool")


def test_duplicate_tool_across_files_is_a_compile_error(tmp_path: Path) -> None:
    (tmp_path / "a.tool").write_text(FORECAST)
    (tmp_path / "b.tool").write_text(FORECAST)
    with pytest.raises(tooldef.CompileError, match="duplicate-name"):
        tooldef.Toolset.from_files(tmp_path)


def test_signature(forecast: tooldef.Toolset) -> None:
    assert forecast.signature("get_forecast").startswith("get_forecast(city: string")


@pytest.mark.parametrize(
    "target",
    [
        "json-schema",
        "openai",
        "openai-strict",
        "openai-responses",
        "anthropic",
        "anthropic-strict",
        "gemini",
        "gemini-openapi",
        "mcp",
    ],
)
def test_emit_returns_plain_python(forecast: tooldef.Toolset, target: str) -> None:
    doc = forecast.emit(target)
    # Plain objects: they round-trip through pickle and repr without the extension.
    assert pickle.loads(pickle.dumps(doc)) == doc
    assert "get_forecast" in repr(doc)


def test_emit_is_what_each_sdk_request_takes(
    weather: tooldef.Toolset, forecast: tooldef.Toolset
) -> None:
    import anthropic.types
    import google.genai.types as genai
    import mcp.types
    import openai.types.chat
    import openai.types.responses
    from pydantic import TypeAdapter

    chat = TypeAdapter(list[openai.types.chat.ChatCompletionToolParam])
    for target in ("openai", "openai-strict"):
        tools = chat.validate_python(weather.emit(target))
        assert tools[0]["function"]["name"] == "get_weather_by_locality"
    responses = TypeAdapter(list[openai.types.responses.FunctionToolParam])
    assert responses.validate_python(weather.emit("openai-responses"))[0]["type"] == "function"
    claude = TypeAdapter(list[anthropic.types.ToolParam])
    assert claude.validate_python(weather.emit("anthropic"))[0]["input_schema"]["type"] == "object"
    strict_tools = claude.validate_python(weather.emit("anthropic-strict"), strict=True)
    assert strict_tools[0]["strict"] is True
    for tools, target in ((weather, "gemini"), (forecast, "gemini-openapi")):
        [tool] = tools.emit(target)
        parsed = genai.Tool.model_validate(tool)
        assert parsed.function_declarations is not None
        assert parsed.function_declarations[0].name == tools.names[0]
    listed = mcp.types.ListToolsResult.model_validate(weather.emit("mcp"))
    assert listed.tools[0].input_schema["type"] == "object"


def test_unknown_target_names_the_choices(forecast: tooldef.Toolset) -> None:
    with pytest.raises(ValueError, match="openai-strict"):
        forecast.emit("openai-strictest")


def test_a_target_that_cannot_carry_a_tool_is_a_compile_error(weather: tooldef.Toolset) -> None:
    with pytest.raises(tooldef.CompileError) as caught:
        weather.emit("gemini-openapi")
    [d] = caught.value.diagnostics
    assert d["code"] == "invalid-name" and d["file"] == str(WEATHER)
