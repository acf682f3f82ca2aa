//! The Anthropic target: `{name, description, input_schema}` per tool (Messages API, client
//! tools).
//!
//! `input_schema` is the canonical JSON Schema without `$schema`; Anthropic accepts the
//! keywords tooldef emits. Names are checked: tool names `^[a-zA-Z0-9_-]{1,128}$`, parameter
//! names `^[a-zA-Z0-9_.-]{1,64}$`.

use serde_json::{json, Value};

use super::{bad_tool_name, name_fits, plain_parameters, Target};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Module, Tool};

/// Whether Anthropic accepts `name` as a tool name: `^[a-zA-Z0-9_-]{1,128}$`.
pub(super) fn valid_name(name: &str) -> bool {
    name_fits(name, 128, |c| {
        c.is_ascii_alphanumeric() || c == '_' || c == '-'
    })
}

/// Whether Anthropic accepts `key` as a key of `input_schema.properties`:
/// `^[a-zA-Z0-9_.-]{1,64}$`.
pub(super) fn valid_property(key: &str) -> bool {
    name_fits(key, 64, |c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
    })
}

/// The `anthropic` shape of one tool.
pub(super) fn tool(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    if !valid_name(&tool.name) {
        diagnostics.push(bad_tool_name(
            tool,
            Target::Anthropic,
            "are 1 to 128 characters from A-Z, a-z, 0-9, `_` and `-` (no dots)",
        ));
    }
    for f in &tool.params.fields {
        if !valid_property(&f.name) {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidName,
                    f.span,
                    format!("`{}` is not a valid parameter name for target anthropic", f.name),
                )
                .with_label("not allowed by Anthropic")
                .with_help("Anthropic parameter names are 1 to 64 characters from A-Z, a-z, 0-9, `_`, `.` and `-`; rename the field"),
            );
        }
    }
    let json = json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": plain_parameters(module, tool),
    });
    (json, diagnostics)
}
