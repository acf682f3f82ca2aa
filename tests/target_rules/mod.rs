//! Checkers for the documented rules of each target (docs/targets.md), written independently of
//! the emitters: each returns every rule an output breaks, in words, so a test can fail with a
//! useful message. They check shapes, keywords, names and limits; that the schemas accept the
//! right values is checked with the jsonschema crate elsewhere.

#![allow(dead_code)]

use serde_json::{Map, Value};
use tooldef::emit::Target;

/// Every rule of `target` that `output` (a whole `emit::tools` result) breaks.
pub fn check(target: Target, output: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    match target {
        Target::JsonSchema => each(output, &mut errors, json_schema_tool),
        Target::OpenAi => each(output, &mut errors, |t, e| openai_chat(t, false, e)),
        Target::OpenAiStrict => each(output, &mut errors, |t, e| openai_chat(t, true, e)),
        Target::OpenAiResponses => each(output, &mut errors, openai_responses),
        Target::Anthropic => each(output, &mut errors, anthropic),
        Target::AnthropicStrict => anthropic_strict(output, &mut errors),
        Target::Gemini => gemini_tool(output, &mut errors, gemini_json_declaration),
        Target::GeminiOpenApi => gemini_tool(output, &mut errors, gemini_declaration),
        Target::Mcp => {
            keys_within(output, &["tools"], "tools/list result", &mut errors);
            each(&output["tools"], &mut errors, mcp_tool);
        }
    }
    errors
}

fn each(list: &Value, errors: &mut Vec<String>, f: impl Fn(&Value, &mut Vec<String>)) {
    match list.as_array() {
        Some(items) => items.iter().for_each(|t| f(t, errors)),
        None => errors.push(format!("expected an array of tools, got {list}")),
    }
}

fn keys_within(v: &Value, allowed: &[&str], what: &str, errors: &mut Vec<String>) {
    match v.as_object() {
        Some(m) => {
            for k in m.keys() {
                if !allowed.contains(&k.as_str()) {
                    errors.push(format!("{what}: key `{k}` is not allowed"));
                }
            }
        }
        None => errors.push(format!("{what}: expected an object, got {v}")),
    }
}

fn matches(
    name: &str,
    max: usize,
    first: impl Fn(char) -> bool,
    rest: impl Fn(char) -> bool,
) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(first) && name.chars().count() <= max && chars.all(rest)
}

fn openai_name(n: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    matches(n, 64, ok, ok)
}

fn name_of<'a>(tool: &'a Value, key: &str, errors: &mut Vec<String>) -> &'a str {
    match tool.get(key).and_then(Value::as_str) {
        Some(n) => n,
        None => {
            errors.push(format!("tool without a string `{key}`: {tool}"));
            ""
        }
    }
}

fn description(tool: &Value, errors: &mut Vec<String>) {
    if !tool.get("description").is_some_and(Value::is_string) {
        errors.push(format!("tool without a description: {tool}"));
    }
}

fn json_schema_tool(tool: &Value, errors: &mut Vec<String>) {
    keys_within(
        tool,
        &["name", "description", "parameters", "output"],
        "json-schema tool",
        errors,
    );
    if tool["parameters"]["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
        errors.push("json-schema parameters must name draft 2020-12".into());
    }
}

// ---------------------------------------------------------------------------------------------
// OpenAI

fn openai_chat(tool: &Value, strict: bool, errors: &mut Vec<String>) {
    let allowed: &[&str] = if strict {
        &["name", "description", "parameters", "strict"]
    } else {
        &["name", "description", "parameters"]
    };
    keys_within(tool, &["type", "function"], "openai tool", errors);
    if tool["type"] != "function" {
        errors.push("openai tool type must be \"function\"".into());
    }
    let f = &tool["function"];
    keys_within(f, allowed, "openai function", errors);
    let name = name_of(f, "name", errors);
    if !openai_name(name) {
        errors.push(format!(
            "openai function name `{name}` breaks ^[a-zA-Z0-9_-]{{1,64}}$"
        ));
    }
    description(f, errors);
    if strict {
        if f["strict"] != true {
            errors.push(format!("`{name}`: strict must be true"));
        }
        strict_root(&f["parameters"], name, errors);
    } else {
        plain_root(&f["parameters"], name, errors);
    }
}

