"""Item 3: dispatching the SDKs' own response objects (and their dicts)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import tooldef

GOOD = {"city": "Oslo", "days": 2}
BAD = {"city": "", "days": 30}


def openai_chat() -> Any:
    from openai.types.chat import ChatCompletion

    def call(i: int, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "get_forecast", "arguments": json.dumps(args)},
        }

    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [call(1, GOOD), call(2, BAD)],
                    },
                }
            ],
        }
    )


def openai_responses() -> Any:
    from openai.types.responses import Response

    def call(i: int, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "function_call",
            "id": f"fc_{i}",
            "call_id": f"call_{i}",
            "name": "get_forecast",
            "arguments": json.dumps(args),
            "status": "completed",
        }

    return Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-test",
            "output": [call(1, GOOD), call(2, BAD)],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


def anthropic_message() -> Any:
    from anthropic.types import Message

    return Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_forecast", "input": GOOD},
                {"type": "tool_use", "id": "toolu_2", "name": "get_forecast", "input": BAD},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )


def gemini_response() -> Any:
    from google.genai.types import GenerateContentResponse

    return GenerateContentResponse.model_validate(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"function_call": {"name": "get_forecast", "args": GOOD}},
                            {"function_call": {"name": "get_forecast", "args": BAD}},
                        ],
                    }
                }
            ]
        }
    )


@pytest.mark.parametrize(
    ("build", "provider"),
    [
        (openai_chat, "openai"),
        (openai_responses, "openai-responses"),
        (anthropic_message, "anthropic"),
        (gemini_response, "gemini"),
    ],
)
def test_sdk_responses_dispatch_and_the_provider_is_detected(
    forecast: tooldef.Toolset, build: Any, provider: str
) -> None:
    response = build()
    for given in (response, response.model_dump(mode="json", by_alias=True, exclude_none=True)):
        out = forecast.dispatch(given)
        assert out.provider == provider
        assert [c.verdict for c in out.calls] == ["valid", "invalid"]
        ok, bad = out.calls
        assert ok.tool == "get_forecast" and ok.valid
        assert ok.arguments == {"city": "Oslo", "days": 2, "unit": "celsius"}
        assert {e["code"] for e in bad.errors} == {"too-short", "above-maximum"}
        assert bad.message is not None and "at most 14" in bad.message
        assert not out.all_valid
        # One reply, for the invalid call, in the provider's shape.
        [reply] = out.replies
        assert "at most 14" in json.dumps(reply)
    # The provider named gives the same verdicts.
    named = forecast.dispatch(response, provider=provider)
    assert [c.verdict for c in named.calls] == ["valid", "invalid"]


def test_replies_are_what_each_sdk_sends_back(forecast: tooldef.Toolset) -> None:
    from anthropic.types import ToolResultBlockParam
    from google.genai.types import Part
    from openai.types.chat import ChatCompletionToolMessageParam
    from pydantic import TypeAdapter

    [reply] = forecast.dispatch(openai_chat()).replies
    msg = TypeAdapter(ChatCompletionToolMessageParam).validate_python(reply)
    assert msg["tool_call_id"] == "call_2"
    [reply] = forecast.dispatch(anthropic_message()).replies
    block = TypeAdapter(ToolResultBlockParam).validate_python(reply)
    assert block["tool_use_id"] == "toolu_2" and block.get("is_error") is True
    [reply] = forecast.dispatch(gemini_response()).replies
    part = Part.model_validate(reply)
    assert part.function_response is not None
    assert part.function_response.name == "get_forecast"


def test_mcp_call_tool_request(forecast: tooldef.Toolset) -> None:
    from mcp.types import CallToolRequest, CallToolRequestParams

    params = CallToolRequestParams(name="get_forecast", arguments=BAD)
    for given in (params, CallToolRequest(params=params)):
        out = forecast.dispatch(given)
        assert out.provider == "mcp"
        [call] = out.calls
        assert call.verdict == "invalid"
        [reply] = out.replies
        assert reply["result"]["isError"] is True
    out = forecast.dispatch({"name": "get_forecast", "arguments": GOOD})
    assert out.all_valid and out.replies == []


def test_text_responses_and_lax_mode(forecast: tooldef.Toolset) -> None:
    text = openai_chat().model_dump_json()
    assert forecast.dispatch(text).provider == "openai"
    assert forecast.dispatch(text.encode(), provider="openai").calls[1].verdict == "invalid"
    lax = json.loads(text)
    lax["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = (
        '{"city":"Oslo","days":"2"}'
    )
    strict = forecast.dispatch(lax)
    assert strict.calls[0].verdict == "invalid"
    coerced = forecast.dispatch(lax, mode="lax")
    assert coerced.calls[0].valid and coerced.calls[0].arguments["days"] == 2
    assert coerced.calls[0].coercions[0]["rule"] == "integer-from-string"


def test_unknown_tools_and_bad_envelopes(forecast: tooldef.Toolset) -> None:
    response = anthropic_message().model_dump(mode="json")
    response["content"][1]["name"] = "get_forecats"
    out = forecast.dispatch(response)
    assert out.calls[0].verdict == "unknown"
    assert out.calls[0].message is not None and "get_forecast" in out.calls[0].message
    with pytest.raises(ValueError, match="provider"):
        forecast.dispatch({"hello": "world"})
    with pytest.raises(ValueError, match="malformed"):
        forecast.dispatch({"choices": [{"message": 3}]}, provider="openai")
    with pytest.raises(ValueError, match="not valid JSON"):
        forecast.dispatch("{oops")
