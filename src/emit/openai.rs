//! OpenAI targets: Chat Completions (`openai`), its strict mode (`openai-strict`), and the
//! Responses API (`openai-responses`).
//!
//! - `openai`: `{"type": "function", "function": {name, description, parameters}}` with the
//!   canonical JSON Schema (without `$schema`).
//! - `openai-strict`: the same with `"strict": true` and the Structured Outputs subset: every
//!   object closed and every property required, optional ones made nullable; keywords strict
//!   mode lacks are folded into descriptions; its limits are checked ([`LIMITS`]).
//! - `openai-responses`: the flat `{"type": "function", name, description, parameters, strict}`;
//!   strict when the tool fits strict mode, otherwise `strict: false` with the full schema and a
//!   warning saying why.

use serde_json::{json, Map, Value};

use super::lower::{Flavor, Lowering};
use super::{bad_tool_name, name_fits, plain_parameters, Target};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Module, Tool};

/// OpenAI strict mode's documented limits (Structured Outputs, "Supported schemas").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Object properties in the whole schema.
    pub properties: usize,
    /// Levels of object nesting.
    pub nesting: usize,
    /// Enum values in the whole schema.
    pub enum_values: usize,
    /// A string enum with more than this many values...
    pub large_enum: usize,
    /// ...may hold at most this many characters in total.
    pub large_enum_chars: usize,
    /// Characters of all property names, definition names, enum values and const values.
    pub total_chars: usize,
}

/// The limits in force.
pub(crate) const LIMITS: Limits = Limits {
    properties: 5000,
    nesting: 10,
    enum_values: 1000,
    large_enum: 250,
    large_enum_chars: 15_000,
    total_chars: 120_000,
};

/// Whether OpenAI accepts `name` as a function name: `^[a-zA-Z0-9_-]{1,64}$`.
pub(crate) fn valid_name(name: &str) -> bool {
    name_fits(name, 64, |c| {
        c.is_ascii_alphanumeric() || c == '_' || c == '-'
    })
}

const NAME_RULE: &str = "are 1 to 64 characters from A-Z, a-z, 0-9, `_` and `-` (no dots)";

fn name_check(tool: &Tool, target: Target) -> Vec<Diagnostic> {
    if valid_name(&tool.name) {
        Vec::new()
    } else {
        vec![bad_tool_name(tool, target, NAME_RULE)]
    }
}

/// The `openai` shape of one tool.
pub(crate) fn chat(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let json = json!({
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": plain_parameters(module, tool),
        }
    });
    (json, name_check(tool, Target::OpenAi))
}

/// The `openai-strict` shape of one tool.
pub(crate) fn strict(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let (parameters, mut diagnostics) = strict_parameters(module, tool, Target::OpenAiStrict);
    diagnostics.extend(name_check(tool, Target::OpenAiStrict));
    let json = json!({
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": parameters,
            "strict": true,
        }
    });
    (json, diagnostics)
}

/// The `openai-responses` shape of one tool.
pub(crate) fn responses(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let (strict_schema, strict_diagnostics) =
        strict_parameters(module, tool, Target::OpenAiResponses);
    let mut diagnostics = name_check(tool, Target::OpenAiResponses);
    let first_error = strict_diagnostics.iter().find(|d| d.is_error()).cloned();
    let (parameters, strict) = match first_error {
        None => {
            diagnostics.extend(strict_diagnostics);
            (strict_schema, true)
        }
        Some(e) => {
            diagnostics.push(
                Diagnostic::warning(
                    Code::NotRepresentable,
                    e.span,
                    format!(
                        "tool `{}` cannot use strict mode ({}); it is emitted with `\"strict\": false` and its full schema",
                        tool.name, e.message
                    ),
                )
                .with_label("keeps this tool out of strict mode")
                .with_help("the model may then deviate from the schema; tooldef's validator still checks every call"),
            );
            (plain_parameters(module, tool), false)
        }
    };
    let json = json!({
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": parameters,
        "strict": strict,
    });
    (json, diagnostics)
}