fn openai_responses(tool: &Value, errors: &mut Vec<String>) {
    keys_within(
        tool,
        &["type", "name", "description", "parameters", "strict"],
        "responses tool",
        errors,
    );
    if tool["type"] != "function" {
        errors.push("responses tool type must be \"function\"".into());
    }
    let name = name_of(tool, "name", errors);
    if !openai_name(name) {
        errors.push(format!(
            "responses function name `{name}` breaks ^[a-zA-Z0-9_-]{{1,64}}$"
        ));
    }
    description(tool, errors);
    match tool["strict"].as_bool() {
        Some(true) => strict_root(&tool["parameters"], name, errors),
        Some(false) => plain_root(&tool["parameters"], name, errors),
        None => errors.push(format!("`{name}`: strict must be a boolean")),
    }
}

/// A JSON Schema for a provider that takes plain JSON Schema: an object, no `$schema`.
fn plain_root(schema: &Value, name: &str, errors: &mut Vec<String>) {
    if schema["type"] != "object" {
        errors.push(format!("`{name}`: parameters must be a type-object schema"));
    }
    if schema.get("$schema").is_some() {
        errors.push(format!("`{name}`: parameters must not carry $schema"));
    }
}

/// Keywords OpenAI strict mode supports (Structured Outputs, "Supported schemas").
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

fn strict_root(schema: &Value, name: &str, errors: &mut Vec<String>) {
    if schema["type"] != "object" || schema.get("anyOf").is_some() {
        errors.push(format!(
            "`{name}`: strict parameters must be an object, not anyOf"
        ));
    }
    let mut stats = (0usize, 0usize);
    strict_schema(schema, name, "#", errors, &mut stats);
    let defs = schema.get("$defs").and_then(Value::as_object);
    if let Some(defs) = defs {
        for (k, d) in defs {
            strict_schema(d, name, &format!("#/$defs/{k}"), errors, &mut stats);
        }
    }
    let (properties, enums) = stats;
    if properties > 5000 {
        errors.push(format!("`{name}`: {properties} properties, over 5000"));
    }
    if enums > 1000 {
        errors.push(format!("`{name}`: {enums} enum values, over 1000"));
    }
    let depth = object_depth(schema, defs, &mut Vec::new());
    if depth > 10 {
        errors.push(format!("`{name}`: objects nest {depth} levels, over 10"));
    }
}

fn strict_schema(
    s: &Value,
    name: &str,
    at: &str,
    errors: &mut Vec<String>,
    stats: &mut (usize, usize),
) {
    let Some(m) = s.as_object() else {
        errors.push(format!("`{name}` {at}: a schema must be an object"));
        return;
    };
    for k in m.keys() {
        if !STRICT_KEYWORDS.contains(&k.as_str()) {
            errors.push(format!(
                "`{name}` {at}: keyword `{k}` is not supported in strict mode"
            ));
        }
    }
    if at != "#" && m.contains_key("$defs") {
        errors.push(format!("`{name}` {at}: $defs only at the root"));
    }
    if m.contains_key("$ref") && m.len() > 1 {
        errors.push(format!("`{name}` {at}: $ref must stand alone"));
    }
    if !m.contains_key("type") && !m.contains_key("anyOf") && !m.contains_key("$ref") {
        errors.push(format!("`{name}` {at}: every schema needs a type"));
    }
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        if !STRICT_FORMATS.contains(&f) {
            errors.push(format!(
                "`{name}` {at}: format `{f}` is not supported in strict mode"
            ));
        }
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        stats.1 += values.len();
    }
    let is_object = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    if is_object {
        if m.get("additionalProperties") != Some(&Value::Bool(false)) {
            errors.push(format!(
                "`{name}` {at}: objects need additionalProperties: false"
            ));
        }
        let props: Vec<&String> = m
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_default();
        let required: Vec<&str> = m
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if props.len() != required.len() || props.iter().any(|p| !required.contains(&p.as_str())) {
            errors.push(format!("`{name}` {at}: every property must be required"));
        }
        stats.0 += props.len();
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        for (k, p) in props {
            strict_schema(p, name, &format!("{at}/properties/{k}"), errors, stats);
        }
    }
    if let Some(items) = m.get("items") {
        strict_schema(items, name, &format!("{at}/items"), errors, stats);
    }
    if let Some(Value::Array(members)) = m.get("anyOf") {
        for (i, member) in members.iter().enumerate() {
            strict_schema(member, name, &format!("{at}/anyOf/{i}"), errors, stats);
        }
    }
}

