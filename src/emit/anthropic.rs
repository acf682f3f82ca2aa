//! The Anthropic targets: `{name, description, input_schema}` per tool (Messages API, client
//! tools).
//!
//! - `anthropic`: `input_schema` is the canonical JSON Schema without `$schema`; Anthropic
//!   accepts the keywords tooldef emits.
//! - `anthropic-strict`: the same with `"strict": true` (strict tool use) and the JSON Schema
//!   subset of Anthropic's structured outputs ("JSON Schema limitations"): every object closed,
//!   optional fields kept optional, what the subset lacks folded into descriptions, recursion
//!   refused; the documented per-request limits ([`LIMITS`]) are checked for each tool and,
//!   by [`request_problems`], across the tools sent together.
//!
//! Names are checked: tool names `^[a-zA-Z0-9_-]{1,128}$`, parameter names
//! `^[a-zA-Z0-9_.-]{1,64}$`.

use serde_json::{json, Map, Value};

use super::lower::{Flavor, Lowering};
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

/// The errors for a tool name and parameter names Anthropic forbids.
fn name_checks(tool: &Tool, target: Target) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    if !valid_name(&tool.name) {
        diagnostics.push(bad_tool_name(
            tool,
            target,
            "are 1 to 128 characters from A-Z, a-z, 0-9, `_` and `-` (no dots)",
        ));
    }
    for f in &tool.params.fields {
        if !valid_property(&f.name) {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidName,
                    f.span,
                    format!("`{}` is not a valid parameter name for target {}", f.name, target.as_str()),
                )
                .with_label("not allowed by Anthropic")
                .with_help("Anthropic parameter names are 1 to 64 characters from A-Z, a-z, 0-9, `_`, `.` and `-`; rename the field"),
            );
        }
    }
    diagnostics
}

/// The `anthropic` shape of one tool.
pub(super) fn tool(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let json = json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": plain_parameters(module, tool),
    });
    (json, name_checks(tool, Target::Anthropic))
}

/// The `anthropic-strict` shape of one tool.
pub(crate) fn strict(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let target = Target::AnthropicStrict;
    let mut diagnostics = name_checks(tool, target);
    let mut lowering = Lowering::new(module, Flavor::AnthropicStrict, target);
    let schema = lowering.parameters(tool).unwrap_or_else(|| json!({}));
    diagnostics.extend(lowering.take_diagnostics());
    for problem in Counts::of_tool(&schema).problems() {
        diagnostics.push(
            Diagnostic::error(
                Code::TargetLimit,
                tool.span,
                format!("the strict-mode schema of tool `{}` has {problem}", tool.name),
            )
            .with_label(format!("exceeds a limit of {}", target.as_str()))
            .with_help("make optional fields required (with the default said in the description), or use fewer unions; or send the tool without strict mode (`anthropic`)"),
        );
    }
    let json = json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": schema,
        "strict": true,
    });
    (json, diagnostics)
}

/// Anthropic's documented limits on the strict schemas of one request (structured outputs,
/// "Schema complexity limits", "Explicit limits"): 20 strict tools, 24 optional parameters and
/// 16 parameters with union types. The compiled grammar has further limits that are not
/// documented ("Schema is too complex for compilation", "The compiled grammar is too large");
/// they are not checked.
pub const LIMITS: Counts = Counts {
    strict_tools: 20,
    optional: 24,
    unions: 16,
};

/// What counts toward Anthropic's per-request [`LIMITS`] in the strict schemas of one or more
/// tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Tools with `strict: true`.
    pub strict_tools: usize,
    /// Optional parameters: properties, at any depth, that their object does not require.
    pub optional: usize,
    /// Parameters with union types: properties, at any depth, whose schema uses `anyOf` or a
    /// type array.
    pub unions: usize,
}

impl Counts {
    /// The counts of one strict tool, from its `input_schema`.
    fn of_tool(input_schema: &Value) -> Counts {
        let mut counts = Counts {
            strict_tools: 1,
            ..Counts::default()
        };
        counts.walk(input_schema);
        counts
    }

