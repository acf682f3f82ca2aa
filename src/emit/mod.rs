//! Emitting: the compiled model → JSON, one module per target.
//!
//! `json_schema` is the canonical, complete form (JSON Schema draft 2020-12); provider targets
//! derive from the same model. What a provider cannot express is folded into descriptions
//! (`fold`) with a warning; what it cannot represent at all is an error for that target only.
//! docs/targets.md lists every transformation and the source of each rule.

pub(crate) mod anthropic;
mod choice;
pub(crate) mod fold;
pub(crate) mod gemini;
pub(crate) mod json_schema;
mod lower;
mod mcp;
pub mod measure;
pub(crate) mod openai;
mod response;

pub use anthropic::{Counts as AnthropicStrictCounts, LIMITS as ANTHROPIC_STRICT_LIMITS};
pub use choice::{tool_choice, tool_choice_field, ToolChoice};
pub use json_schema::{output, parameters, type_schema};
pub use response::{forced_tool, response_format, RESPONSE_TARGETS};

use serde_json::{json, Map, Value};

use crate::diagnostic::{Code, Diagnostic, Errors, Span};
use crate::model::{Module, Tool};

/// The output formats `tooldef compile` can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// JSON Schema draft 2020-12: `{"name", "description", "parameters"[, "output"]}` per tool.
    JsonSchema,
    /// OpenAI Chat Completions: `{"type": "function", "function": {name, description,
    /// parameters}}` per tool.
    OpenAi,
    /// OpenAI Chat Completions with `"strict": true` and the Structured Outputs schema subset.
    OpenAiStrict,
    /// The OpenAI Responses API's flat tool: `{"type": "function", name, description,
    /// parameters, strict}`.
    OpenAiResponses,
    /// Anthropic Messages: `{name, description, input_schema}` per tool.
    Anthropic,
    /// Anthropic Messages with `"strict": true` (strict tool use) and the JSON Schema subset of
    /// Anthropic's structured outputs.
    AnthropicStrict,
    /// Gemini: `[{"functionDeclarations": [{name, description, parametersJsonSchema,
    /// responseJsonSchema?}]}]` in the JSON Schema subset Gemini supports.
    Gemini,
    /// Gemini's older form: `[{"functionDeclarations": [{name, description, parameters}]}]` in
    /// Gemini's OpenAPI 3.0 schema subset (`Schema`).
    GeminiOpenApi,
    /// MCP: a `tools/list` result, `{"tools": [{name, title?, description, inputSchema,
    /// outputSchema?, annotations?}]}`.
    Mcp,
}

impl Target {
    /// Every target.
    pub const ALL: &'static [Target] = &[
        Target::JsonSchema,
        Target::OpenAi,
        Target::OpenAiStrict,
        Target::OpenAiResponses,
        Target::Anthropic,
        Target::AnthropicStrict,
        Target::Gemini,
        Target::GeminiOpenApi,
        Target::Mcp,
    ];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::JsonSchema => "json-schema",
            Target::OpenAi => "openai",
            Target::OpenAiStrict => "openai-strict",
            Target::OpenAiResponses => "openai-responses",
            Target::Anthropic => "anthropic",
            Target::AnthropicStrict => "anthropic-strict",
            Target::Gemini => "gemini",
            Target::GeminiOpenApi => "gemini-openapi",
            Target::Mcp => "mcp",
        }
    }

    /// The target called `name` on the command line.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.iter().copied().find(|t| t.as_str() == name)
    }
}

/// How to emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Report a warning for every constraint folded into a description (on by default; the
    /// CLI's `--quiet` turns it off). Errors are always reported.
    pub warnings: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { warnings: true }
    }
}

/// A successful emission: the JSON and the warnings about what was folded.
#[derive(Clone, Debug, PartialEq)]
pub struct Emitted {
    /// The output in the target's shape.
    pub json: Value,
    /// Warnings (never errors), in source order; empty when [`Options::warnings`] is off.
    pub warnings: Vec<Diagnostic>,
}

/// One tool in the given target's shape. Fails with every error when the target cannot
/// represent the tool (the other targets are unaffected).
pub fn tool(
    module: &Module,
    tool: &Tool,
    target: Target,
    options: &Options,
) -> Result<Emitted, Errors> {
    tool_shaped(
        module,
        tool,
        target,
        options,
        &crate::shape::Shapes::of(module),
    )
}

/// [`tool`] with the module's shapes measured once for all of its tools.
pub(crate) fn tool_shaped(
    module: &Module,
    tool: &Tool,
    target: Target,
    options: &Options,
    shapes: &crate::shape::Shapes,
) -> Result<Emitted, Errors> {
    let (json, diagnostics) = one(module, tool, target, shapes);
    finish(json, diagnostics, options)
}