/// The strict-mode schema of a tool's parameters, with the diagnostics of lowering it and of
/// its limits.
pub(crate) fn strict_parameters(
    module: &Module,
    tool: &Tool,
    target: Target,
) -> (Value, Vec<Diagnostic>) {
    let mut lowering = Lowering::new(module, Flavor::Strict, target);
    let schema = lowering.parameters(tool).unwrap_or_else(|| json!({}));
    let mut diagnostics = lowering.take_diagnostics();
    for problem in limit_problems(&schema, &LIMITS) {
        diagnostics.push(
            Diagnostic::error(
                Code::TargetLimit,
                tool.span,
                format!("the strict-mode schema of tool `{}` {problem}", tool.name),
            )
            .with_label(format!("exceeds a limit of {}", target.as_str()))
            .with_help("split the tool, or flatten and shorten its parameters"),
        );
    }
    (schema, diagnostics)
}

/// Every limit a strict-mode schema exceeds, in words.
pub(crate) fn limit_problems(schema: &Value, limits: &Limits) -> Vec<String> {
    let mut stats = Stats::default();
    count(schema, limits, &mut stats);
    let defs = schema.get("$defs").and_then(Value::as_object);
    let depth = defs
        .into_iter()
        .flat_map(|d| d.values())
        .map(depth)
        .fold(depth(schema), usize::max);
    let mut out = Vec::new();
    if stats.properties > limits.properties {
        out.push(format!(
            "has {} object properties; the limit is {}",
            stats.properties, limits.properties
        ));
    }
    if depth > limits.nesting {
        out.push(format!(
            "nests objects {depth} levels deep; the limit is {}",
            limits.nesting
        ));
    }
    if stats.enum_values > limits.enum_values {
        out.push(format!(
            "has {} enum values; the limit is {}",
            stats.enum_values, limits.enum_values
        ));
    }
    if let Some(chars) = stats.large_enum_chars {
        out.push(format!(
            "has a string enum of more than {} values with {chars} characters; the limit is {}",
            limits.large_enum, limits.large_enum_chars
        ));
    }
    if stats.chars > limits.total_chars {
        out.push(format!(
            "has {} characters of property names, definition names and enum values; the limit is {}",
            stats.chars, limits.total_chars
        ));
    }
    out
}

#[derive(Default)]
struct Stats {
    properties: usize,
    enum_values: usize,
    large_enum_chars: Option<usize>,
    chars: usize,
}

/// The subschemas of a schema (`properties`, `items`, `anyOf`, `$defs`), each once.
fn children(m: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    let props = m
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values());
    let defs = m
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|p| p.values());
    let any_of = m
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    props.chain(defs).chain(any_of).chain(m.get("items"))
}

/// Counts properties, enum values and characters over every schema once (definitions once,
/// however often they are referenced).
fn count(v: &Value, limits: &Limits, stats: &mut Stats) {
    let Value::Object(m) = v else { return };
    if let Some(Value::Object(props)) = m.get("properties") {
        stats.properties += props.len();
        stats.chars += props.keys().map(|k| k.chars().count()).sum::<usize>();
    }
    if let Some(Value::Object(defs)) = m.get("$defs") {
        stats.chars += defs.keys().map(|k| k.chars().count()).sum::<usize>();
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        stats.enum_values += values.len();
        let chars: usize = values
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.chars().count())
            .sum();
        stats.chars += chars;
        let strings = values.iter().filter(|v| v.is_string()).count();
        if strings > limits.large_enum && chars > limits.large_enum_chars {
            stats.large_enum_chars = Some(stats.large_enum_chars.unwrap_or(0).max(chars));
        }
    }
    for child in children(m) {
        count(child, limits, stats);
    }
}

/// Levels of object nesting under one schema root, not following `$ref`. This is the rule of
/// `shape.rs` for the emitted form: a recursive type's definition is a schema root of its own
/// and a reference to it is one schema, so every definition is measured once and the whole
/// measure is linear in the schema's size (following references along every path took time
/// exponential in the number of definitions that refer twice to the one before).
fn depth(v: &Value) -> usize {
    let Value::Object(m) = v else { return 0 };
    let own = usize::from(m.get("type").is_some_and(|t| {
        t == "object" || t.as_array().is_some_and(|a| a.contains(&json!("object")))
    }));
    let mut deepest = 0;
    for (key, child) in m {
        match (key.as_str(), child) {
            ("properties", Value::Object(p)) => {
                deepest = p.values().map(depth).fold(deepest, usize::max);
            }
            ("anyOf", Value::Array(a)) => deepest = a.iter().map(depth).fold(deepest, usize::max),
            ("items", c) => deepest = deepest.max(depth(c)),
            _ => {}
        }
    }
    own + deepest
}
