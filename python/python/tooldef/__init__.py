"""tooldef: LLM tool definitions compiled to every provider's schema, and the arguments a model
sends back validated by the Rust library.

Everything here is the Rust library's public API through the extension module
``tooldef._tooldef``; no rule of the language or the validator is written in Python.
"""

from __future__ import annotations

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
    ValidationResult,
    __version__,
    import_tools,
)

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
