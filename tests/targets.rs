//! Every example in `examples/` in every target: snapshots of the output (or of the diagnostics
//! when a target cannot represent the file), the documented rules of each target, and
//! deserialization into the real client types (`async-openai`, `rmcp`).

mod target_rules;

use std::path::{Path, PathBuf};

use serde_json::Value;
use tooldef::emit::{self, Options, Target};
use tooldef::LineIndex;
use tooldef::{Code, Diagnostic};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tool"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no examples found in {}", dir.display());
    files
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

struct Example {
    name: String,
    source: String,
    module: tooldef::Module,
}

fn load(path: &Path) -> Example {
    let source = std::fs::read_to_string(path).expect("example is readable");
    let compiled = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()));
    Example {
        name: stem(path),
        source,
        module: compiled.module,
    }
}

/// One line per diagnostic: severity, code, line:column, message.
fn diagnostics_text(diagnostics: &[Diagnostic], source: &str) -> String {
    let index = LineIndex::new(source);
    diagnostics
        .iter()
        .map(|d| {
            let (line, col) = index.line_col(source, d.span.start);
            let severity = if d.is_error() { "error" } else { "warning" };
            format!("{severity}[{}] {line}:{col}: {}", d.code, d.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn emit_all(example: &Example, target: Target) -> Result<emit::Emitted, tooldef::Errors> {
    emit::tools(&example.module, target, &Options::default())
}

#[test]
fn snapshots_of_every_example_in_every_target() {
    for path in examples() {
        let ex = load(&path);
        for &target in Target::ALL {
            let text = match emit_all(&ex, target) {
                Ok(e) => {
                    let json = serde_json::to_string_pretty(&e.json).expect("JSON serializes");
                    if e.warnings.is_empty() {
                        json
                    } else {
                        format!("{json}\n\n{}", diagnostics_text(&e.warnings, &ex.source))
                    }
                }
                Err(e) => format!(
                    "does not compile for {}:\n{}",
                    target.as_str(),
                    diagnostics_text(&e.diagnostics, &ex.source)
                ),
            };
            insta::assert_snapshot!(format!("{}__{}", ex.name, target.as_str()), text);
        }
    }
}

/// The example × target pairs that do not compile, each refused for a provider's own limit: the
/// example, the target, the one code of its errors, and the limit.
const REFUSED: &[(&str, &str, Code, &str)] = &[
    (
        "issue_tracker",
        "anthropic-strict",
        Code::TargetLimit,
        "its tools have 33 optional parameters together; Anthropic allows 24 over the strict tools of a request",
    ),
    (
        "issue_tracker",
        "gemini",
        Code::NotRepresentable,
        "`Comment` recurs through the required `replies`; Gemini unrolls a cycle only through optional properties",
    ),
    (
        "tasks",
        "anthropic-strict",
        Code::NotRepresentable,
        "`Task` is recursive; Anthropic's strict subset has no recursive schemas",
    ),
    (
        "tasks",
        "gemini-openapi",
        Code::NotRepresentable,
        "`Task` is recursive; Gemini's OpenAPI schema has no references",
    ),
    (
        "weather",
        "gemini-openapi",
        Code::InvalidName,
        "the parameter `first-name`; Gemini's parameter names hold only A-Z, a-z, 0-9 and `_` (google-genai `FunctionDeclaration.parameters`)",
    ),
];

#[test]
fn examples_are_refused_only_where_a_provider_limit_forbids() {
    let mut refused = Vec::new();
    for path in examples() {
        let ex = load(&path);
        for &target in Target::ALL {
            if let Err(e) = emit_all(&ex, target) {
                let mut codes: Vec<Code> = e.errors().map(|d| d.code).collect();
                codes.dedup();
                refused.push((ex.name.clone(), target.as_str(), codes));
            }
        }
    }
    let expected: Vec<(String, &str, Vec<Code>)> = REFUSED
        .iter()
        .map(|(name, target, code, _)| (name.to_string(), *target, vec![*code]))
        .collect();
    assert_eq!(refused, expected);
}

#[test]
fn every_output_follows_its_targets_rules() {
    let mut checked = 0;
    for path in examples() {
        let ex = load(&path);
        for &target in Target::ALL {
            if let Ok(e) = emit_all(&ex, target) {
                let problems = target_rules::check(target, &e.json);
                assert!(
                    problems.is_empty(),
                    "{} in {}: {problems:#?}",
                    ex.name,
                    target.as_str()
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= Target::ALL.len(),
        "too few outputs checked: {checked}"
    );
}

#[test]
fn the_checkers_catch_broken_outputs() {
    // Each checker must be able to fail: feed it outputs that break one rule each.
    let cases: &[(Target, Value)] = &[
        (
            Target::OpenAi,
            serde_json::json!([{"type": "function", "function": {"name": "a.b", "description": "d", "parameters": {"type": "object"}}}]),
        ),
        (
            Target::OpenAiStrict,
            serde_json::json!([{"type": "function", "function": {"name": "a", "description": "d", "strict": true,
                "parameters": {"type": "object", "properties": {"x": {"type": "string", "minLength": 1}}, "required": ["x"], "additionalProperties": false}}}]),
        ),
        (
            Target::OpenAiStrict,
            serde_json::json!([{"type": "function", "function": {"name": "a", "description": "d", "strict": true,
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": [], "additionalProperties": false}}}]),
        ),
        (
            Target::Anthropic,
            serde_json::json!([{"name": "a", "description": "d", "input_schema": {"type": "object", "properties": {"a b": {"type": "string"}}}}]),
        ),
        (
            Target::AnthropicStrict,
            serde_json::json!([{"name": "a", "description": "d", "strict": true,
                "input_schema": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 1}}, "additionalProperties": false}}]),
        ),
        (
            Target::AnthropicStrict,
            serde_json::json!([{"name": "a", "description": "d", "strict": true,
                "input_schema": {"type": "object", "properties": {"x": {"type": "array", "items": {"type": "string"}, "minItems": 2}}, "additionalProperties": false}}]),
        ),
        (
            Target::AnthropicStrict,
            serde_json::json!([{"name": "a", "description": "d", "strict": true,
                "input_schema": {"type": "object", "properties": {"x": {"type": "object", "properties": {}}}, "additionalProperties": false}}]),
        ),
        (
            Target::AnthropicStrict,
            serde_json::json!([{"name": "a", "description": "d",
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": false}}]),
        ),
        (
            Target::AnthropicStrict,
            serde_json::Value::Array((0..21).map(|i| serde_json::json!({"name": format!("t{i}"), "description": "d", "strict": true,
                "input_schema": {"type": "object", "properties": {}, "additionalProperties": false}})).collect()),
        ),
        (
            Target::AnthropicStrict,
            serde_json::json!([{"name": "a", "description": "d", "strict": true,
                "input_schema": {"type": "object", "properties": (0..25).map(|i| (format!("p{i}"), serde_json::json!({"type": "string"}))).collect::<serde_json::Map<_, _>>(), "additionalProperties": false}}]),
        ),
        (
            Target::GeminiOpenApi,
            serde_json::json!([{"functionDeclarations": [{"name": "a", "description": "d",
                "parameters": {"type": "OBJECT", "properties": {"x": {"type": "INTEGER", "enum": [1, 2]}}}}]}]),
        ),
        (
            Target::Gemini,
            serde_json::json!([{"functionDeclarations": [{"name": "a", "description": "d",
                "parametersJsonSchema": {"type": "object", "properties": {"x": {"type": "string", "minLength": 1}}}}]}]),
        ),
        (
            Target::Gemini,
            serde_json::json!([{"functionDeclarations": [{"name": "a", "description": "d",
                "parametersJsonSchema": {"type": "object", "properties": {"x": {"type": "boolean", "enum": [true]}}}}]}]),
        ),
        (
            Target::Gemini,
            serde_json::json!([{"functionDeclarations": [{"name": "a", "description": "d",
                "parametersJsonSchema": {"type": "object", "properties": {"x": {"description": "d", "$ref": "#/$defs/T"}},
                    "$defs": {"T": {"type": "object", "properties": {"next": {"$ref": "#/$defs/T"}}, "required": ["next"]}}}}]}]),
        ),
        (
            Target::Gemini,
            serde_json::json!([{"functionDeclarations": [{"name": "a", "description": "d",
                "parameters": {"type": "OBJECT", "properties": {"y": {"type": "STRING"}}}}]}]),
        ),
        (
            Target::GeminiOpenApi,
            serde_json::json!([{"functionDeclarations": [{"name": "a", "description": "d",
                "parameters": {"type": "OBJECT", "properties": {"x": {"type": "OBJECT", "additionalProperties": false, "properties": {"y": {"type": "STRING"}}}}}}]}]),
        ),
        (
            Target::Mcp,
            serde_json::json!({"tools": [{"name": "a", "description": "d", "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}}]}),
        ),
        (
            Target::Mcp,
            serde_json::json!({"tools": [{"name": "a", "description": "d", "inputSchema": {"type": "object"}, "annotations": {"readOnly": true}}]}),
        ),
    ];
    for (target, output) in cases {
        assert!(
            !target_rules::check(*target, output).is_empty(),
            "{} accepted {output}",
            target.as_str()
        );
    }
}

#[test]
fn every_output_deserializes_into_the_client_types() {
    use async_openai::types::chat::ChatCompletionTools;
    use async_openai::types::responses::Tool as ResponsesTool;

    let mut seen = [0usize; 4];
    for path in examples() {
        let ex = load(&path);
        for &target in &[Target::OpenAi, Target::OpenAiStrict] {
            let Ok(e) = emit_all(&ex, target) else {
                continue;
            };
            for tool in e.json.as_array().expect("an array of tools") {
                let typed: ChatCompletionTools = serde_json::from_value(tool.clone())
                    .unwrap_or_else(|err| panic!("{} {}: {err}\n{tool}", ex.name, target.as_str()));
                let ChatCompletionTools::Function(f) = &typed else {
                    panic!("{}: not a function tool: {typed:?}", ex.name)
                };
                assert_eq!(
                    f.function.strict,
                    (target == Target::OpenAiStrict).then_some(true)
                );
                // Serializing back gives the same JSON: no key was ignored on the way in.
                assert_eq!(
                    &serde_json::to_value(&typed).expect("serializes"),
                    tool,
                    "{}",
                    ex.name
                );
                seen[usize::from(target == Target::OpenAiStrict)] += 1;
            }
        }
        if let Ok(e) = emit_all(&ex, Target::OpenAiResponses) {
            for tool in e.json.as_array().expect("an array of tools") {
                let typed: ResponsesTool = serde_json::from_value(tool.clone())
                    .unwrap_or_else(|err| panic!("{}: {err}\n{tool}", ex.name));
                let ResponsesTool::Function(f) = &typed else {
                    panic!("{}: not a function tool", ex.name)
                };
                assert!(f.strict.is_some(), "{}: strict is always stated", ex.name);
                assert_eq!(
                    &serde_json::to_value(&typed).expect("serializes"),
                    tool,
                    "{}",
                    ex.name
                );
                seen[2] += 1;
            }
        }
        if let Ok(e) = emit_all(&ex, Target::Mcp) {
            let list: rmcp::model::ListToolsResult = serde_json::from_value(e.json.clone())
                .unwrap_or_else(|err| panic!("{}: {err}", ex.name));
            let tools = e.json["tools"].as_array().expect("tools");
            assert_eq!(list.tools.len(), tools.len());
            for (typed, tool) in list.tools.iter().zip(tools) {
                assert_eq!(
                    &serde_json::to_value(typed).expect("serializes"),
                    tool,
                    "{}",
                    ex.name
                );
                seen[3] += 1;
            }
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "some client type saw no tool: {seen:?}"
    );
}

#[test]
fn every_schema_is_a_valid_json_schema() {
    for path in examples() {
        let ex = load(&path);
        for &target in &[
            Target::JsonSchema,
            Target::OpenAi,
            Target::OpenAiStrict,
            Target::Anthropic,
            Target::AnthropicStrict,
            Target::Mcp,
        ] {
            let Ok(e) = emit_all(&ex, target) else {
                continue;
            };
            let tools = match target {
                Target::Mcp => e.json["tools"].clone(),
                _ => e.json.clone(),
            };
            for tool in tools.as_array().expect("tools") {
                let schema = match target {
                    Target::JsonSchema => &tool["parameters"],
                    Target::OpenAi | Target::OpenAiStrict => &tool["function"]["parameters"],
                    Target::Anthropic | Target::AnthropicStrict => &tool["input_schema"],
                    _ => &tool["inputSchema"],
                };
                assert!(
                    jsonschema::meta::is_valid(schema),
                    "{} {}: not a valid JSON Schema: {schema}",
                    ex.name,
                    target.as_str()
                );
            }
        }
    }
}

#[test]
fn folded_constraints_warn_at_their_source_and_quiet_silences_them() {
    let source = "/// Book.\ntool book {\n  /// Nights.\n  nights: integer @exclusive_min(0) @multiple_of(2)\n}\n";
    let module = tooldef::compile(source).expect("compiles").module;
    let e = emit::tools(&module, Target::GeminiOpenApi, &Options::default())
        .expect("gemini can fold these");
    let codes: Vec<Code> = e.warnings.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::FoldedConstraint]);
    assert_eq!(
        &source[e.warnings[0].span.start..e.warnings[0].span.end],
        "@multiple_of(2)"
    );
    let nights = &e.json[0]["functionDeclarations"][0]["parameters"]["properties"]["nights"];
    // An exclusive integer bound is an inclusive one, exactly: no fold needed.
    assert_eq!(nights["minimum"], 1);
    assert_eq!(nights["description"], "Nights. Must be a multiple of 2.");

    let quiet = emit::tools(&module, Target::GeminiOpenApi, &Options { warnings: false })
        .expect("compiles");
    assert!(quiet.warnings.is_empty());
    assert_eq!(quiet.json, e.json);
}

/// Which bound binds is decided exactly: 2^53 + 1 and 2^53 are one double, but not one number.
#[test]
fn the_binding_bound_is_decided_exactly() {
    // An empty range that doubles would call a point: refused.
    let empty = "/// T.\ntool t {\n  /// N.\n  n: integer @min(9007199254740993) @max(9007199254740992)\n}\n";
    let errors = tooldef::compile(empty).expect_err("no integer fits");
    let codes: Vec<&str> = errors.errors().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["invalid-range"]);

    // `@min(2^53 + 1)` binds over `@exclusive_min(2^53)`: folding for Gemini's OpenAPI form keeps
    // the inclusive bound and has nothing to fold.
    let source = "/// T.\ntool t {\n  /// N.\n  n: number @min(9007199254740993) @exclusive_min(9007199254740992)\n}\n";
    let module = tooldef::compile(source).expect("compiles").module;
    let e = emit::tools(&module, Target::GeminiOpenApi, &Options::default()).expect("emits");
    let n = &e.json[0]["functionDeclarations"][0]["parameters"]["properties"]["n"];
    assert_eq!(n["minimum"].to_string(), "9007199254740993");
    assert_eq!(n["description"], "N.");
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);
}

#[test]
fn unrepresentable_types_are_errors_for_that_target_only() {
    let source = "/// A node.\ntype Node { next?: Node }\n/// Walk.\ntool walk { start: Node }\n";
    let module = tooldef::compile(source).expect("compiles").module;
    let err = emit::tools(&module, Target::GeminiOpenApi, &Options::default())
        .expect_err("recursion is not representable in Gemini's OpenAPI schema");
    let errors: Vec<&Diagnostic> = err.errors().collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].code, Code::NotRepresentable);
    assert_eq!(&source[errors[0].span.start..errors[0].span.end], "start");
    for &target in &[
        Target::JsonSchema,
        Target::OpenAi,
        Target::OpenAiStrict,
        Target::Anthropic,
        Target::Gemini,
        Target::Mcp,
    ] {
        assert!(
            emit::tools(&module, target, &Options::default()).is_ok(),
            "{}",
            target.as_str()
        );
    }
}

#[test]
fn gemini_json_refers_to_recursive_types_through_optional_fields_only() {
    let through_optional =
        "/// A node.\ntype Node { next?: Node }\n/// Walk.\ntool walk { start: Node }\n";
    let module = tooldef::compile(through_optional).expect("compiles").module;
    let e = emit::tools(&module, Target::Gemini, &Options::default()).expect("an optional cycle");
    let params = &e.json[0]["functionDeclarations"][0]["parametersJsonSchema"];
    assert_eq!(params["properties"]["start"]["$ref"], "#/$defs/Node");
    assert_eq!(
        params["$defs"]["Node"]["properties"]["next"]["$ref"],
        "#/$defs/Node"
    );

    let through_required =
        "/// A node.\ntype Node { next: Node[] }\n/// Walk.\ntool walk { start: Node }\n";
    let module = tooldef::compile(through_required).expect("compiles").module;
    let err = emit::tools(&module, Target::Gemini, &Options::default())
        .expect_err("Gemini cannot end a cycle through required fields");
    let errors: Vec<&Diagnostic> = err.errors().collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].code, Code::NotRepresentable);
    assert_eq!(
        &through_required[errors[0].span.start..errors[0].span.end],
        "next"
    );
}

#[test]
fn gemini_json_keeps_what_its_subset_has_and_folds_the_rest() {
    let source = r#"/// Book.
tool book -> { id: integer } {
  /// Nights.
  nights: integer @exclusive_min(0) @multiple_of(2)
  code: string @pattern("^[A-Z]{3}$") @max_length(3)
  tags?: map<string>
  pair?: [integer, string]
  level?: 1 | 2 | "max" | null
  flag: true
  on?: string @format(date)
  mail?: string @format(email)
}
"#;
    let module = tooldef::compile(source).expect("compiles").module;
    let e = emit::tools(&module, Target::Gemini, &Options::default()).expect("compiles");
    let decl = &e.json[0]["functionDeclarations"][0];
    let p = &decl["parametersJsonSchema"]["properties"];
    assert_eq!(p["nights"]["minimum"], 1);
    assert_eq!(
        p["nights"]["description"],
        "Nights. Must be a multiple of 2."
    );
    assert_eq!(
        p["code"]["description"],
        "Must be at most 3 characters long. Must match the pattern \"^[A-Z]{3}$\"."
    );
    assert_eq!(p["tags"]["additionalProperties"]["type"], "string");
    assert_eq!(p["pair"]["prefixItems"][1]["type"], "string");
    assert_eq!(p["pair"]["maxItems"], 2);
    assert_eq!(
        p["level"]["anyOf"],
        serde_json::json!([{"type": "string", "enum": ["max"]}, {"type": "integer", "enum": [1, 2]}, {"type": "null"}])
    );
    assert_eq!(p["flag"]["description"], "Must be true.");
    assert_eq!(p["on"]["format"], "date");
    assert!(p["mail"].get("format").is_none());
    assert_eq!(
        decl["responseJsonSchema"]["properties"]["id"]["type"],
        "integer"
    );
    let folded: Vec<&str> = e
        .warnings
        .iter()
        .map(|d| &source[d.span.start..d.span.end])
        .collect();
    assert_eq!(
        folded,
        [
            "@multiple_of(2)",
            "@pattern(\"^[A-Z]{3}$\")",
            "@max_length(3)",
            "flag",
            "@format(email)"
        ]
    );
}

#[test]
fn names_a_provider_forbids_are_errors() {
    let source = "/// Get.\ntool \"files.get\" { path: string }\n";
    let module = tooldef::compile(source).expect("MCP allows dots").module;
    for &target in &[
        Target::OpenAi,
        Target::OpenAiStrict,
        Target::OpenAiResponses,
        Target::Anthropic,
        Target::AnthropicStrict,
    ] {
        let err =
            emit::tools(&module, target, &Options::default()).expect_err("dots are forbidden");
        assert!(
            err.errors().all(|d| d.code == Code::InvalidName),
            "{}",
            target.as_str()
        );
    }
    for &target in &[
        Target::Gemini,
        Target::GeminiOpenApi,
        Target::Mcp,
        Target::JsonSchema,
    ] {
        assert!(
            emit::tools(&module, target, &Options::default()).is_ok(),
            "{}",
            target.as_str()
        );
    }
}

#[test]
fn strict_mode_limits_are_checked() {
    // 11 levels of nested objects: one over OpenAI's limit of 10.
    let mut ty = String::from("{ leaf: string }");
    for _ in 0..10 {
        ty = format!("{{ inner: {ty} }}");
    }
    let source = format!("/// Deep.\ntool deep {{ x: {ty} }}\n");
    let module = tooldef::compile(&source).expect("compiles").module;
    let err =
        emit::tools(&module, Target::OpenAiStrict, &Options::default()).expect_err("too deep");
    assert!(
        err.errors()
            .any(|d| d.code == Code::TargetLimit && d.message.contains("12 levels")),
        "{err:?}"
    );
    // The Responses target falls back to non-strict instead.
    let ok =
        emit::tools(&module, Target::OpenAiResponses, &Options::default()).expect("falls back");
    assert_eq!(ok.json[0]["strict"], false);

    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    let source = format!(
        "/// Many.\nenum Many {{ {} }}\n/// Pick.\ntool pick {{ x: Many }}\n",
        values.join(" ")
    );
    let module = tooldef::compile(&source).expect("compiles").module;
    let err = emit::tools(&module, Target::OpenAiStrict, &Options::default())
        .expect_err("too many enum values");
    assert!(err.errors().any(|d| d.code == Code::TargetLimit), "{err:?}");
}

#[test]
fn a_schema_that_would_explode_when_inlined_is_an_error_not_a_hang() {
    // Each level uses the previous one twice: 2^30 schemas once inlined.
    let mut source = String::from("type A0 { v: string }\n");
    for i in 1..=30 {
        source.push_str(&format!("type A{i} {{ x: A{}, y: A{} }}\n", i - 1, i - 1));
    }
    source.push_str("/// T.\ntool t { a: A30 }\n");
    // The checker refuses it before any target is asked to inline it.
    let err = tooldef::compile(&source).expect_err("too large");
    assert!(
        err.errors().all(|d| d.code == Code::SchemaTooLarge),
        "{err:?}"
    );
}

#[test]
fn anthropic_strict_keeps_its_subset_and_folds_the_rest() {
    let source = r#"/// Book.
tool book {
  /// Guests.
  guests: integer @min(1) @max(8) @multiple_of(2)
  /// Name.
  name?: string @min_length(2) @pattern("^[a-z]+$") = "xy"
  /// Word.
  word?: string @pattern("\\bok\\b")
  /// Tags.
  tags: string[] @min_items(3) @max_items(5)
  /// Some.
  some: string[] @min_items(1)
  /// Site.
  site: string @format(uri)
  /// Extra.
  extra: { a: integer, ...: string }
}
"#;
    let module = tooldef::compile(source).expect("compiles").module;
    let e = emit::tools(&module, Target::AnthropicStrict, &Options::default()).expect("compiles");
    let tool = &e.json[0];
    assert_eq!(tool["strict"], true);
    let schema = &tool["input_schema"];
    let props = &schema["properties"];
    assert_eq!(schema["additionalProperties"], false);
    // Optional fields stay optional: no null stands for "absent".
    assert_eq!(
        schema["required"],
        serde_json::json!(["guests", "tags", "some", "site", "extra"])
    );
    assert_eq!(props["name"]["type"], "string");
    assert_eq!(props["name"]["default"], "xy");
    // No numeric keyword at all: the range and the multiple are folded.
    let guests = props["guests"].as_object().expect("an object");
    assert!(!guests.contains_key("minimum") && !guests.contains_key("maximum"));
    assert_eq!(
        guests["description"],
        "Guests. Must be between 1 and 8 (inclusive). Must be a multiple of 2."
    );
    // A simple pattern is kept; a word boundary is not supported.
    assert_eq!(props["name"]["pattern"], "^[a-z]+$");
    assert!(props["word"].get("pattern").is_none());
    // `minItems` only 0 or 1: a larger minimum keeps 1, and the count is folded.
    assert_eq!(props["tags"]["minItems"], 1);
    assert!(props["tags"].get("maxItems").is_none());
    assert_eq!(
        props["tags"]["description"],
        "Tags. Must have between 3 and 5 items."
    );
    assert_eq!(props["some"]["minItems"], 1);
    assert_eq!(props["site"]["format"], "uri");
    // Extra keys travel as entries in a closed object.
    assert_eq!(props["extra"]["additionalProperties"], false);
    assert!(props["extra"]["properties"]["_extra_keys"].is_object());
    let codes: Vec<Code> = e.warnings.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::FoldedConstraint) && codes.contains(&Code::LoweredConstruct));
    assert!(target_rules::check(Target::AnthropicStrict, &e.json).is_empty());
}

#[test]
fn anthropic_strict_limits_are_checked_per_tool_and_per_request() {
    // 25 optional fields in one tool: over the 24 of a request on its own.
    let fields: Vec<String> = (0..25).map(|i| format!("f{i}?: string")).collect();
    let source = format!("/// Many.\ntool many {{ {} }}\n", fields.join(", "));
    let module = tooldef::compile(&source).expect("compiles").module;
    let err = emit::tools(&module, Target::AnthropicStrict, &Options::default())
        .expect_err("too many optional fields");
    let messages: Vec<&str> = err.errors().map(|d| d.message.as_str()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("25 optional parameters"),
        "{messages:?}"
    );

    // 9 union-typed fields in each of two tools: 18 together, over 16.
    let unions: Vec<String> = (0..9).map(|i| format!("u{i}: string | null")).collect();
    let source = format!(
        "/// A.\ntool a {{ {0} }}\n/// B.\ntool b {{ {0} }}\n",
        unions.join(", ")
    );
    let module = tooldef::compile(&source).expect("compiles").module;
    assert!(emit::tool(
        &module,
        &module.tools[0],
        Target::AnthropicStrict,
        &Options::default()
    )
    .is_ok());
    let err = emit::tools(&module, Target::AnthropicStrict, &Options::default())
        .expect_err("too many unions together");
    let d = err.errors().next().expect("an error");
    assert_eq!(d.code, Code::TargetLimit);
    assert!(
        d.message.contains("18 parameters with union types") && d.message.contains("tool `b`"),
        "{}",
        d.message
    );
    let toolset = tooldef::Toolset::new([tooldef::Source::new("t.tool", source)]).expect("loads");
    assert!(toolset.emit(Target::AnthropicStrict).is_err());
    assert!(toolset.emit(Target::Anthropic).is_ok());

    // 21 strict tools.
    let tools: Vec<String> = (0..21)
        .map(|i| format!("/// T.\ntool t{i} {{ x: string }}\n"))
        .collect();
    let module = tooldef::compile(&tools.concat()).expect("compiles").module;
    let err = emit::tools(&module, Target::AnthropicStrict, &Options::default())
        .expect_err("too many strict tools");
    assert!(err.errors().any(|d| d.message.contains("21 strict tools")));
}
