//! The importers on hostile and arbitrary input: an error or an import, never a panic; every
//! issue and warning shows its code; and whatever imports prints canonical source that compiles
//! to the imported model.

use proptest::prelude::*;
use serde_json::{json, Value};
use tooldef::import::{self, Dialect, Options};

fn json_value() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "type",
        "properties",
        "required",
        "items",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "$ref",
        "$defs",
        "minimum",
        "maxLength",
        "pattern",
        "format",
        "additionalProperties",
        "default",
        "description",
        "title",
        "nullable",
        "optional",
        "name",
        "parameters",
        "inputSchema",
        "tools",
        "function",
        "a",
        "b~/c",
        "",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        prop::sample::select(vec![
            "string",
            "object",
            "integer",
            "number",
            "array",
            "boolean",
            "null",
            "dict",
            "float",
            "STRING",
            "#/$defs/a",
            "#",
            "http://x/y",
            "^[a-z]+$",
            "(?=x)",
            "\u{202E}",
            "date",
        ])
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

fn check(doc: &Value) -> Result<(), TestCaseError> {
    for &d in Dialect::ALL {
        for keep_open in [false, true] {
            let options = Options {
                name: None,
                keep_open,
                ..Default::default()
            };
            let result = import::import(doc, d, &options);
            // Every problem and every warning names its code, shown as `[code]`.
            let said: Vec<(String, tooldef::Code)> = match &result {
                Ok(m) => m.warnings.iter().map(|w| (w.to_string(), w.code)).collect(),
                Err(e) => e.issues.iter().map(|i| (i.to_string(), i.code)).collect(),
            };
            for (text, code) in &said {
                prop_assert!(
                    text.starts_with("at ") && text.contains(&format!(": [{code}] ")),
                    "{}",
                    text
                );
            }
            if let Ok(m) = result {
                let compiled = tooldef::compile(&m.source);
                prop_assert!(
                    compiled.is_ok(),
                    "{}: {:?}\n{}",
                    d.as_str(),
                    compiled.err(),
                    m.source
                );
                prop_assert_eq!(&compiled.unwrap().module, &m.module);
                prop_assert_eq!(m.module.to_source().unwrap(), m.source.clone());
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_documents_import_or_fail_cleanly(doc in json_value()) {
        check(&doc)?;
        check(&json!({"type": "object", "properties": {"p": doc.clone()}}))?;
        check(&json!([{"name": "t", "description": "T.", "parameters": doc.clone(), "inputSchema": doc}]))?;
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut schema = json!({"type": "string"});
    for _ in 0..500 {
        schema = json!({"type": "array", "items": schema});
    }
    let err = import::import_json_schema(&schema, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("deeper"), "{err}");
    // Text nested beyond serde_json's limit is a parse error.
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(import::parse_input(&text).is_err());
}

/// What cannot be read as the language's JSON Schema is found while reading, every problem at
/// its pointer; the rules of the language are the checker's, which sees the definitions once
/// they are read (tests/import_checked.rs).
#[test]
fn every_problem_names_its_pointer() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"if": {"type": "string"}},
            "b~/c": {"patternProperties": {"x": {}}},
            "d": {"$ref": "http://example.com/s.json"},
            "e": {"oneOf": [{"type": "string"}, {"type": "string", "minLength": 2}]},
            "g\u{0007}": {"type": "string"},
        }
    });
    let err = import::import_json_schema(&schema, &Options::default()).unwrap_err();
    let pointers: Vec<(&str, Option<&str>)> = err
        .issues
        .iter()
        .map(|i| (i.pointer.as_str(), i.keyword.as_deref()))
        .collect();
    assert_eq!(
        pointers,
        [
            ("/properties/a/if", Some("if")),
            (
                "/properties/b~0~1c/patternProperties",
                Some("patternProperties")
            ),
            ("/properties/d/$ref", Some("$ref")),
            ("/properties/e/oneOf/1", Some("oneOf")),
        ]
    );
}

#[test]
fn tuples_false_schemas_and_literal_arrays_import() {
    let schema = json!({
        "type": "object",
        "properties": {
            "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false, "minItems": 2},
            "range": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}], "items": {"type": "string"}, "minItems": 1},
            "loose": {"prefixItems": [{"type": "string"}]},
            "gone": false,
            "also_gone": {"not": {}},
            "nothing": {"enum": []},
            "pair": {"enum": [[1, "a"], [2], {"on": true}]},
            "exact": {"const": {"a": [false], "b": null}},
        },
        "additionalProperties": false,
    });
    let m = import::import_json_schema(&schema, &Options::default()).unwrap();
    for line in [
        "  point?: [number, number]\n",
        "  range?: [integer, integer?, ...: string]\n",
        "  gone?: never\n",
        "  also_gone?: never\n",
        "  nothing?: never\n",
        "  pair?: [1, \"a\"] | [2] | { on: true }\n",
        "  exact?: { a: [false], b: null }\n",
    ] {
        assert!(m.source.contains(line), "no {line:?} in\n{}", m.source);
    }
    // Untyped: the tuple is one member of the union of every JSON type.
    assert!(m.source.contains("[string?, ...]"), "{}", m.source);
    // The printed source compiles back to the same schema.
    let again = tooldef::compile(&m.source).unwrap().module;
    let a = tooldef::emit::parameters(&m.module, &m.module.tools[0]);
    let b = tooldef::emit::parameters(&again, &again.tools[0]);
    assert_eq!(a, b);
}

