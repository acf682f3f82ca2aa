//! The Gemini target: `[{"functionDeclarations": [{name, description, parameters}]}]`, in
//! Gemini's OpenAPI 3.0 schema subset.
//!
//! Types are written as Gemini's `Type` names (`STRING`, `OBJECT`, ...); `T | null` is
//! `nullable: true`; named types are inlined (no `$ref`/`$defs`); there is no
//! `additionalProperties`, `$schema`, `const`, `exclusiveMinimum`/`exclusiveMaximum` or type
//! array; enums hold strings only. What cannot be said with these keywords is folded into the
//! description; recursion, maps, `any` and objects without fields are errors for this target.

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

/// The `FunctionDeclaration` of one tool.
pub(super) fn declaration(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let mut lowering = Lowering::new(module, Flavor::Gemini, Target::Gemini);
    let parameters = lowering.parameters(tool);
    let mut diagnostics = lowering.take_diagnostics();
    if !valid_name(&tool.name) {
        diagnostics.push(bad_tool_name(
            tool,
            Target::Gemini,
            "start with a letter or `_` and are at most 128 characters from A-Z, a-z, 0-9, `_`, `.`, `:` and `-`",
        ));
    }
    let mut out = Map::new();
    out.insert("name".into(), Value::String(tool.name.clone()));
    out.insert(
        "description".into(),
        Value::String(tool.description.clone()),
    );
    if let Some(p) = parameters {
        out.insert("parameters".into(), p);
    }
    (Value::Object(out), diagnostics)
}