/// Every tool of the module in the given target's shape, in source order: an array, except for
/// `gemini` and `gemini-openapi` (one `Tool` object holding every declaration, in an array) and `mcp` (a
/// `tools/list` result).
///
/// ```
/// use tooldef::emit::{self, Options, Target};
///
/// let source = "/// Book a table.\ntool book { guests: integer @exclusive_min(0) @multiple_of(2) }";
/// let module = tooldef::compile(source).unwrap().module;
///
/// let gemini = emit::tools(&module, Target::Gemini, &Options::default()).unwrap();
/// let declaration = &gemini.json[0]["functionDeclarations"][0];
/// let guests = &declaration["parametersJsonSchema"]["properties"]["guests"];
/// assert_eq!(guests["type"], "integer");
/// assert_eq!(guests["minimum"], 1); // `> 0` on an integer, exactly
/// assert_eq!(guests["description"], "Must be a multiple of 2."); // folded, with a warning
/// assert_eq!(gemini.warnings[0].code, tooldef::Code::FoldedConstraint);
///
/// let strict = emit::tools(&module, Target::OpenAiStrict, &Options::default()).unwrap();
/// assert_eq!(strict.json[0]["function"]["strict"], true);
/// assert!(strict.warnings.is_empty());
/// ```
pub fn tools(module: &Module, target: Target, options: &Options) -> Result<Emitted, Errors> {
    let mut all = Vec::new();
    let mut diagnostics = Vec::new();
    let shapes = crate::shape::Shapes::of(module);
    for t in &module.tools {
        let (json, d) = one(module, t, target, &shapes);
        all.push(json);
        diagnostics.extend(d);
    }
    // The limits of one request are counted once every tool compiles.
    if !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.extend(request_problems(target, module.tools.iter().zip(&all)));
    }
    finish(document(target, all), diagnostics, options)
}

/// The errors of a target's limits on the tools sent together in one request, each tool
/// already in the target's shape: Anthropic strict mode counts its strict tools, optional
/// parameters and union-typed parameters over the whole request ([`anthropic::Counts`]).
pub(crate) fn request_problems<'t>(
    target: Target,
    tools: impl IntoIterator<Item = (&'t Tool, &'t Value)>,
) -> Vec<Diagnostic> {
    match target {
        Target::AnthropicStrict => anthropic::request_problems(tools),
        _ => Vec::new(),
    }
}

/// The document of several tools, each already in the target's shape ([`tool`]): an array,
/// except for `gemini` and `gemini-openapi` (one `Tool` holding every declaration, in an array)
/// and `mcp` (a `tools/list` result).
pub fn document(target: Target, tools: Vec<Value>) -> Value {
    match target {
        Target::Gemini | Target::GeminiOpenApi => json!([{ "functionDeclarations": tools }]),
        Target::Mcp => json!({ "tools": tools }),
        _ => Value::Array(tools),
    }
}

/// The most schemas one tool may expand to once named types are inlined. Inlining a type used
/// twice at every level doubles the output per level, so a short file could otherwise ask for
/// billions of schemas.
pub const MAX_INLINED_SCHEMAS: u64 = 50_000;

/// The most bytes of text (names, descriptions, defaults, examples, enum values, patterns) one
/// tool's schema may carry once named types are inlined: a description is copied wherever its
/// type is inlined.
pub const MAX_INLINED_TEXT: u64 = 16 * 1024 * 1024;

/// Whether a schema of `shape` passes [`MAX_INLINED_SCHEMAS`] or [`MAX_INLINED_TEXT`]: the
/// error for it, named `what` (e.g. "tool `t`") and placed at `at`. Every emitter of a tool or a
/// type asks this before inlining, since the checker's limits hold for the tools of a module it
/// checked, not for a model built by other means nor for a type emitted on its own.
pub(crate) fn too_large(shape: &crate::shape::Shape, what: &str, at: Span) -> Option<Diagnostic> {
    let size = shape.size;
    if size > MAX_INLINED_SCHEMAS {
        return Some(
            Diagnostic::error(
                crate::Code::TargetLimit,
                at,
                format!(
                    "the schema of {what} expands to {} schemas once named types are inlined; the limit is {MAX_INLINED_SCHEMAS}",
                    if size == u64::MAX { "too many".to_string() } else { size.to_string() }
                ),
            )
            .with_label("schema too large")
            .with_help("a named type used several times at every level doubles the schema per level; flatten the parameters"),
        );
    }
    if shape.text > MAX_INLINED_TEXT {
        return Some(
            Diagnostic::error(
                crate::Code::TargetLimit,
                at,
                format!(
                    "the schema of {what} carries more than {MAX_INLINED_TEXT} bytes of text once named types are inlined"
                ),
            )
            .with_label("schema too large")
            .with_help("a named type's descriptions are copied at every use of the type; shorten them, or use the type in fewer places"),
        );
    }
    None
}