#[test]
fn bfcl_dirty_data_is_repaired_with_warnings() {
    let doc = json!([{
        "name": "set.light",
        "description": "Turn a light on or off.",
        "parameters": {"type": "dict", "required": ["on"], "properties": {
            "on": {"type": "boolean", "enum": ["True", "False"]},
            "level": {"type": "integer", "default": "high"},
            "room": {"type": "String", "optional": true, "default": null},
            "extra": {"type": "any"},
            "ratio": {"type": "float"},
        }}
    }]);
    let m = import::import_bfcl(&doc, &Options::default()).unwrap();
    let pointers: Vec<&str> = m.warnings.iter().map(|w| w.pointer.as_str()).collect();
    for p in [
        "/0/name",
        "/0/parameters/properties/on/enum",
        "/0/parameters/properties/level/default",
        "/0/parameters/properties/room/type",
        "/0/parameters/properties/room/optional",
        "",
    ] {
        assert!(
            pointers.contains(&p),
            "no warning at {p:?}: {:#?}",
            m.warnings
        );
    }
    assert!(m.source.contains("tool \"set.light\" {"), "{}", m.source);
    assert!(m.source.contains("  on: boolean\n"), "{}", m.source);
    assert!(m.source.contains("  level?: integer\n"), "{}", m.source);
    assert!(m.source.contains("  room?: string\n"), "{}", m.source);
    assert!(m.source.contains("  extra?: any\n"), "{}", m.source);
    assert!(m.source.contains("  ratio?: number\n"), "{}", m.source);
}

