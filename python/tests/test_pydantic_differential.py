"""Issue 58: a differential test against Pydantic itself.

Each model's `model_json_schema()` is imported with `tooldef.import_tools` and compiled for every
target. The instances Pydantic produces (`model_dump(mode="json")`) must validate with tooldef,
and on a set of probes the verdicts of Pydantic in strict JSON mode
(`model_validate_json(..., strict=True)`) and of tooldef in strict mode must agree. Every
difference is listed below with its reason; the lists are compared for equality, so a difference
that goes away fails the test until its entry is removed.

Run as a script (`python test_pydantic_differential.py`) it prints the import and compile counts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal
from uuid import UUID

import pytest
from pydantic import (
    BaseModel,
    ConfigDict,
    EmailStr,
    Field,
    HttpUrl,
    PositiveInt,
    ValidationError,
)

import tooldef

if TYPE_CHECKING:
    from tooldef._tooldef import Target

TARGETS: list[Target] = [
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

# The models: the shapes Python users report providers rejecting.


class OptionalDefaults(BaseModel):
    """Search with optional settings."""

    query: str
    limit: int = 10
    ratio: float = 0.5
    note: str | None = None
    verbose: bool = False
    tags: list[str] = ["a"]


class FreeForm(BaseModel):
    """Store free-form data."""

    data: dict[str, Any]
    counts: dict[str, int] = {}
    anything: Any = None


class Stamps(BaseModel):
    """Schedule an event."""

    when: datetime
    day: date
    at: time
    id: UUID
    email: EmailStr


class Bounds(BaseModel):
    """Bounded values."""

    age: int = Field(ge=0, le=150)
    score: float = Field(gt=0, lt=1)
    code: str = Field(pattern=r"^[A-Z]{3}$", min_length=3, max_length=3)
    picks: list[int] = Field(min_length=1, max_length=5)


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="Street and number.")
    city: str = Field(description="The city.")


class Person(BaseModel):
    """Register a person."""

    name: str = Field(description="Full name.")
    home: Address = Field(description="Where they live.")
    work: Address | None = Field(default=None, description="Where they work.")


class Node(BaseModel):
    """A tree node."""

    value: int
    children: list[Node] = []


class Tree(BaseModel):
    """Store a tree."""

    root: Node
    label: str = "tree"


class Priority(IntEnum):
    LOW = 1
    MID = 2
    HIGH = 3


class Task(BaseModel):
    """Create a task."""

    title: str
    priority: Priority = Priority.MID


class Color(str, Enum):
    RED = "red"
    GREEN = "green"


class Paint(BaseModel):
    """Paint a wall."""

    color: Color
    coats: Literal[1, 2, 3] = 1


class Unions(BaseModel):
    """Take unions."""

    value: int | str
    amount: float | None = None
    either: list[int] | str = "x"


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Adopt(BaseModel):
    """Adopt a pet."""

    pet: Annotated[Cat | Dog, Field(discriminator="kind")]
    others: list[Annotated[Cat | Dog, Field(discriminator="kind")]] = []


class Tuples(BaseModel):
    """Move to a point."""

    point: tuple[float, float]
    row: tuple[str, int, bool] = ("a", 1, True)
    many: tuple[int, ...] = ()


class Mixed(BaseModel):
    """Mixed literals."""

    mode: Literal[1, "two", True]
    level: Literal["low", "high"] = "low"
    maybe: Literal[3, 4] | None = None


class Extra(BaseModel):
    """Open settings."""

    model_config = ConfigDict(extra="allow")
    name: str


class Closed(BaseModel):
    """Closed settings."""

    model_config = ConfigDict(extra="forbid")
    name: str
    size: int = 1


class Sets(BaseModel):
    """Tag things."""

    tags: set[str]
    ids: frozenset[int] = frozenset()


class Multiples(BaseModel):
    """Step values."""

    step: int = Field(multiple_of=5)
    price: float = Field(multiple_of=0.25)
    cents: float = Field(default=0.1, multiple_of=0.1)


class Titled(BaseModel):
    """Titled fields with examples."""

    model_config = ConfigDict(
        title="Nice Tool", json_schema_extra={"examples": [{"city": "Paris"}]}
    )
    city: str = Field(title="City Name", examples=["Paris", "Oslo"])
    days: int = Field(default=1, title="Days", examples=[3])


class Options(BaseModel):
    depth: int = 1
    fast: bool = True


class ObjectDefaults(BaseModel):
    """Object defaults."""

    options: Options = Options()
    weights: dict[str, float] = {"a": 1.0}
    pair: list[int] = [1, 2]


class Listed(BaseModel):
    """Many addresses."""

    addresses: list[Address]
    by_name: dict[str, Address] = {}


class Constrained(BaseModel):
    """Constrained collections and nested optionals."""

    matrix: list[list[float]] = Field(default=[[0.0]], max_length=3)
    ratio: float | None = Field(default=None, ge=0, le=1)
    label: str = Field(default="x", min_length=1, max_length=8)


class Money(BaseModel):
    """Pay an amount."""

    amount: Decimal
    wait: timedelta
    count: PositiveInt
    from_: str = Field(alias="from")
    version: Literal["v1"] = "v1"
    site: HttpUrl | None = None


# What each model is probed with: instances Pydantic builds, and JSON values Pydantic accepts or
# refuses (the verdicts are Pydantic's, read at run time; none is written down here).


@dataclass(frozen=True)
class Case:
    model: type[BaseModel]
    instances: list[BaseModel]
    probes: list[Any] = field(default_factory=list)

    @property
    def name(self) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.model.__name__).lower()


UTC = timezone.utc
AN_ID = UUID("12345678-1234-5678-1234-567812345678")

CASES = [
    Case(
        OptionalDefaults,
        [
            OptionalDefaults(query="q"),
            OptionalDefaults(query="", limit=-3, ratio=2, note="n", verbose=True, tags=[]),
        ],
        [
            {"query": "q", "limit": 2.5},
            {"query": "q", "limit": None},
            {"query": "q", "note": None},
            {"query": "q", "ratio": 1},
            {"query": "q", "verbose": 1},
            {"query": 1},
            {},
            {"query": "q", "limit": 1.0},
        ],
    ),
    Case(
        FreeForm,
        [
            FreeForm(data={}),
            FreeForm(data={"a": [1, {"b": None}], "c": "d"}, counts={"x": 1}, anything=[1]),
        ],
        [{"data": []}, {"data": {}, "counts": {"x": "1"}}, {"data": {}, "anything": {"k": 1}}],
    ),
    Case(
        Stamps,
        [
            Stamps(
                when=datetime(2024, 2, 29, 12, 30, tzinfo=UTC),
                day=date(2024, 2, 29),
                at=time(23, 59, 59, tzinfo=UTC),
                id=AN_ID,
                email="ada@example.com",
            ),
        ],
        [
            {
                "when": "2024-02-30T00:00:00Z",
                "day": "2024-01-01",
                "at": "10:00:00Z",
                "id": str(AN_ID),
                "email": "a@example.com",
            },
            {
                "when": "2024-01-01T00:00:00Z",
                "day": "2024-13-01",
                "at": "10:00:00Z",
                "id": str(AN_ID),
                "email": "a@example.com",
            },
            {
                "when": "2024-01-01T00:00:00Z",
                "day": "2024-01-01",
                "at": "10:00:00Z",
                "id": "not-a-uuid",
                "email": "a@example.com",
            },
            {
                "when": "2024-01-01T00:00:00Z",
                "day": "2024-01-01",
                "at": "10:00:00Z",
                "id": str(AN_ID),
                "email": "not an email",
            },
            {
                "when": "2024-01-01T00:00:00",
                "day": "2024-01-01",
                "at": "10:00:00Z",
                "id": str(AN_ID),
                "email": "a@example.com",
            },
            {
                "when": "2024-01-01T00:00:00Z",
                "day": "2024-01-01",
                "at": "10:00:00",
                "id": str(AN_ID),
                "email": "a@example.com",
            },
            {
                "when": "2024-01-01T00:00:00Z",
                "day": "2024-01-01",
                "at": "10:00:00Z",
                "id": AN_ID.hex,
                "email": "a@example.com",
            },
        ],
    ),
    Case(
        Bounds,
        [
            Bounds(age=0, score=1e-9, code="ABC", picks=[1]),
            Bounds(age=150, score=0.999, code="XYZ", picks=[1, 2, 3, 4, 5]),
        ],
        [
            {"age": -1, "score": 0.5, "code": "ABC", "picks": [1]},
            {"age": 151, "score": 0.5, "code": "ABC", "picks": [1]},
            {"age": 1, "score": 0, "code": "ABC", "picks": [1]},
            {"age": 1, "score": 1, "code": "ABC", "picks": [1]},
            {"age": 1, "score": 0.5, "code": "abc", "picks": [1]},
            {"age": 1, "score": 0.5, "code": "ABC", "picks": []},
            {"age": 1, "score": 0.5, "code": "ABC", "picks": [1, 2, 3, 4, 5, 6]},
        ],
    ),
    Case(
        Person,
        [
            Person(name="Ada", home=Address(street="1 Main St", city="Oslo")),
            Person(
                name="Bo",
                home=Address(street="a", city="b"),
                work=Address(street="c", city="d"),
            ),
        ],
        [
            {"name": "Ada", "home": {"street": "a"}},
            {"name": "Ada", "home": None},
            {"name": "Ada", "home": {"street": "a", "city": "b"}, "work": None},
        ],
    ),
    Case(
        Node,
        [
            Node(value=1),
            Node(value=1, children=[Node(value=2, children=[Node(value=3)])]),
        ],
        [{"value": 1, "children": [{"children": []}]}, {"value": "1"}],
    ),
    Case(
        Tree,
        [Tree(root=Node(value=1, children=[Node(value=2)]))],
        [{"root": {"value": 1, "children": [{"value": 1.5}]}}],
    ),
    Case(
        Task,
        [Task(title="t"), Task(title="t", priority=Priority.HIGH)],
        [{"title": "t", "priority": 4}, {"title": "t", "priority": "1"}, {"title": "t"}],
    ),
    Case(
        Paint,
        [Paint(color=Color.GREEN), Paint(color=Color.RED, coats=3)],
        [{"color": "blue"}, {"color": "red", "coats": 4}, {"color": "red", "coats": "1"}],
    ),
    Case(
        Unions,
        [Unions(value=1), Unions(value="a", amount=2.5, either=[1, 2])],
        [
            {"value": 1.5},
            {"value": True},
            {"value": None},
            {"value": 1, "either": ["a"]},
            {"value": 1, "amount": 3},
        ],
    ),
    Case(
        Adopt,
        [
            Adopt(pet=Cat(kind="cat", lives=9)),
            Adopt(pet=Dog(kind="dog", good=True), others=[Cat(kind="cat", lives=1)]),
        ],
        [
            {"pet": {"kind": "bird"}},
            {"pet": {"kind": "cat", "good": True}},
            {"pet": {"lives": 9}},
            {"pet": {"kind": "dog", "good": True}, "others": [{"kind": "dog", "lives": 1}]},
        ],
    ),
    Case(
        Tuples,
        [
            Tuples(point=(1.5, -2)),
            Tuples(point=(0, 0), row=("b", -1, False), many=(1, 2, 3)),
        ],
        [
            {"point": [1]},
            {"point": [1, 2, 3]},
            {"point": [1, "2"]},
            {"point": [1, 2], "row": ["a", 1]},
            {"point": [1, 2], "many": [1, "2"]},
        ],
    ),
    Case(
        Mixed,
        [Mixed(mode=1), Mixed(mode="two", level="high", maybe=4), Mixed(mode=True)],
        [{"mode": 2}, {"mode": "1"}, {"mode": False}, {"mode": 1, "maybe": 5}],
    ),
    Case(
        Extra,
        [Extra(name="a"), Extra.model_validate({"name": "a", "more": [1]})],
        [{"name": "a", "x": None}, {"x": 1}],
    ),
    Case(
        Closed,
        [Closed(name="a"), Closed(name="a", size=3)],
        [{"name": "a", "x": 1}, {"name": "a", "size": None}],
    ),
    Case(
        Sets,
        [Sets(tags=set()), Sets(tags={"a", "b"}, ids=frozenset({1, 2}))],
        [{"tags": ["a", "a"]}, {"tags": ["a"], "ids": [1, 1]}, {"tags": "a"}],
    ),
    Case(
        Multiples,
        [Multiples(step=0, price=0.75), Multiples(step=-10, price=100, cents=0.3)],
        [
            {"step": 3, "price": 1},
            {"step": 5, "price": 0.3},
            {"step": 5, "price": 0.5, "cents": 0.7},
            {"step": 5, "price": 0.5, "cents": 0.15},
            {"step": 5.0, "price": 0.5},
        ],
    ),
    Case(
        Titled,
        [Titled(city="Paris"), Titled(city="Oslo", days=3)],
        [{"days": 3}, {"city": "Paris", "days": "3"}],
    ),
    Case(
        ObjectDefaults,
        [ObjectDefaults(), ObjectDefaults(options=Options(depth=3, fast=False), pair=[])],
        [{"options": {"depth": "1"}}, {"options": None}, {"weights": {"a": "b"}}],
    ),
    Case(
        Listed,
        [
            Listed(addresses=[]),
            Listed(
                addresses=[Address(street="a", city="b")],
                by_name={"home": Address(street="c", city="d")},
            ),
        ],
        [{"addresses": [{}]}, {"addresses": [], "by_name": {"x": 1}}],
    ),
    Case(
        Constrained,
        [Constrained(), Constrained(matrix=[[1, 2], [], [3]], ratio=1, label="abcdefgh")],
        [
            {"matrix": [[1], [2], [3], [4]]},
            {"ratio": 1.5},
            {"label": ""},
            {"label": "abcdefghi"},
            {"matrix": [["a"]]},
        ],
    ),
    Case(
        Money,
        [
            Money.model_validate({"amount": "1.50", "wait": "PT1H", "count": 1, "from": "a"}),
            Money.model_validate(
                {
                    "amount": 2,
                    "wait": 90,
                    "count": 7,
                    "from": "b",
                    "site": "https://example.com/x",
                }
            ),
        ],
        [
            {"amount": 1.5, "wait": "P1D", "count": 1, "from": "a"},
            {"amount": True, "wait": "P1D", "count": 1, "from": "a"},
            {"amount": "x", "wait": "P1D", "count": 1, "from": "a"},
            {"amount": 1, "wait": "P1D", "count": 0, "from": "a"},
            {"amount": 1, "wait": "soon", "count": 1, "from": "a"},
            {"amount": 1, "wait": "P1D", "count": 1, "from_": "a"},
            {"amount": 1, "wait": "P1D", "count": 1, "from": "a", "version": "v2"},
            {"amount": 1, "wait": "P1D", "count": 1, "from": "a", "site": "not a url"},
        ],
    ),
]

# Compilations a target refuses, with the reason.
RECURSION = "Gemini's OpenAPI schema has no `$ref`, and a recursive type cannot be inlined"
STRICT_RECURSION = "Anthropic's strict mode does not support recursive schemas"
KNOWN_REFUSALS: dict[tuple[str, str], str] = {
    ("node", "gemini-openapi"): RECURSION,
    ("tree", "gemini-openapi"): RECURSION,
    ("node", "anthropic-strict"): STRICT_RECURSION,
    ("tree", "anthropic-strict"): STRICT_RECURSION,
}


def to_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


STAMP = {
    "when": "2024-01-01T00:00:00Z",
    "day": "2024-01-01",
    "at": "10:00:00Z",
    "id": str(AN_ID),
    "email": "a@example.com",
}

# Values on which tooldef (strict mode) and Pydantic (strict JSON mode) disagree, by the tool
# and the value's JSON text, with the reason the difference stays. In each, tooldef follows the
# schema Pydantic writes, and Pydantic's validator accepts more than that schema says.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("optional_defaults", to_text({"query": "q", "limit": 1.0})): (
        "JSON Schema counts 1.0 as an integer (`type: integer` holds for any number whose "
        "fraction is zero), as the providers' schemas do; Pydantic's strict mode refuses a "
        "float for an int"
    ),
    ("multiples", to_text({"step": 5.0, "price": 0.5})): (
        "as above: 5.0 is an integer to JSON Schema, not to Pydantic's strict mode"
    ),
    ("stamps", to_text({**STAMP, "when": "2024-01-01T00:00:00"})): (
        "`format: date-time` is RFC 3339's date-time, whose offset is required; Pydantic "
        "accepts (and `model_dump` writes) a naive datetime without one"
    ),
    ("stamps", to_text({**STAMP, "at": "10:00:00"})): (
        "`format: time` is RFC 3339's full-time, whose offset is required; Pydantic accepts a "
        "naive time"
    ),
    ("stamps", to_text({**STAMP, "id": AN_ID.hex})): (
        "`format: uuid` is RFC 9562's hyphenated form; Pydantic also reads 32 bare hex digits"
    ),
    ("sets", to_text({"tags": ["a", "a"]})): (
        "Pydantic writes a `set` as `uniqueItems: true`, but its validator folds repeated "
        "items into one instead of refusing them"
    ),
    ("sets", to_text({"tags": ["a"], "ids": [1, 1]})): "as above, for a `frozenset`",
    ("money", to_text({"amount": "x", "wait": "P1D", "count": 1, "from": "a"})): (
        "Pydantic writes a `Decimal` as a number or any string; the digits it requires of the "
        "string are not in the schema"
    ),
}

# Keywords of Pydantic's schemas that the `json-schema` target spells another way, with why.
KNOWN_SPELLINGS: dict[tuple[str, str, str], str] = {
    ("tuples", "point", "maxItems"): "a closed tuple is `items: false`; `maxItems` would repeat it",
    ("tuples", "row", "maxItems"): "a closed tuple is `items: false`; `maxItems` would repeat it",
}

# The keywords of a property that import keeps and the `json-schema` target writes back.
KEPT = (
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
    "examples",
)


def imported(case: Case) -> tooldef.Toolset | None:
    """The case's model imported and compiled; `None` when its tool was not imported."""
    try:
        source = tooldef.import_tools(case.model.model_json_schema(), name=case.name)
    except ValueError:
        return None
    toolset = tooldef.Toolset.from_source(source, name=f"{case.name}.tool")
    return toolset if case.name in toolset else None


