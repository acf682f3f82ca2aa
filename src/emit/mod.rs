//! Emitting: the compiled model → JSON, one module per target.
//!
//! `json_schema` is the canonical, complete form (JSON Schema draft 2020-12); provider targets
//! derive from the same model.

pub mod json_schema;

use serde_json::{Map, Value};

use crate::model::{Module, Tool};

/// The output formats `tooldef compile` can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// JSON Schema draft 2020-12: `{"name", "description", "parameters"[, "output"]}` per tool.
    JsonSchema,
}

impl Target {
    /// Every target.
    pub const ALL: &'static [Target] = &[Target::JsonSchema];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::JsonSchema => "json-schema",
        }
    }
}

/// One tool in the given target's shape.
pub fn tool(module: &Module, tool: &Tool, target: Target) -> Value {
    match target {
        Target::JsonSchema => {
            let mut out = Map::new();
            out.insert("name".into(), Value::String(tool.name.clone()));
            out.insert(
                "description".into(),
                Value::String(tool.description.clone()),
            );
            out.insert("parameters".into(), json_schema::parameters(module, tool));
            if let Some(output) = json_schema::output(module, tool) {
                out.insert("output".into(), output);
            }
            Value::Object(out)
        }
    }
}

/// Every tool of the module in the given target's shape, in source order.
pub fn tools(module: &Module, target: Target) -> Value {
    Value::Array(
        module
            .tools
            .iter()
            .map(|t| tool(module, t, target))
            .collect(),
    )
}