fn one(
    module: &Module,
    t: &Tool,
    target: Target,
    shapes: &crate::shape::Shapes,
) -> (Value, Vec<Diagnostic>) {
    let what = format!("tool `{}`", t.name);
    if let Some(d) = too_large(&shapes.tool(module, t), &what, t.span) {
        return (Value::Null, vec![d]);
    }
    let (mut json, mut diagnostics) = shaped(module, t, target);
    if let Some(fields) = t.provider.get(target.as_str()) {
        merge_provider_fields(t, target, fields, &mut json, &mut diagnostics);
    }
    (json, diagnostics)
}

/// `@provider(target: {...})`: the fields added to the target's tool object. A field the
/// target's shape already has would replace what tooldef wrote (the schema, the name), so it is
/// an error.
fn merge_provider_fields(
    t: &Tool,
    target: Target,
    fields: &Map<String, Value>,
    json: &mut Value,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Value::Object(out) = json else {
        return;
    };
    for (key, value) in fields {
        if out.contains_key(key) {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidAttributeArgument,
                    t.span,
                    format!(
                        "`@provider({}: ...)` of tool `{}` sets `{key}`, which the {} tool object already has",
                        target.as_str(),
                        t.name,
                        target.as_str()
                    ),
                )
                .with_label("would replace what tooldef writes")
                .with_help("`@provider` adds fields the tool object does not have (e.g. Anthropic's `cache_control`); say the others in the tool itself"),
            );
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
}

/// A tool in a target's shape, before `@provider`'s fields.
fn shaped(module: &Module, t: &Tool, target: Target) -> (Value, Vec<Diagnostic>) {
    match target {
        Target::JsonSchema => {
            let mut out = Map::new();
            out.insert("name".into(), Value::String(t.name.clone()));
            out.insert("description".into(), Value::String(t.description.clone()));
            out.insert("parameters".into(), json_schema::parameters(module, t));
            if let Some(output) = json_schema::output(module, t) {
                out.insert("output".into(), output);
            }
            (Value::Object(out), Vec::new())
        }
        Target::OpenAi => openai::chat(module, t),
        Target::OpenAiStrict => openai::strict(module, t),
        Target::OpenAiResponses => openai::responses(module, t),
        Target::Anthropic => anthropic::tool(module, t),
        Target::AnthropicStrict => anthropic::strict(module, t),
        Target::Gemini => gemini::declaration(module, t),
        Target::GeminiOpenApi => gemini::openapi_declaration(module, t),
        Target::Mcp => mcp::tool(module, t),
    }
}

fn finish(json: Value, diagnostics: Vec<Diagnostic>, options: &Options) -> Result<Emitted, Errors> {
    // A named type shared by several tools is lowered once per tool; report it once.
    let diagnostics = unique(diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        let kept = diagnostics
            .into_iter()
            .filter(|d| options.warnings || d.is_error())
            .collect();
        return Err(Errors::new(kept));
    }
    let mut warnings: Vec<Diagnostic> = if options.warnings {
        diagnostics
    } else {
        Vec::new()
    };
    warnings.sort_by_key(|d| (d.span.start, d.span.end));
    Ok(Emitted { json, warnings })
}

/// The diagnostics in order, each reported once (by span and message).
pub(crate) fn unique(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    diagnostics
        .into_iter()
        .filter(|d| seen.insert((d.span, d.message.clone())))
        .collect()
}

/// The canonical parameter schema without `$schema`, which provider APIs do not need (and
/// some reject).
fn plain_parameters(module: &Module, tool: &Tool) -> Value {
    strip_schema_uri(json_schema::parameters(module, tool))
}

fn strip_schema_uri(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.shift_remove("$schema");
    }
    v
}

/// Whether every character of `name` passes `allowed` and its length is within `1..=max`.
fn name_fits(name: &str, max: usize, allowed: impl Fn(char) -> bool) -> bool {
    !name.is_empty() && name.chars().count() <= max && name.chars().all(allowed)
}

/// The error for a tool name the target forbids.
fn bad_tool_name(tool: &Tool, target: Target, rule: &str) -> Diagnostic {
    Diagnostic::error(
        crate::Code::InvalidName,
        tool.span,
        format!(
            "tool name `{}` is not allowed by target {}",
            tool.name,
            target.as_str()
        ),
    )
    .with_label(format!("not a valid {} tool name", target.as_str()))
    .with_help(format!(
        "{} tool names {rule}; rename the tool",
        target.as_str()
    ))
}
