//! Tool choice: which tools a model may (or must) call, in each provider's form.

use serde_json::{json, Value};

use super::Target;

/// Which tools the model may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolChoice<'a> {
    /// The model decides whether to call a tool, and which.
    Auto,
    /// The model calls no tool.
    None,
    /// The model must call a tool, any of them.
    Required,
    /// The model must call this tool (how Anthropic gives structured output through a tool).
    Tool(&'a str),
}

impl<'a> ToolChoice<'a> {
    /// `auto`, `none` and `required` (Anthropic's `any` too) as themselves; any other word is
    /// the name of the one tool to call.
    pub fn parse(word: &'a str) -> ToolChoice<'a> {
        match word {
            "auto" => ToolChoice::Auto,
            "none" => ToolChoice::None,
            "required" | "any" => ToolChoice::Required,
            name => ToolChoice::Tool(name),
        }
    }
}

/// The tool choice in `target`'s form, as the request field it goes in: OpenAI Chat
/// Completions' `tool_choice` (`"auto"`, `"none"`, `"required"`, or `{"type": "function",
/// "function": {"name"}}`), the Responses API's (`{"type": "function", "name"}` for one tool),
/// Anthropic's `tool_choice` (`{"type": "auto" | "none" | "any"}`, `{"type": "tool", "name"}`),
/// or Gemini's `toolConfig` (`{"functionCallingConfig": {"mode": "AUTO" | "NONE" | "ANY",
/// "allowedFunctionNames"?}}`). `None` for a target that has no tool choice (`json-schema`,
/// `mcp`: the client chooses). The tool's name is not checked here ([`crate::Toolset`] does).
pub fn tool_choice(target: Target, choice: ToolChoice<'_>) -> Option<Value> {
    Some(match target {
        Target::OpenAi | Target::OpenAiStrict => match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        },
        Target::OpenAiResponses => match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
        },
        Target::Anthropic | Target::AnthropicStrict => match choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
        },
        Target::Gemini | Target::GeminiOpenApi => {
            let config = match choice {
                ToolChoice::Auto => json!({"mode": "AUTO"}),
                ToolChoice::None => json!({"mode": "NONE"}),
                ToolChoice::Required => json!({"mode": "ANY"}),
                ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
            };
            json!({ "functionCallingConfig": config })
        }
        Target::JsonSchema | Target::Mcp => return None,
    })
}

/// The request field that [`tool_choice`] fills for `target`: `tool_choice`, or Gemini's
/// `toolConfig`.
pub fn tool_choice_field(target: Target) -> &'static str {
    match target {
        Target::Gemini | Target::GeminiOpenApi => "toolConfig",
        _ => "tool_choice",
    }
}
