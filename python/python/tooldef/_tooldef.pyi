"""Type stubs of the extension module ``tooldef._tooldef``."""

from collections.abc import Awaitable, Callable, Iterable, Mapping
from os import PathLike
from typing import Any, Literal, TypedDict, TypeVar, final

_F = TypeVar("_F", bound=Callable[..., Any])

__version__: str

Mode = Literal["strict", "lax"]
Target = Literal[
    "json-schema",
    "openai",
    "openai-strict",
    "openai-responses",
    "anthropic",
    "anthropic-strict",
    "gemini",
    "gemini-openapi",
    "mcp",
]
Provider = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
Dialect = Literal["json-schema", "openai", "anthropic", "gemini", "mcp", "bfcl"]

class Diagnostic(TypedDict):
    file: str | None
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None
    code: str
    severity: Literal["error", "warning"]
    message: str
    help: str | None

class ValidationError(TypedDict):
    path: str
    code: str
    message: str

class Coercion(TypedDict):
    path: str
    rule: str
    to: Any

class Repair(TypedDict):
    kind: str
    line: int
    column: int

class CompileError(ValueError):
    """Sources that do not compile, or a tool a target cannot carry."""

    diagnostics: list[Diagnostic]

class CallError(RuntimeError):
    """A call that failed for its caller (a failure under `@on_error(raise)`, no handler)."""

    audit: dict[str, Any]

@final
class Reply:
    @property
    def content(self) -> Any: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def audit(self) -> dict[str, Any]: ...
    @property
    def reply(self) -> dict[str, Any] | None: ...

@final
class RunResult:
    @property
    def calls(self) -> list[Reply]: ...
    @property
    def replies(self) -> list[dict[str, Any]]: ...
    @property
    def audits(self) -> list[dict[str, Any]]: ...

@final
class HandlerDecorator:
    def __call__(self, function: _F) -> _F: ...

Approver = Callable[[str, dict[str, Any]], bool | str | None]

@final
class ValidationResult:
    @property
    def valid(self) -> bool: ...
    @property
    def arguments(self) -> dict[str, Any] | None: ...
    @property
    def errors(self) -> list[ValidationError]: ...
    @property
    def message(self) -> str | None: ...
    @property
    def coercions(self) -> list[Coercion]: ...
    @property
    def repairs(self) -> list[Repair]: ...
    def __bool__(self) -> bool: ...

@final
class Batch:
    @property
    def valid(self) -> list[bool]: ...
    @property
    def messages(self) -> list[str | None]: ...
    @property
    def invalid(self) -> list[tuple[int, str]]: ...
    @property
    def valid_count(self) -> int: ...
    @property
    def invalid_count(self) -> int: ...
    def __len__(self) -> int: ...

@final
class Call:
    @property
    def id(self) -> str | int | None: ...
    @property
    def tool(self) -> str: ...
    @property
    def verdict(self) -> Literal["valid", "invalid", "unknown"]: ...
    @property
    def valid(self) -> bool: ...
    @property
    def arguments(self) -> dict[str, Any] | None: ...
    @property
    def errors(self) -> list[ValidationError]: ...
    @property
    def message(self) -> str | None: ...
    @property
    def coercions(self) -> list[Coercion]: ...
    @property
    def repairs(self) -> list[Repair]: ...

@final
class Dispatched:
    @property
    def calls(self) -> list[Call]: ...
    @property
    def replies(self) -> list[dict[str, Any]]: ...
    @property
    def provider(self) -> Provider: ...
    @property
    def all_valid(self) -> bool: ...

Arguments = str | bytes | dict[str, Any]

@final
class ToolValidator:
    """One tool's validator with its mode and target settled (``Toolset.validator``)."""

    def is_valid(self, arguments: Arguments) -> bool: ...
    def validate(self, arguments: Arguments) -> ValidationResult: ...
    def validate_many(
        self, texts: Iterable[str | bytes], *, threads: int | None = None
    ) -> Batch: ...
    @property
    def tool(self) -> str: ...
    @property
    def mode(self) -> Mode: ...
    @property
    def target(self) -> Target | None: ...
    @property
    def signature(self) -> str: ...

@final
class Toolset:
    @staticmethod
    def from_files(*paths: str | PathLike[str]) -> Toolset: ...
    @staticmethod
    def from_source(text: str, name: str | None = None) -> Toolset: ...
    @staticmethod
    def from_sources_list(sources: list[tuple[str, str]]) -> Toolset: ...
    @property
    def sources(self) -> list[tuple[str, str]]: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def warnings(self) -> list[Diagnostic]: ...
    def signature(self, tool: str) -> str: ...
    def emit(self, target: Target | None = None) -> Any: ...
    def validate(
        self,
        tool: str,
        arguments: Arguments,
        *,
        mode: Mode | None = None,
        target: Target | None = None,
    ) -> ValidationResult: ...
    def is_valid(
        self,
        tool: str,
        arguments: Arguments,
        *,
        mode: Mode | None = None,
        target: Target | None = None,
    ) -> bool: ...
    def validator(
        self,
        tool: str,
        *,
        mode: Mode | None = None,
        target: Target | None = None,
    ) -> ToolValidator: ...
    def validate_many(
        self,
        tool: str,
        texts: Iterable[str | bytes],
        *,
        mode: Mode | None = None,
        target: Target | None = None,
        threads: int | None = None,
    ) -> Batch: ...
    def dispatch(
        self,
        response: Any,
        *,
        provider: Provider | None = None,
        target: Target | None = None,
        mode: Mode | None = None,
    ) -> Dispatched: ...
    def response_format(
        self,
        type_name: str | None = None,
        target: Target | None = None,
        *,
        tool: str | None = None,
    ) -> dict[str, Any]: ...
    def parse(
        self,
        type_name: str | None = None,
        text: Arguments | None = None,
        *,
        mode: Mode | None = None,
        target: Target | None = None,
        tool: str | None = None,
    ) -> ValidationResult: ...
    def register_handler(self, tool: str, function: Callable[[dict[str, Any]], Any]) -> None: ...
    def handler(self, tool: str) -> HandlerDecorator: ...
    def call(
        self,
        tool: str,
        arguments: Arguments,
        *,
        approver: Approver | None = None,
        mode: Mode | None = None,
        target: Target | None = None,
        timeout: float | None = None,
    ) -> Reply: ...
    def run(
        self,
        response: Any,
        *,
        approver: Approver | None = None,
        provider: Provider | None = None,
        mode: Mode | None = None,
        target: Target | None = None,
        timeout: float | None = None,
    ) -> RunResult: ...
    def run_async(
        self,
        response: Any,
        *,
        approver: Approver | None = None,
        provider: Provider | None = None,
        mode: Mode | None = None,
        target: Target | None = None,
        timeout: float | None = None,
    ) -> Awaitable[RunResult]: ...
    def register(
        self,
        server: Any,
        handlers: Mapping[str, Callable[[dict[str, Any]], Any]] | None = None,
    ) -> list[str]: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: str) -> bool: ...
    def __reduce__(self) -> tuple[Any, tuple[list[tuple[str, str]]]]: ...

def _wait_for_handlers(seconds: float) -> bool: ...
def import_tools(
    document: str | bytes | dict[str, Any] | list[Any],
    *,
    dialect: Dialect | None = None,
    name: str | None = None,
    keep_open: bool = False,
) -> str: ...