fn object_depth(s: &Value, defs: Option<&Map<String, Value>>, path: &mut Vec<String>) -> usize {
    let Some(m) = s.as_object() else { return 0 };
    let mut children: Vec<&Value> = Vec::new();
    if let Some(Value::Object(p)) = m.get("properties") {
        children.extend(p.values());
    }
    if let Some(Value::Array(a)) = m.get("anyOf") {
        children.extend(a.iter());
    }
    children.extend(m.get("items"));
    let mut deepest = children
        .into_iter()
        .map(|c| object_depth(c, defs, path))
        .max()
        .unwrap_or(0);
    if let (Some(Value::String(r)), Some(defs)) = (m.get("$ref"), defs) {
        let n = r.trim_start_matches("#/$defs/").to_string();
        if !path.contains(&n) {
            if let Some(d) = defs.get(&n) {
                path.push(n);
                deepest = deepest.max(object_depth(d, Some(defs), path));
                path.pop();
            }
        }
    }
    usize::from(m.contains_key("properties")) + deepest
}

// ---------------------------------------------------------------------------------------------
// Anthropic

fn anthropic(tool: &Value, errors: &mut Vec<String>) {
    keys_within(
        tool,
        &["name", "description", "input_schema"],
        "anthropic tool",
        errors,
    );
    let name = name_of(tool, "name", errors);
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !matches(name, 128, ok, ok) {
        errors.push(format!(
            "anthropic tool name `{name}` breaks ^[a-zA-Z0-9_-]{{1,128}}$"
        ));
    }
    description(tool, errors);
    let schema = &tool["input_schema"];
    plain_root(schema, name, errors);
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let key_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
        for k in props.keys() {
            if !matches(k, 64, key_ok, key_ok) {
                errors.push(format!(
                    "`{name}`: property key `{k}` breaks ^[a-zA-Z0-9_.-]{{1,64}}$"
                ));
            }
        }
    }
}

/// The keywords of Anthropic's strict JSON Schema subset (structured outputs, "JSON Schema
/// limitations": basic types, `enum`, `const`, `anyOf`, `allOf`, `$ref`/`$defs`/`definitions`,
/// `default`, `required`, `additionalProperties`, string formats, `minItems`; regular
/// expressions in `pattern`), and the annotations `description` and `items`, `properties`.
const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "default",
    "format",
    "minItems",
    "pattern",
];

/// The string formats of Anthropic's strict subset.
const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Anthropic's explicit per-request limits (structured outputs, "Schema complexity limits"):
/// strict tools, optional parameters, parameters with union types.
const ANTHROPIC_STRICT_LIMITS: (usize, usize, usize) = (20, 24, 16);