def compiled(toolset: tooldef.Toolset) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for target in TARGETS:
        try:
            toolset.emit(target)
            out[target] = True
        except tooldef.CompileError:
            out[target] = False
    return out


def pydantic_accepts(model: type[BaseModel], text: str) -> bool:
    try:
        model.model_validate_json(text, strict=True)
    except ValidationError:
        return False
    return True


def differences(case: Case, toolset: tooldef.Toolset) -> set[tuple[str, str]]:
    """The values of `case` on which the two disagree."""
    # By alias, as the schema names the fields (`from`, not `from_`).
    values = [i.model_dump(mode="json", by_alias=True) for i in case.instances] + case.probes
    out: set[tuple[str, str]] = set()
    for value in values:
        text = to_text(value)
        ours = toolset.is_valid(case.name, text, mode="strict")
        if ours != pydantic_accepts(case.model, text):
            out.add((case.name, text))
    return out


def counts() -> tuple[int, int, int]:
    """How many models import, and how many of their compilations succeed of how many."""
    models = compilations = succeeded = 0
    for case in CASES:
        toolset = imported(case)
        if toolset is None:
            continue
        models += 1
        result = compiled(toolset)
        compilations += len(result)
        succeeded += sum(result.values())
    return models, succeeded, compilations


def test_there_are_at_least_twenty_models_and_pydantic_refuses_probes_of_each() -> None:
    assert len(CASES) >= 20
    assert len({c.name for c in CASES}) == len(CASES)
    for case in CASES:
        refused = [p for p in case.probes if not pydantic_accepts(case.model, to_text(p))]
        assert refused, f"no probe of {case.name} is refused by Pydantic"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_model_imports_and_compiles_for_every_target(case: Case) -> None:
    toolset = imported(case)
    assert toolset is not None, f"{case.model.__name__} was not imported as a tool"
    refused = {(case.name, t) for t, ok in compiled(toolset).items() if not ok}
    known = {k for k in KNOWN_REFUSALS if k[0] == case.name}
    assert refused == known


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_tooldef_and_pydantic_agree(case: Case) -> None:
    # Pydantic's own instances are valid for Pydantic in strict JSON mode.
    for instance in case.instances:
        assert pydantic_accepts(case.model, instance.model_dump_json(by_alias=True))
    toolset = imported(case)
    assert toolset is not None
    known = {k for k in KNOWN_DIFFERENCES if k[0] == case.name}
    assert differences(case, toolset) == known


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_json_schema_target_keeps_pydantics_keywords(case: Case) -> None:
    schema = case.model.model_json_schema()
    title = schema.get("title")
    if "$ref" in schema:
        # A recursive model: its root is a reference to its definition.
        schema = schema["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    toolset = imported(case)
    assert toolset is not None
    [tool] = toolset.emit("json-schema")
    emitted = tool["parameters"]["properties"]
    spelled = set()
    for name, prop in schema["properties"].items():
        for key in KEPT:
            if key in prop and emitted[name].get(key) != prop[key]:
                spelled.add((case.name, name, key))
    assert spelled == {k for k in KNOWN_SPELLINGS if k[0] == case.name}
    # The model's title is the tool's `@title`, which MCP carries.
    [mcp] = toolset.emit("mcp")["tools"]
    assert mcp.get("title") == title


def test_the_counts() -> None:
    models, succeeded, compilations = counts()
    assert models == len(CASES)
    assert compilations == len(CASES) * len(TARGETS)
    assert succeeded == compilations - len(KNOWN_REFUSALS)


if __name__ == "__main__":
    models, succeeded, compilations = counts()
    print(f"models imported: {models} / {len(CASES)}")
    print(f"compilations succeeded: {succeeded} / {compilations}")
    for case in CASES:
        toolset = imported(case)
        if toolset is not None:
            for name, text in sorted(differences(case, toolset)):
                print(f"difference: {name}: {text}")