#[test]
fn gemini_and_anthropic_envelopes() {
    let gemini = json!([{"functionDeclarations": [{"name": "f", "description": "F.", "parameters": {
        "type": "OBJECT", "properties": {"x": {"type": "STRING", "nullable": true, "enum": ["a", "b"]}}, "required": ["x"]
    }}]}]);
    let m = import::import_gemini(&gemini, &Options::default()).unwrap();
    assert!(m.source.contains("x: \"a\" | \"b\" | null"), "{}", m.source);
    let anthropic = json!({"tools": [{"name": "g", "description": "G.", "input_schema": {"type": "object", "properties": {}}}]});
    let m = import::import_anthropic(&anthropic, &Options::default()).unwrap();
    assert!(m.source.contains("tool g {}"), "{}", m.source);
    let m = import::import_anthropic(
        &anthropic,
        &Options {
            name: None,
            keep_open: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(m.source.contains("tool g { ... }"), "{}", m.source);
}

/// A key repeated in an object of the input was kept silently by the JSON reader (the last one
/// won): it is an error at the key's pointer, in a document and in each line of JSON Lines.
#[test]
fn a_repeated_key_is_an_error_with_its_pointer() {
    let doc =
        r#"{"type": "object", "properties": {"a": {"type": "string"}, "a": {"type": "integer"}}}"#;
    let err = tooldef::import::parse_input(doc).unwrap_err();
    assert_eq!(err.issues.len(), 1);
    assert_eq!(err.issues[0].pointer, "/properties/a");
    assert!(
        err.issues[0].message.contains("appears twice"),
        "{}",
        err.issues[0].message
    );

    let lines = "{\"name\": \"f\", \"parameters\": {}}\n{\"name\": \"g\", \"name\": \"h\"}\n";
    let err = tooldef::import::parse_input(lines).unwrap_err();
    assert_eq!(err.issues[0].pointer, "/1/name");

    // Without repeats, nothing changes.
    let ok = r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#;
    assert!(tooldef::import::parse_input(ok).is_ok());
}

/// A schema without its descriptions, and without the keywords that say nothing
/// (`additionalProperties: {}` and `properties: {}`: `map<any>` comes back as `{...}`).
fn strip_descriptions(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.shift_remove("description");
            for k in ["additionalProperties", "properties"] {
                if m.get(k) == Some(&json!({})) {
                    m.shift_remove(k);
                }
            }
            m.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// tooldef's own `--target json-schema` output imports as the same tools: every example's tools
/// come back with the same parameter schema and the same output.
#[test]
fn the_json_schema_target_output_imports_as_its_tools() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let source = std::fs::read_to_string(&path).unwrap();
        let module = tooldef::compile(&source).unwrap().module;
        let out = tooldef::emit::tools(
            &module,
            tooldef::emit::Target::JsonSchema,
            &tooldef::emit::Options::default(),
        )
        .unwrap();
        let imported = import::import(&out.json, Dialect::JsonSchema, &Options::default())
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let back = imported.module;
        assert_eq!(back.tools.len(), module.tools.len(), "{}", path.display());
        for (a, b) in module.tools.iter().zip(&back.tools) {
            assert_eq!(a.name, b.name);
            assert_eq!(a.description, b.description);
            // The same schema, but for the descriptions of types that are not fields (an enum
            // used as an array's items), which have no place in the imported model.
            let (mut want, mut got) = (
                tooldef::emit::parameters(&module, a),
                tooldef::emit::parameters(&back, b),
            );
            for (k, v) in want["properties"].as_object().unwrap() {
                assert_eq!(
                    v.get("description"),
                    got["properties"][k].get("description")
                );
            }
            strip_descriptions(&mut want);
            strip_descriptions(&mut got);
            assert_eq!(want, got, "{}: {}", path.display(), a.name);
            assert_eq!(a.output.is_some(), b.output.is_some(), "{}", a.name);
            seen += 1;
        }
    }
    assert!(seen >= 10, "{seen} tools");
}

/// Every target's output of every example imports through the dialect that reads it, as the
/// same tools: tooldef reads back what it writes. (The MCP target writes `type` beside the
/// `$ref` of a recursive output type, which the importer once refused.)
#[test]
fn every_targets_output_of_the_examples_imports_as_its_tools() {
    use tooldef::emit::Target;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let targets = [
        (Target::JsonSchema, Dialect::JsonSchema),
        (Target::OpenAi, Dialect::OpenAi),
        (Target::OpenAiStrict, Dialect::OpenAi),
        (Target::OpenAiResponses, Dialect::OpenAi),
        (Target::Anthropic, Dialect::Anthropic),
        (Target::Gemini, Dialect::Gemini),
        (Target::GeminiOpenApi, Dialect::Gemini),
        (Target::Mcp, Dialect::Mcp),
    ];
    let mut imported_outputs = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let module = tooldef::compile(&std::fs::read_to_string(&path).unwrap())
            .unwrap()
            .module;
        for (target, dialect) in targets {
            // A target that cannot carry a tool of the example refuses it, with a diagnostic.
            let Ok(out) = tooldef::emit::tools(&module, target, &tooldef::emit::Options::default())
            else {
                continue;
            };
            let back = import::import(&out.json, dialect, &Options::default())
                .unwrap_or_else(|e| panic!("{} as {target:?}: {e:?}", path.display()))
                .module;
            let names =
                |m: &tooldef::Module| m.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
            assert_eq!(
                names(&back),
                names(&module),
                "{} as {target:?}",
                path.display()
            );
            if target == Target::Mcp {
                // An output type comes back where the target carried it (an MCP output schema
                // is an object's; `-> integer` has none).
                let listed = out.json["tools"].as_array().unwrap();
                for (t, b) in listed.iter().zip(&back.tools) {
                    let carried = t.get("outputSchema").is_some();
                    assert_eq!(carried, b.output.is_some(), "{}", b.name);
                    imported_outputs += usize::from(carried);
                }
            }
        }
    }
    assert!(
        imported_outputs >= 6,
        "{imported_outputs} output types imported"
    );
}

