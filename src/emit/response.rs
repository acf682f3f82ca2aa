//! Structured outputs: a type as the block a provider takes to make the model's answer itself
//! follow a schema (rasti-ai's structured-output mode).
//!
//! | target | the block is the value of | shape |
//! |---|---|---|
//! | `openai` | Chat Completions `response_format` | `{type: "json_schema", json_schema: {name, description, schema, strict: true}}` |
//! | `openai-responses` | Responses `text` | `{format: {type: "json_schema", name, description, schema, strict: true}}` |
//! | `anthropic` | Messages `output_format` | `{type: "json_schema", schema}` |
//! | `gemini` | `generationConfig` (merged in) | `{responseMimeType: "application/json", responseJsonSchema}` |
//! | `gemini-openapi` | `generationConfig` (merged in) | `{responseMimeType: "application/json", responseSchema}` (the OpenAPI `Schema`) |
//!
//! OpenAI's schema is lowered by the strict-mode rules of the tool targets (every key required,
//! `null` for absent, constraints it lacks folded into descriptions, its limits checked) and
//! must have an object at its root. Anthropic and Gemini take the canonical JSON Schema
//! without `$schema` (Gemini's `responseJsonSchema` is JSON Schema, not its OpenAPI subset);
//! `gemini-openapi` lowers the type to Gemini's OpenAPI subset as its tool declarations do, and
//! an answer to it is read back the same way ([`crate::Toolset::answer_validator_for`]).
//!
//! An answer can also be given through a tool the model is forced to call ([`forced_tool`]),
//! as Anthropic recommends for structured output on models without `output_format`.

use serde_json::{json, Value};

use super::choice::{tool_choice, tool_choice_field, ToolChoice};
use super::lower::{Flavor, Lowering};
use super::{document, finish, openai, strip_schema_uri, Emitted, Options, Target};
use crate::diagnostic::{Code, Diagnostic, Errors, Span};
use crate::model::{Module, Ty};

/// The targets that take a structured output.
pub const RESPONSE_TARGETS: &[Target] = &[
    Target::OpenAi,
    Target::OpenAiResponses,
    Target::Anthropic,
    Target::Gemini,
    Target::GeminiOpenApi,
];

/// The structured-output block of `target` for `ty`, named `name` (OpenAI requires a name:
/// 1 to 64 characters from A-Z, a-z, 0-9, `_` and `-`). `at` is where diagnostics point.
pub fn response_format(
    module: &Module,
    ty: &Ty,
    name: &str,
    description: Option<&str>,
    at: Span,
    target: Target,
    options: &Options,
) -> Result<Emitted, Errors> {
    let shape = crate::shape::Shapes::of(module).root(module, ty);
    if let Some(d) = super::too_large(&shape, &format!("`{name}`"), at) {
        return Err(Errors::new(vec![d]));
    }
    let mut diagnostics = Vec::new();
    let json = match target {
        Target::OpenAi | Target::OpenAiResponses => {
            let mut lowering = Lowering::new(module, Flavor::Strict, target);
            let schema = lowering.root_schema(ty, at);
            diagnostics = lowering.take_diagnostics();
            if schema.get("type") != Some(&json!("object")) {
                diagnostics.push(not_an_object(target, name, at));
            }
            if !super::openai::valid_name(name) {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidName,
                        at,
                        format!(
                            "`{name}` is not a valid structured-output name for {}",
                            target.as_str()
                        ),
                    )
                    .with_label("not allowed by OpenAI")
                    .with_help("names are 1 to 64 characters from A-Z, a-z, 0-9, `_` and `-`"),
                );
            }
            for problem in openai::limit_problems(&schema, &openai::LIMITS) {
                diagnostics.push(
                    Diagnostic::error(
                        Code::TargetLimit,
                        at,
                        format!("the strict-mode schema of `{name}` {problem}"),
                    )
                    .with_label(format!("exceeds a limit of {}", target.as_str())),
                );
            }
            let mut block = serde_json::Map::new();
            block.insert("name".into(), json!(name));
            if let Some(d) = description {
                block.insert("description".into(), json!(d));
            }
            block.insert("schema".into(), schema);
            block.insert("strict".into(), json!(true));
            if target == Target::OpenAi {
                json!({ "type": "json_schema", "json_schema": block })
            } else {
                let mut format = serde_json::Map::new();
                format.insert("type".into(), json!("json_schema"));
                format.extend(block);
                json!({ "format": format })
            }
        }
        Target::Anthropic => {
            let schema =
                strip_schema_uri(super::json_schema::type_schema_within_limits(module, ty));
            json!({ "type": "json_schema", "schema": schema })
        }
        Target::Gemini => {
            let schema =
                strip_schema_uri(super::json_schema::type_schema_within_limits(module, ty));
            json!({ "responseMimeType": "application/json", "responseJsonSchema": schema })
        }
        Target::GeminiOpenApi => {
            let mut lowering = Lowering::new(module, Flavor::GeminiOpenApi, target);
            let schema = lowering.root_schema(ty, at);
            diagnostics = lowering.take_diagnostics();
            // The answer is read back as a tool's arguments are (maps and `any` lowered), which
            // needs an object at the root.
            if schema.get("type") != Some(&json!("OBJECT")) {
                diagnostics.push(not_an_object(target, name, at));
            }
            json!({ "responseMimeType": "application/json", "responseSchema": schema })
        }
        other => {
            diagnostics.push(
                Diagnostic::error(
                    Code::TargetLimit,
                    at,
                    format!("{} has no structured-output block", other.as_str()),
                )
                .with_label("no structured outputs")
                .with_help("use openai, openai-responses, anthropic, gemini or gemini-openapi"),
            );
            Value::Null
        }
    };
    finish(json, diagnostics, options)
}

/// The error for a structured output whose root is not an object, where `target` needs one.
fn not_an_object(target: Target, name: &str, at: Span) -> Diagnostic {
    Diagnostic::error(
        Code::TargetLimit,
        at,
        format!(
            "{} structured outputs need an object at the root; `{name}` is not one",
            target.as_str()
        ),
    )
    .with_label("not an object")
    .with_help("wrap the value in an object type, e.g. `type Answer { value: T }`")
}

/// The request fields that make a model answer by calling one tool: `tools` holding only
/// `tool` (already in `target`'s shape, named `name`) and the tool choice that forces it
/// (`tool_choice`, or Gemini's `toolConfig`). `None` for a target without tool choice
/// (`json-schema`, `mcp`).
pub fn forced_tool(target: Target, name: &str, tool: Value) -> Option<Value> {
    let choice = tool_choice(target, ToolChoice::Tool(name))?;
    let mut fields = serde_json::Map::new();
    fields.insert("tools".into(), document(target, vec![tool]));
    fields.insert(tool_choice_field(target).into(), choice);
    Some(Value::Object(fields))
}
