//! The Gemini targets: `[{"functionDeclarations": [...]}]`, one `Tool` holding every
//! declaration, in one of the two schema forms a `FunctionDeclaration` takes.
//!
//! `gemini` writes `parametersJsonSchema` (and `responseJsonSchema` for a tool's output) in the
//! JSON Schema subset Gemini documents: `$defs`/`$ref`, `anyOf`, `prefixItems`,
//! `additionalProperties`, `minimum`/`maximum`, `minItems`/`maxItems`, `enum` of strings and
//! numbers, `format` (date-time, date, time). What it ignores (`const`, string lengths,
//! `pattern`, exclusive bounds, `multipleOf`, `uniqueItems`, `default`, `examples`) is folded
//! into the description; `never`, literal arrays and objects, and a recursion not broken by an
//! optional field are errors.
//!
//! `gemini-openapi` writes `parameters` in Gemini's OpenAPI 3.0 subset (`Schema`): types are
//! written as Gemini's `Type` names (`STRING`, `OBJECT`, ...); `T | null` is `nullable: true`;
//! named types are inlined (no `$ref`/`$defs`); there is no `additionalProperties`, `$schema`,
//! `const`, `exclusiveMinimum`/`exclusiveMaximum` or type array; enums hold strings only. What
//! cannot be said with these keywords is folded into the description; maps, typed extra keys,
//! open objects without fields and `any` are lowered (see `lower.rs`); recursion and closed
//! objects without fields are errors for this form.

use serde_json::{Map, Value};

use super::lower::{Flavor, Lowering};
use super::{bad_tool_name, Target};
use crate::diagnostic::Diagnostic;
use crate::model::{Module, Tool};

/// Whether Gemini accepts `name` as a parameter name: a letter or `_`, then letters, digits and
/// `_`, at most 64 characters (google-genai `FunctionDeclaration.parameters`).
pub(super) fn valid_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && name.len() <= 64 && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether Gemini accepts `name` as a function name: it starts with a letter or `_`, then
/// holds A-Z, a-z, 0-9, `_`, `.`, `:` and `-`, at most 128 characters.
pub(super) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

/// The `FunctionDeclaration` of one tool in the JSON Schema form: `parametersJsonSchema`, and
/// `responseJsonSchema` for a tool with an output.
pub(super) fn declaration(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let mut lowering = Lowering::new(module, Flavor::GeminiJson, Target::Gemini);
    let parameters = lowering.parameters(tool);
    let mut diagnostics = lowering.take_diagnostics();
    // The output is a schema document of its own, with its own `$defs`.
    let response = tool.output.as_ref().map(|output| {
        let mut lowering = Lowering::new(module, Flavor::GeminiJson, Target::Gemini);
        let schema = lowering.root_schema(output, tool.span);
        diagnostics.extend(lowering.take_diagnostics());
        schema
    });
    check_name(tool, Target::Gemini, &mut diagnostics);
    let mut out = head(tool);
    if let Some(p) = parameters {
        out.insert("parametersJsonSchema".into(), p);
    }
    if let Some(r) = response {
        out.insert("responseJsonSchema".into(), r);
    }
    (Value::Object(out), diagnostics)
}

/// The `FunctionDeclaration` of one tool in the OpenAPI form: `parameters` as a `Schema`.
pub(crate) fn openapi_declaration(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let mut lowering = Lowering::new(module, Flavor::GeminiOpenApi, Target::GeminiOpenApi);
    let parameters = lowering.parameters(tool);
    let mut diagnostics = lowering.take_diagnostics();
    check_name(tool, Target::GeminiOpenApi, &mut diagnostics);
    let mut out = head(tool);
    if let Some(p) = parameters {
        out.insert("parameters".into(), p);
    }
    (Value::Object(out), diagnostics)
}

/// The name and description every declaration starts with.
fn head(tool: &Tool) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("name".into(), Value::String(tool.name.clone()));
    out.insert(
        "description".into(),
        Value::String(tool.description.clone()),
    );
    out
}

/// An `invalid-name` error when Gemini forbids the function name (both forms share the rule).
fn check_name(tool: &Tool, target: Target, diagnostics: &mut Vec<Diagnostic>) {
    if !valid_name(&tool.name) {
        diagnostics.push(bad_tool_name(
            tool,
            target,
            "start with a letter or `_` and are at most 128 characters from A-Z, a-z, 0-9, `_`, `.`, `:` and `-`",
        ));
    }
}