/// A `type` beside `$ref` is read only when it repeats the definition's own; any other stays
/// an error at the keyword, since the two together would be a conjunction the language cannot
/// write.
#[test]
fn a_type_beside_a_reference_must_repeat_the_definitions() {
    let doc = |ty: Value| {
        json!({"title": "t", "description": "T.", "type": "object", "properties": {
            "a": {"type": ty, "$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}})
    };
    let read = import::import(
        &doc(json!("object")),
        Dialect::JsonSchema,
        &Options::default(),
    )
    .expect("a repeated type");
    assert!(read.source.contains("a?: A"), "{}", read.source);
    for other in [json!("string"), json!(["object", "null"])] {
        let err = import::import(
            &doc(other.clone()),
            Dialect::JsonSchema,
            &Options::default(),
        )
        .expect_err("another type");
        let issues: Vec<_> = err
            .issues
            .iter()
            .map(|i| (i.pointer.as_str(), i.code))
            .collect();
        assert_eq!(
            issues,
            [("/properties/a/type", tooldef::Code::ImportUnsupported)],
            "{other}"
        );
    }
}

/// A document of another dialect given to `--from json-schema` is an error that names the
/// `--from` that reads it, not a tool of type `any`.
#[test]
fn another_dialect_given_as_json_schema_names_its_dialect() {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/greeter.tool"),
    )
    .unwrap();
    let module = tooldef::compile(&source).unwrap().module;
    let emitted = |target| {
        tooldef::emit::tools(&module, target, &tooldef::emit::Options::default())
            .unwrap()
            .json
    };
    use tooldef::emit::Target;
    let bfcl = json!([{"name": "f", "description": "F.", "parameters": {
        "type": "dict", "properties": {"a": {"type": "string"}}, "required": ["a"]}}]);
    let cases = [
        (emitted(Target::OpenAi), "openai"),
        (emitted(Target::OpenAiResponses), "openai"),
        (emitted(Target::Anthropic), "anthropic"),
        (emitted(Target::Mcp), "mcp"),
        (emitted(Target::Gemini), "gemini"),
        (emitted(Target::GeminiOpenApi), "gemini"),
        (bfcl, "bfcl"),
    ];
    for (doc, dialect) in cases {
        let err =
            import::import(&doc, Dialect::JsonSchema, &Options::default()).expect_err(dialect);
        let message = &err.issues[0].message;
        assert!(
            message.ends_with(&format!("import it with `--from {dialect}`")),
            "{dialect}: {message}"
        );
        // And that dialect reads it.
        let d = Dialect::from_name(dialect).unwrap();
        assert!(
            import::import(&doc, d, &Options::default()).is_ok(),
            "{dialect}"
        );
    }
}

#[test]
fn definitions_whose_names_clash_get_the_first_free_number() {
    // `a` and `a#` both make `A`; `A2` is then taken, so its own definition becomes `A22`, and
    // the next `A` skips to `A3`.
    let schema = json!({
        "$defs": {"a": {"type": "string"}, "a#": {"type": "integer"}, "A2": {"type": "boolean"}, "a!": {"type": "null"}},
        "description": "T.",
        "type": "object",
        "properties": {}
    });
    let imported = tooldef::import::import(
        &schema,
        tooldef::import::Dialect::JsonSchema,
        &tooldef::import::Options {
            name: Some("t".into()),
            ..Default::default()
        },
    )
    .expect("imports");
    let types: Vec<&str> = imported
        .source
        .lines()
        .filter(|l| l.starts_with("type "))
        .collect();
    assert_eq!(
        types,
        [
            "type A = string",
            "type A2 = integer",
            "type A22 = boolean",
            "type A3 = null"
        ],
        "{}",
        imported.source
    );
}

/// The names of the types an import made, in order.
fn type_names(imported: &import::Imported) -> Vec<&str> {
    imported
        .module
        .types
        .iter()
        .map(|t| t.name.as_str())
        .collect()
}

/// One definition repeated in every tool of a list (each tool's schema carries its own `$defs`)
/// is one named type; a definition of the same name whose text differs, or that reaches a
/// definition that differs, is a type of its own.
#[test]
fn a_definition_repeated_across_tools_is_one_type() {
    let node = json!({"type": "object", "description": "A tree.", "properties": {
        "leaf": {"$ref": "#/$defs/Leaf"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        "required": ["leaf", "children"]});
    let leaf = |ty: &str| json!({"type": ty});
    let tool = |name: &str, leaf_type: &str| {
        json!({"name": name, "description": "T.", "inputSchema": {"type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}}, "required": ["root"],
            "$defs": {"Node": node, "Leaf": leaf(leaf_type)}}})
    };
    let list = json!({"tools": [tool("a", "string"), tool("b", "string"), tool("c", "integer")]});
    let imported = import::import(&list, Dialect::Mcp, &Options::default()).expect("imports");
    let types = type_names(&imported);
    // `a` and `b` share `Node` and `Leaf`; `c`'s `Leaf` differs, and so does the `Node` that
    // reaches it.
    assert_eq!(
        types,
        ["Node", "Leaf", "Node2", "Leaf2"],
        "{}",
        imported.source
    );
    let root = |i: usize| {
        imported
            .source
            .lines()
            .filter(|l| l.contains("root: "))
            .nth(i)
    };
    assert_eq!(root(0), Some("  root: Node"));
    assert_eq!(root(1), Some("  root: Node"));
    assert_eq!(root(2), Some("  root: Node2"));
}

/// Two definitions that reach each other reach the same definitions, and stay two types: a
/// definition is keyed by its own name as well as by what it reaches.
#[test]
fn definitions_of_one_cycle_stay_apart() {
    let doc = json!({"title": "t", "description": "T.", "type": "object", "properties": {
        "a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "n": {"type": "integer"}}}}});
    let imported = import::import(&doc, Dialect::JsonSchema, &Options::default()).expect("imports");
    let types = type_names(&imported);
    assert_eq!(types, ["A", "B"], "{}", imported.source);
    assert!(imported.source.contains("  b?: B\n"), "{}", imported.source);
}