fn anthropic_strict(output: &Value, errors: &mut Vec<String>) {
    let Some(tools) = output.as_array() else {
        errors.push(format!("expected an array of tools, got {output}"));
        return;
    };
    // (strict tools, optional parameters, union-typed parameters) over the whole request.
    let mut counts = (0, 0, 0);
    for tool in tools {
        keys_within(
            tool,
            &["name", "description", "input_schema", "strict"],
            "anthropic-strict tool",
            errors,
        );
        if tool.get("strict") != Some(&Value::Bool(true)) {
            errors.push(format!(
                "anthropic-strict tool without `strict: true`: {tool}"
            ));
        }
        counts.0 += 1;
        let name = name_of(tool, "name", errors);
        let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if !matches(name, 128, ok, ok) {
            errors.push(format!(
                "tool name `{name}` breaks ^[a-zA-Z0-9_-]{{1,128}}$"
            ));
        }
        description(tool, errors);
        let schema = &tool["input_schema"];
        if schema.get("type") != Some(&Value::String("object".into())) {
            errors.push(format!("`{name}`: input_schema must be of type object"));
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            let key_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
            for k in props.keys() {
                if !matches(k, 64, key_ok, key_ok) {
                    errors.push(format!(
                        "`{name}`: property key `{k}` breaks ^[a-zA-Z0-9_.-]{{1,64}}$"
                    ));
                }
            }
        }
        anthropic_strict_schema(schema, name, "#", errors, &mut counts);
    }
    let (tools_max, optional_max, unions_max) = ANTHROPIC_STRICT_LIMITS;
    if counts.0 > tools_max {
        errors.push(format!(
            "{} strict tools in one request; the limit is {tools_max}",
            counts.0
        ));
    }
    if counts.1 > optional_max {
        errors.push(format!(
            "{} optional parameters in one request; the limit is {optional_max}",
            counts.1
        ));
    }
    if counts.2 > unions_max {
        errors.push(format!(
            "{} union-typed parameters in one request; the limit is {unions_max}",
            counts.2
        ));
    }
}

fn anthropic_strict_schema(
    s: &Value,
    name: &str,
    at: &str,
    errors: &mut Vec<String>,
    counts: &mut (usize, usize, usize),
) {
    let Some(m) = s.as_object() else {
        errors.push(format!("`{name}` {at}: a schema must be an object"));
        return;
    };
    for k in m.keys() {
        if !ANTHROPIC_STRICT_KEYWORDS.contains(&k.as_str()) {
            errors.push(format!(
                "`{name}` {at}: keyword `{k}` is not in the strict subset"
            ));
        }
    }
    if !["type", "anyOf", "enum", "const"]
        .iter()
        .any(|k| m.contains_key(*k))
    {
        errors.push(format!("`{name}` {at}: a schema needs a type"));
    }
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        if !ANTHROPIC_STRICT_FORMATS.contains(&f) {
            errors.push(format!("`{name}` {at}: format `{f}` is not supported"));
        }
    }
    if let Some(n) = m.get("minItems") {
        if n != 0 && n != 1 {
            errors.push(format!(
                "`{name}` {at}: minItems may only be 0 or 1, got {n}"
            ));
        }
    }
    if let Some(p) = m.get("pattern").and_then(Value::as_str) {
        let unsupported = ["\\b", "\\B", "(?=", "(?!", "(?<=", "(?<!"]
            .iter()
            .any(|x| p.contains(x))
            || (1..=9).any(|d| p.contains(&format!("\\{d}")));
        if unsupported {
            errors.push(format!(
                "`{name}` {at}: pattern `{p}` uses an unsupported regex feature"
            ));
        }
    }
    for v in m
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if v.is_array() || v.is_object() {
            errors.push(format!("`{name}` {at}: enums hold scalars only"));
        }
    }
    let is_object = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    if is_object && m.get("additionalProperties") != Some(&Value::Bool(false)) {
        errors.push(format!(
            "`{name}` {at}: objects need additionalProperties: false"
        ));
    }
    if let Some(a) = m.get("additionalProperties") {
        if a != &Value::Bool(false) {
            errors.push(format!("`{name}` {at}: additionalProperties must be false"));
        }
    }
    let required: Vec<&str> = m
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props = m.get("properties").and_then(Value::as_object);
    for r in &required {
        if !props.is_some_and(|p| p.contains_key(*r)) {
            errors.push(format!("`{name}` {at}: required `{r}` is not a property"));
        }
    }
    for (k, v) in props.into_iter().flatten() {
        if !required.contains(&k.as_str()) {
            counts.1 += 1;
        }
        if v.get("anyOf").is_some() || v.get("type").is_some_and(Value::is_array) {
            counts.2 += 1;
        }
        anthropic_strict_schema(v, name, &format!("{at}/properties/{k}"), errors, counts);
    }
    if let Some(items) = m.get("items") {
        anthropic_strict_schema(items, name, &format!("{at}/items"), errors, counts);
    }
    for (i, member) in m
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        anthropic_strict_schema(member, name, &format!("{at}/anyOf/{i}"), errors, counts);
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini

