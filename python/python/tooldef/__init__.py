"""tooldef: LLM tool definitions compiled to every provider's schema, and the arguments a model
sends back validated by the Rust library.

Everything here is the Rust library's public API through the extension module
``tooldef._tooldef``; no rule of the language or the validator is written in Python.
"""

from __future__ import annotations

import atexit
from functools import lru_cache

from tooldef._tooldef import (
    Batch,
    Call,
    CallError,
    CompileError,
    Dispatched,
    HandlerDecorator,
    Reply,
    RunResult,
    Toolset,
    ToolValidator,
    ValidationResult,
    __version__,
    _wait_for_handlers,
    import_tools,
)

# A handler whose call timed out runs on to its end on a thread of its own; the interpreter
# must not finalize under it (the process would abort), so exit waits for it, a while.
atexit.register(_wait_for_handlers, 30.0)

__all__ = [
    "Batch",
    "Call",
    "CallError",
    "CompileError",
    "Dispatched",
    "HandlerDecorator",
    "Reply",
    "RunResult",
    "Toolset",
    "ToolValidator",
    "ValidationResult",
    "__version__",
    "import_tools",
]


@lru_cache(maxsize=32)
def _compiled(sources: tuple[tuple[str, str], ...]) -> Toolset:
    return Toolset.from_sources_list(list(sources))


def _rebuild(sources: list[tuple[str, str]]) -> Toolset:
    """Unpickles a toolset: its sources compiled, once per process (a toolset is immutable, so
    one compiled copy is shared)."""
    return _compiled(tuple((name, text) for name, text in sources))