    /// The counts of the tools of an `anthropic-strict` document (the array it emits).
    pub fn of_document(tools: &Value) -> Counts {
        let mut all = Counts::default();
        for t in tools.as_array().into_iter().flatten() {
            all.add(Counts::of_tool(&t["input_schema"]));
        }
        all
    }

    fn add(&mut self, other: Counts) {
        self.strict_tools += other.strict_tools;
        self.optional += other.optional;
        self.unions += other.unions;
    }

    /// Counts the properties of `v` and of every schema under it (`properties`, `items`,
    /// `anyOf`). The strict schema has no `$defs`: recursion is refused.
    fn walk(&mut self, v: &Value) {
        let Value::Object(m) = v else { return };
        if let Some(Value::Object(props)) = m.get("properties") {
            let required = required_of(m);
            for (key, prop) in props {
                if !required.contains(&key.as_str()) {
                    self.optional += 1;
                }
                if is_union(prop) {
                    self.unions += 1;
                }
                self.walk(prop);
            }
        }
        if let Some(items) = m.get("items") {
            self.walk(items);
        }
        for member in m
            .get("anyOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.walk(member);
        }
    }

    /// Every limit these counts exceed: what is counted, the count, the limit.
    fn exceeded(&self) -> Vec<(&'static str, usize, usize)> {
        [
            ("strict tools", self.strict_tools, LIMITS.strict_tools),
            ("optional parameters", self.optional, LIMITS.optional),
            ("parameters with union types", self.unions, LIMITS.unions),
        ]
        .into_iter()
        .filter(|(_, count, limit)| count > limit)
        .collect()
    }

    /// Every limit of [`LIMITS`] these counts exceed, in words ("25 optional parameters; the
    /// limit per request is 24").
    pub fn problems(&self) -> Vec<String> {
        self.exceeded()
            .into_iter()
            .map(|(what, count, limit)| format!("{count} {what}; the limit per request is {limit}"))
            .collect()
    }
}

fn required_of(m: &Map<String, Value>) -> Vec<&str> {
    m.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether a property's schema is a union: an `anyOf` (also one that only carries a
/// description), or a type array.
fn is_union(v: &Value) -> bool {
    v.get("anyOf").is_some() || v.get("type").is_some_and(Value::is_array)
}

/// The errors of the per-request limits for tools sent together in one request, each already in
/// the `anthropic-strict` shape: for each limit their total passes, one error at the tool with
/// which the running count first passes it. (A tool that passes a limit on its own has an error
/// of its own already, and then this is not asked.)
pub(crate) fn request_problems<'t>(
    tools: impl IntoIterator<Item = (&'t Tool, &'t Value)>,
) -> Vec<Diagnostic> {
    let counted: Vec<(&Tool, Counts)> = tools
        .into_iter()
        .map(|(tool, json)| (tool, Counts::of_tool(&json["input_schema"])))
        .collect();
    let mut total = Counts::default();
    for (_, c) in &counted {
        total.add(*c);
    }
    let mut out = Vec::new();
    for (what, count, limit) in total.exceeded() {
        let mut running = Counts::default();
        let passing = counted.iter().find(|(_, c)| {
            running.add(*c);
            running.exceeded().iter().any(|(w, ..)| *w == what)
        });
        let Some((tool, _)) = passing else { continue };
        out.push(
            Diagnostic::error(
                Code::TargetLimit,
                tool.span,
                format!(
                    "the {} tools sent together for target anthropic-strict have {count} {what}; the limit per request is {limit}, passed with tool `{}`",
                    counted.len(),
                    tool.name
                ),
            )
            .with_label("passes a per-request limit of anthropic-strict")
            .with_help("Anthropic counts these over all the strict tools of a request: send fewer tools with strict mode, split them across requests, or reduce optional and union-typed fields"),
        );
    }
    out
}