fn gemini_tool(output: &Value, errors: &mut Vec<String>, decl: fn(&Value, &mut Vec<String>)) {
    match output.as_array().map(Vec::as_slice) {
        Some([tool]) => {
            keys_within(tool, &["functionDeclarations"], "gemini tool", errors);
            each(&tool["functionDeclarations"], errors, decl);
        }
        _ => errors.push("gemini output must be an array of one Tool object".into()),
    }
}

fn gemini_name(decl: &Value, errors: &mut Vec<String>) -> String {
    let name = name_of(decl, "name", errors);
    let first = |c: char| c.is_ascii_alphabetic() || c == '_';
    if !matches(name, 128, first, |c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')
    }) {
        errors.push(format!(
            "gemini function name `{name}` breaks the naming rule"
        ));
    }
    description(decl, errors);
    name.to_string()
}

/// The keywords of `GenerationConfig.responseJsonSchema`'s documented subset, which
/// `parametersJsonSchema` shares (`$defs` is checked apart: at the root only).
const GEMINI_JSON_KEYWORDS: &[&str] = &[
    "$id",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];

const GEMINI_JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null",
];

fn gemini_json_declaration(decl: &Value, errors: &mut Vec<String>) {
    keys_within(
        decl,
        &[
            "name",
            "description",
            "parametersJsonSchema",
            "responseJsonSchema",
        ],
        "gemini declaration",
        errors,
    );
    let name = gemini_name(decl, errors);
    if let Some(params) = decl.get("parametersJsonSchema") {
        if params["type"] != "object" {
            errors.push(format!("`{name}`: parametersJsonSchema must be an object"));
        }
        gemini_json_root(params, &name, "parametersJsonSchema", errors);
    }
    if let Some(response) = decl.get("responseJsonSchema") {
        gemini_json_root(response, &name, "responseJsonSchema", errors);
    }
}

/// A schema document: its body, and each `$defs` entry, where a reference back into the
/// recursion must sit under an optional property (Gemini unrolls cycles only through those).
fn gemini_json_root(s: &Value, name: &str, at: &str, errors: &mut Vec<String>) {
    let defs = s.get("$defs").and_then(Value::as_object);
    let mut body = s.clone();
    if let Some(m) = body.as_object_mut() {
        m.remove("$defs");
    }
    gemini_json_schema(&body, defs, None, name, at, errors);
    for (k, d) in defs.into_iter().flatten() {
        gemini_json_schema(
            d,
            defs,
            Some(false),
            name,
            &format!("{at}.$defs.{k}"),
            errors,
        );
    }
}

