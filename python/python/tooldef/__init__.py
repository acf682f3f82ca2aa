"""tooldef: LLM tool definitions compiled to every provider's schema, and the arguments a model
sends back validated by the Rust library.

Everything here is the Rust library's public API through the extension module
``tooldef._tooldef``; no rule of the language or the validator is written in Python.
"""

from tooldef._tooldef import (
    Batch,
    Call,
    CompileError,
    Dispatched,
    Toolset,
    ValidationResult,
    __version__,
    import_tools,
)

__all__ = [
    "Batch",
    "Call",
    "CompileError",
    "Dispatched",
    "Toolset",
    "ValidationResult",
    "import_tools",
    "__version__",
]
