"""Item 4: handlers run through the Rust runtime, under the policies of the `.tool` file."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import tooldef

SOURCE = """
/// Return the weather forecast for a city.
@lax
tool get_forecast -> Forecast {
  city: string @min_length(1)
  days?: integer @min(1) @max(14) = 1
}

/// A forecast.
type Forecast { city: string, days: integer, high_c: number }

/// Delete a city's records.
@requires_approval @destructive
tool delete_city { city: string }

/// A flaky service.
@retry(times: 2, wait: 0) @on_error(suppress)
tool flaky { n: integer }

/// A service that fails for its caller.
@on_error(raise)
tool broken {}

/// A slow service.
@on_error(suppress)
tool slow {}
"""


@pytest.fixture
def tools() -> tooldef.Toolset:
    return tooldef.Toolset.from_source(SOURCE, name="run.tool")


def test_a_sync_handler_gets_normalized_arguments(tools: tooldef.Toolset) -> None:
    seen: list[dict[str, Any]] = []

    @tools.handler("get_forecast")
    def forecast(args: dict[str, Any]) -> dict[str, Any]:
        seen.append(args)
        return {"city": args["city"], "days": args["days"], "high_c": 4}

    reply = tools.call("get_forecast", '{"city": "Oslo", "days": "3"}')
    assert not reply.is_error
    assert reply.content == {"city": "Oslo", "days": 3, "high_c": 4}
    assert seen == [{"city": "Oslo", "days": 3}]
    assert reply.audit["outcome"] == "ok" and reply.audit["mode"] == "lax"
    assert reply.audit["coercions"][0]["path"] == "/days"
    # Invalid arguments never reach the handler: the model gets the message.
    bad = tools.call("get_forecast", '{"city": ""}')
    assert bad.is_error and "at least 1 character" in bad.content
    assert bad.audit["outcome"] == "invalid" and len(seen) == 1


def test_an_async_handler_and_the_output_check(tools: tooldef.Toolset) -> None:
    async def forecast(args: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"city": args["city"], "days": "many", "high_c": 4}

    tools.register_handler("get_forecast", forecast)
    with pytest.raises(tooldef.CallError) as caught:
        tools.call("get_forecast", {"city": "Oslo"})
    # The result does not fit `-> Forecast`: a failure of the attempt, named by its pointer.
    assert "/days" in str(caught.value)
    assert caught.value.audit["outcome"] == "error"


def test_approval_through_the_approver(tools: tooldef.Toolset) -> None:
    ran: list[str] = []
    tools.register_handler("delete_city", lambda args: ran.append(args["city"]) or "deleted")
    asked: list[tuple[str, dict[str, Any]]] = []

    def deny(tool: str, args: dict[str, Any]) -> str:
        asked.append((tool, args))
        return "not on a Friday"

    refused = tools.call("delete_city", {"city": "Oslo"}, approver=deny)
    assert refused.is_error and "not on a Friday" in refused.content
    assert refused.audit["approved"] is False and ran == []
    assert asked == [("delete_city", {"city": "Oslo"})]
    # No approver: refused too.
    assert tools.call("delete_city", {"city": "Oslo"}).is_error and ran == []
    ok = tools.call("delete_city", {"city": "Oslo"}, approver=lambda tool, args: True)
    assert not ok.is_error and ok.content == "deleted" and ran == ["Oslo"]
    assert ok.audit["approved"] is True


def test_retry_and_on_error_see_python_exceptions(tools: tooldef.Toolset) -> None:
    attempts: list[int] = []

    @tools.handler("flaky")
    def flaky(args: dict[str, Any]) -> int:
        attempts.append(args["n"])
        if len(attempts) < 3:
            raise ConnectionError("the service is down")
        return args["n"] * 2

    reply = tools.call("flaky", {"n": 21})
    assert reply.content == 42 and reply.audit["attempts"] == 3
    attempts.clear()
    tools.register_handler("flaky", lambda args: 1 / 0)
    suppressed = tools.call("flaky", {"n": 1})
    assert suppressed.is_error and suppressed.audit["attempts"] == 3
    assert "ZeroDivisionError" in suppressed.content

    @tools.handler("broken")
    def broken(args: dict[str, Any]) -> None:
        raise KeyError("lost")

    with pytest.raises(tooldef.CallError, match="KeyError") as caught:
        tools.call("broken", {})
    assert caught.value.audit["outcome"] == "error"


def test_timeout(tools: tooldef.Toolset) -> None:
    import time

    tools.register_handler("slow", lambda args: time.sleep(1.0))
    reply = tools.call("slow", {}, timeout=0.05)
    assert reply.is_error and reply.audit["outcome"] == "timed_out"
    assert reply.audit["duration_ms"] < 900


def test_run_a_response_and_its_async_variant(tools: tooldef.Toolset) -> None:
    from anthropic.types import Message

    tools.register_handler(
        "get_forecast", lambda a: {"city": a["city"], "days": a["days"], "high_c": 1.5}
    )
    message = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "get_forecast", "input": {"city": "Oslo"}},
                {"type": "tool_use", "id": "t2", "name": "get_forecast", "input": {"city": ""}},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    out = tools.run(message)
    first, second = out.replies
    assert first["tool_use_id"] == "t1" and "is_error" not in first or not first["is_error"]
    assert json.loads(first["content"]) == {"city": "Oslo", "days": 1, "high_c": 1.5}
    assert second["tool_use_id"] == "t2" and second["is_error"] is True
    assert [a["outcome"] for a in out.audits] == ["ok", "invalid"]
    again = asyncio.run(tools.run_async(message))
    assert again.replies == out.replies


def test_registering_an_unknown_tool_is_a_key_error(tools: tooldef.Toolset) -> None:
    with pytest.raises(KeyError, match="get_forecast"):
        tools.register_handler("get_forecats", print)
    with pytest.raises(TypeError, match="function"):
        tools.register_handler("get_forecast", 3)


def test_exit_waits_for_a_timed_out_handler() -> None:
    """A timed-out handler runs on to its end on a thread of its own; the interpreter exiting
    under it used to abort the process (exit status 134)."""
    import subprocess
    import sys

    program = (
        "import time, tooldef\n"
        "t = tooldef.Toolset.from_source('/// S.\\ntool slow {}\\n')\n"
        "t.register_handler('slow', lambda args: time.sleep(0.5))\n"
        "try:\n"
        "    t.call('slow', {}, timeout=0.05)\n"
        "except tooldef.CallError:\n"
        "    pass\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