/// `in_def`: inside a `$defs` entry, whether an optional property encloses this schema.
fn gemini_json_schema(
    s: &Value,
    defs: Option<&Map<String, Value>>,
    in_def: Option<bool>,
    name: &str,
    at: &str,
    errors: &mut Vec<String>,
) {
    let Some(m) = s.as_object() else {
        errors.push(format!("`{name}` {at}: a schema must be an object"));
        return;
    };
    for k in m.keys() {
        if !GEMINI_JSON_KEYWORDS.contains(&k.as_str()) {
            errors.push(format!(
                "`{name}` {at}: keyword `{k}` is not in Gemini's JSON Schema subset"
            ));
        }
    }
    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
        if m.keys().any(|k| !k.starts_with('$')) {
            errors.push(format!(
                "`{name}` {at}: only `$` keywords may stand beside `$ref`"
            ));
        }
        let target = r.strip_prefix("#/$defs/");
        if !target.is_some_and(|t| defs.is_some_and(|d| d.contains_key(t))) {
            errors.push(format!("`{name}` {at}: `$ref` {r} names no `$defs` entry"));
        }
        if in_def == Some(false) {
            errors.push(format!(
                "`{name}` {at}: a recursive reference outside every optional property"
            ));
        }
    }
    let types: Vec<&str> = match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for t in &types {
        if !GEMINI_JSON_TYPES.contains(t) {
            errors.push(format!(
                "`{name}` {at}: type `{t}` is not a JSON Schema type"
            ));
        }
    }
    if let Some(values) = m.get("enum") {
        let ok = values
            .as_array()
            .is_some_and(|v| v.iter().all(|x| x.is_string() || x.is_number()));
        if !ok {
            errors.push(format!(
                "`{name}` {at}: enums hold strings and numbers only"
            ));
        }
    }
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        if !matches!(f, "date-time" | "date" | "time") {
            errors.push(format!("`{name}` {at}: format `{f}` is not accepted"));
        }
    }
    let props = m.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(req)) = m.get("required") {
        for r in req {
            if !r
                .as_str()
                .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)))
            {
                errors.push(format!("`{name}` {at}: required `{r}` is not a property"));
            }
        }
    }
    let required = |k: &str| {
        m.get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x == k))
    };
    for (k, p) in props.into_iter().flatten() {
        let inside = in_def.map(|under| under || !required(k));
        gemini_json_schema(p, defs, inside, name, &format!("{at}.{k}"), errors);
    }
    let mut subs: Vec<(String, &Value)> = Vec::new();
    if let Some(items) = m.get("items") {
        subs.push((format!("{at}[]"), items));
    }
    if let Some(a @ Value::Object(_)) = m.get("additionalProperties") {
        subs.push((format!("{at}.*"), a));
    }
    for key in ["prefixItems", "anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = m.get(key) {
            for (i, member) in members.iter().enumerate() {
                subs.push((format!("{at}.{key}[{i}]"), member));
            }
        }
    }
    for (path, sub) in subs {
        gemini_json_schema(sub, defs, in_def, name, &path, errors);
    }
}

const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
    "example",
];

const GEMINI_TYPES: &[&str] = &[
    "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
];

fn gemini_declaration(decl: &Value, errors: &mut Vec<String>) {
    keys_within(
        decl,
        &["name", "description", "parameters"],
        "gemini declaration",
        errors,
    );
    let name = gemini_name(decl, errors);
    let name = name.as_str();
    let first = |c: char| c.is_ascii_alphabetic() || c == '_';
    let Some(params) = decl.get("parameters") else {
        return;
    };
    if params["type"] != "OBJECT" {
        errors.push(format!("`{name}`: parameters must be an OBJECT"));
    }
    if let Some(props) = params.get("properties").and_then(Value::as_object) {
        for k in props.keys() {
            if !matches(k, 64, first, |c| c.is_ascii_alphanumeric() || c == '_') {
                errors.push(format!(
                    "`{name}`: parameter name `{k}` breaks Gemini's rule"
                ));
            }
        }
    }
    gemini_schema(params, name, "parameters", errors);
}

