//! Importing the JSON Schema Pydantic v2 writes (`Model.model_json_schema()`), faithfully: what
//! each keyword becomes, and what has no place is dropped with a warning at its pointer. The
//! differential test against Pydantic itself is in the Python suite
//! (`python/tests/test_pydantic_differential.py`).

use serde_json::{json, Value};
use tooldef::import::{self, Dialect, Imported, Options};
use tooldef::Code;

fn import_schema(schema: &Value) -> Imported {
    let options = Options {
        name: Some("tool".into()),
        ..Options::default()
    };
    import::import(schema, Dialect::JsonSchema, &options).unwrap()
}

fn has_lines(imported: &Imported, lines: &[&str]) {
    for line in lines {
        assert!(
            imported.source.contains(line),
            "no {line:?} in\n{}",
            imported.source
        );
    }
}

fn warnings(imported: &Imported) -> Vec<(&str, Code)> {
    imported
        .warnings
        .iter()
        .map(|w| (w.pointer.as_str(), w.code))
        .collect()
}

#[test]
fn pydantics_keywords_are_kept() {
    // Shapes as Pydantic writes them, titles and all.
    let schema = json!({
        "title": "Everything",
        "description": "Every keyword of item 5.",
        "type": "object",
        "properties": {
            "when": {"title": "When", "type": "string", "format": "date-time"},
            "day": {"title": "Day", "type": "string", "format": "date"},
            "id": {"title": "Id", "type": "string", "format": "uuid"},
            "email": {"title": "Email", "type": "string", "format": "email"},
            "score": {"title": "Score", "type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "price": {"title": "Price", "type": "number", "multipleOf": 0.25},
            "tags": {"title": "Tags", "type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "data": {"title": "Data", "type": "object", "additionalProperties": true},
            "free": {"title": "Free", "type": "object", "additionalProperties": {}},
            "options": {"$ref": "#/$defs/Options", "default": {"depth": 1, "fast": true}},
            "city": {"title": "City Name", "type": "string", "examples": ["Paris", "Oslo"]},
        },
        "required": ["when", "day", "id", "email", "score", "price", "tags", "data", "free", "city"],
        "$defs": {
            "Options": {
                "title": "Options",
                "type": "object",
                "properties": {
                    "depth": {"title": "Depth", "type": "integer", "default": 1},
                    "fast": {"title": "Fast", "type": "boolean", "default": true},
                },
            },
        },
    });
    let m = import_schema(&schema);
    has_lines(
        &m,
        &[
            "@title(\"Everything\")\n",
            "  when: string @format(date-time)\n",
            "  day: string @format(date)\n",
            "  id: string @format(uuid)\n",
            "  email: string @format(email)\n",
            "  score: number @exclusive_min(0) @exclusive_max(1)\n",
            "  price: number @multiple_of(0.25)\n",
            "  tags: string[] @unique\n",
            "  data: { ... }\n",
            "  free: { ... }\n",
            "  options?: Options = { depth: 1, fast: true }\n",
            "  city: string @example(\"Paris\") @example(\"Oslo\")\n",
        ],
    );
    // A property's title has no place in the language (only a tool's, as `@title`): dropped
    // with a warning at each.
    let w = warnings(&m);
    assert!(
        w.contains(&("/properties/city/title", Code::ImportDropped)),
        "{w:?}"
    );
    assert!(
        w.contains(&("/$defs/Options/title", Code::ImportDropped)),
        "{w:?}"
    );
}

#[test]
fn a_root_reference_to_an_object_definition_is_the_tools_parameters() {
    // Pydantic's schema of a recursive model.
    let schema = json!({
        "$defs": {
            "Node": {
                "description": "A tree node.",
                "properties": {
                    "value": {"title": "Value", "type": "integer"},
                    "children": {"default": [], "items": {"$ref": "#/$defs/Node"}, "title": "Children", "type": "array"},
                },
                "required": ["value"],
                "title": "Node",
                "type": "object",
            },
        },
        "$ref": "#/$defs/Node",
    });
    let m = import_schema(&schema);
    assert_eq!(m.module.tools.len(), 1, "{}", m.source);
    has_lines(
        &m,
        &[
            "/// A tree node.\ntool tool {\n  value: integer\n  children?: Node[] = []\n",
            "type Node {\n",
        ],
    );
    assert!(!m.source.contains("type Node2"), "{}", m.source);
    // The same parameters in a tool dialect.
    let tool = json!({"type": "function", "function": {"name": "tree", "description": "Store a tree.", "parameters": schema}});
    let m = import::import(&tool, Dialect::OpenAi, &Options::default()).unwrap();
    has_lines(
        &m,
        &["tool tree {\n  value: integer\n  children?: Node[] = []\n"],
    );
    // A root reference to a definition that is not an object is still a named type.
    let schema = json!({"$defs": {"Color": {"enum": ["red", "green"]}}, "$ref": "#/$defs/Color"});
    let m = import_schema(&schema);
    assert!(m.module.tools.is_empty(), "{}", m.source);
}

#[test]
fn a_tuple_whose_max_items_is_its_length_is_closed() {
    let schema = json!({
        "type": "object",
        "properties": {
            "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "minItems": 2, "maxItems": 2},
            "short": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "maxItems": 2},
            "shorter": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}, "maxItems": 1},
            "open": {"type": "array", "prefixItems": [{"type": "string"}], "maxItems": 3},
        },
        "required": ["point"],
    });
    let m = import_schema(&schema);
    has_lines(
        &m,
        &[
            "  point: [number, number]\n",
            "  short?: [string?, integer?]\n",
            "  shorter?: [string?, integer?] @max_items(1)\n",
            "  open?: [string?, ...] @max_items(3)\n",
        ],
    );
}

#[test]
fn a_default_or_examples_off_a_property_is_dropped_with_a_warning() {
    // Pydantic writes `json_schema_extra={"examples": [...]}` of a model at its root, or at its
    // definition when it is nested.
    let schema = json!({
        "type": "object",
        "examples": [{"city": "Paris"}],
        "properties": {
            "city": {"type": "string", "default": "Oslo", "examples": ["Paris"]},
            "home": {"$ref": "#/$defs/Address", "default": {"street": "a"}},
            "tags": {"type": "array", "items": {"type": "string", "default": "x"}},
            "either": {"anyOf": [{"type": "integer", "examples": [1]}, {"type": "null"}], "default": null},
        },
        "$defs": {
            "Address": {
                "type": "object",
                "properties": {"street": {"type": "string"}},
                "examples": [{"street": "b"}],
            },
        },
    });
    let m = import_schema(&schema);
    let dropped: Vec<&str> = m
        .warnings
        .iter()
        .filter(|w| w.code == Code::ImportDropped)
        .map(|w| w.pointer.as_str())
        .collect();
    assert_eq!(
        dropped,
        [
            "/$defs/Address/examples",
            "/examples",
            "/properties/tags/items/default",
            "/properties/either/anyOf/0/examples",
        ],
        "{:?}",
        m.warnings
    );
    has_lines(
        &m,
        &[
            "  city?: string @example(\"Paris\") = \"Oslo\"\n",
            "  home?: Address = { street: \"a\" }\n",
            "  either?: integer | null = null\n",
        ],
    );
}