fn gemini_schema(s: &Value, name: &str, at: &str, errors: &mut Vec<String>) {
    let Some(m) = s.as_object() else {
        errors.push(format!("`{name}` {at}: a schema must be an object"));
        return;
    };
    for k in m.keys() {
        if !GEMINI_KEYWORDS.contains(&k.as_str()) {
            errors.push(format!(
                "`{name}` {at}: keyword `{k}` is not in Gemini's schema"
            ));
        }
    }
    let ty = m.get("type").and_then(Value::as_str);
    match ty {
        Some(t) if GEMINI_TYPES.contains(&t) => {}
        Some(t) => errors.push(format!("`{name}` {at}: type `{t}` is not a Gemini type")),
        None if m.contains_key("anyOf") => {}
        None => errors.push(format!("`{name}` {at}: a schema needs a type (or anyOf)")),
    }
    if let Some(values) = m.get("enum") {
        if ty != Some("STRING")
            || !values
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string))
        {
            errors.push(format!(
                "`{name}` {at}: enums must be STRING with string values"
            ));
        }
    }
    if let Some(f) = m.get("format").and_then(Value::as_str) {
        if !(ty == Some("STRING") && f == "date-time") {
            errors.push(format!("`{name}` {at}: format `{f}` is not accepted"));
        }
    }
    if m.get("nullable").is_some_and(|n| n != true) {
        errors.push(format!("`{name}` {at}: nullable must be true when present"));
    }
    if ty == Some("OBJECT") {
        let props = m.get("properties").and_then(Value::as_object);
        if props.is_none_or(|p| p.is_empty()) {
            errors.push(format!(
                "`{name}` {at}: an OBJECT needs non-empty properties"
            ));
        }
        if let Some(Value::Array(req)) = m.get("required") {
            for r in req {
                if !r
                    .as_str()
                    .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)))
                {
                    errors.push(format!("`{name}` {at}: required `{r}` is not a property"));
                }
            }
        }
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        for (k, p) in props {
            gemini_schema(p, name, &format!("{at}.{k}"), errors);
        }
    }
    if let Some(items) = m.get("items") {
        gemini_schema(items, name, &format!("{at}[]"), errors);
    }
    if let Some(Value::Array(members)) = m.get("anyOf") {
        for (i, member) in members.iter().enumerate() {
            gemini_schema(member, name, &format!("{at}.anyOf[{i}]"), errors);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// MCP

fn mcp_tool(tool: &Value, errors: &mut Vec<String>) {
    keys_within(
        tool,
        &[
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "_meta",
        ],
        "mcp tool",
        errors,
    );
    let name = name_of(tool, "name", errors);
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    if !matches(name, 128, ok, ok) {
        errors.push(format!(
            "mcp tool name `{name}` breaks [A-Za-z0-9_.-]{{1,128}}"
        ));
    }
    description(tool, errors);
    let input = &tool["inputSchema"];
    if input["type"] != "object" {
        errors.push(format!(
            "`{name}`: inputSchema must be a type-object schema"
        ));
    }
    if input
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.is_empty())
        && input.get("additionalProperties") == Some(&Value::Bool(false))
    {
        errors.push(format!("`{name}`: a parameterless tool must be exactly {{\"type\":\"object\",\"additionalProperties\":false}}"));
    }
    if let Some(out) = tool.get("outputSchema") {
        if out["type"] != "object" {
            errors.push(format!(
                "`{name}`: outputSchema must be a type-object schema"
            ));
        }
    }
    if let Some(meta) = tool.get("_meta") {
        // MCP `_meta`: an object whose keys carry no prefix MCP reserves for itself.
        match meta.as_object() {
            Some(m) => {
                for key in m.keys() {
                    let prefix = key.rsplit_once('/').map_or("", |(p, _)| p);
                    let labels: Vec<&str> = prefix.split('.').collect();
                    if labels[..labels.len() - 1]
                        .iter()
                        .any(|l| *l == "mcp" || *l == "modelcontextprotocol")
                    {
                        errors.push(format!(
                            "`{name}`: `_meta` key `{key}` has a reserved prefix"
                        ));
                    }
                }
            }
            None => errors.push(format!("`{name}`: `_meta` must be an object")),
        }
    }
    if let Some(a) = tool.get("annotations") {
        keys_within(
            a,
            &[
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ],
            "annotations",
            errors,
        );
        if a.as_object()
            .is_some_and(|m| m.values().any(|v| !v.is_boolean()))
        {
            errors.push(format!("`{name}`: annotation hints must be booleans"));
        }
    }
}
