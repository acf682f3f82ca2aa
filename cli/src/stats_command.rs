//! `tooldef stats FILE... [--target T[,T...]] [--budget N] [--format json]`: what each tool
//! weighs in each target, in bytes and tokens of the compact JSON the provider receives, with
//! the share of description text and the growth over the plain `json-schema` form.
//!
//! With `anthropic-strict` among the targets, it also counts what Anthropic limits per request
//! over the strict tools sent together (strict tools, optional parameters, parameters with
//! union types), and exits with 1 when the toolset passes a limit.
//!
//! Tokens are OpenAI's `o200k_base` (tiktoken-rs, which bundles the encoding): exact for the
//! OpenAI targets, and the same count standing in as an estimate for the others, whose
//! tokenizers are not public.

use std::path::PathBuf;

use serde_json::{json, Value};
use tooldef::emit::measure::{payload, Size};
use tooldef::emit::{AnthropicStrictCounts, Options, Target, ANTHROPIC_STRICT_LIMITS};
use tooldef::model::{Module, Tool};

use crate::build_command::{read_sources, report, tool_files};
use crate::read::InputLimits;
use crate::{to_stderr, to_stdout, Format, TargetArg, EXIT_ERRORS};

/// The arguments of `tooldef stats`.
#[derive(clap::Args)]
pub(crate) struct StatsArgs {
    /// Files and folders (searched for `*.tool`, recursively).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The targets, comma-separated (default: openai, anthropic, gemini, mcp).
    #[arg(long, value_enum, value_delimiter = ',')]
    target: Vec<TargetArg>,
    /// Exit with 1, naming each one, when a tool takes more than this many tokens in a target.
    #[arg(long)]
    budget: Option<usize>,
    /// A table for people, or one JSON array of rows.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// The targets measured when `--target` is not given: one per provider family, the form each
/// is most often sent in.
const DEFAULT_TARGETS: &[Target] = &[
    Target::OpenAi,
    Target::Anthropic,
    Target::Gemini,
    Target::Mcp,
];

/// How the tokens of the non-OpenAI targets are estimated.
const ESTIMATE_METHOD: &str = "o200k_base count as a proxy";

/// The tokens of `text` in OpenAI's `o200k_base` encoding.
pub(crate) fn o200k_tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// Whether `target`'s provider counts with `o200k_base`, so that the count is exact.
fn exact(target: Target) -> bool {
    matches!(
        target,
        Target::OpenAi | Target::OpenAiStrict | Target::OpenAiResponses
    )
}

/// One tool in one target.
struct Row {
    tool: String,
    target: Target,
    size: Size,
    /// The tokens of the same tool in `json-schema`.
    baseline: usize,
}

impl Row {
    fn growth(&self) -> Option<f64> {
        (self.baseline > 0).then(|| ratio(self.size.tokens, self.baseline))
    }

    fn description_share(&self) -> Option<f64> {
        (self.size.tokens > 0).then(|| ratio(self.size.description_tokens, self.size.tokens))
    }

    fn to_json(&self) -> Value {
        let exact = exact(self.target);
        json!({
            "tool": self.tool,
            "target": self.target.as_str(),
            "bytes": self.size.bytes,
            "tokens": self.size.tokens,
            "exact": exact,
            "method": if exact { "o200k_base" } else { ESTIMATE_METHOD },
            "description_tokens": self.size.description_tokens,
            "description_share": self.description_share(),
            "baseline_tokens": self.baseline,
            "growth": self.growth(),
        })
    }
}

/// `a / b`, rounded to three decimals.
fn ratio(a: usize, b: usize) -> f64 {
    (a as f64 / b as f64 * 1000.0).round() / 1000.0
}

pub(crate) fn run(args: &StatsArgs, limits: &InputLimits) -> Result<u8, String> {
    let sources = read_sources(&tool_files(&args.paths), limits)?;
    let toolset = match limits.toolset(sources) {
        Ok(t) => t,
        Err(errors) => {
            report(errors.diagnostics, args.format);
            return Ok(EXIT_ERRORS);
        }
    };
    let targets: Vec<Target> = if args.target.is_empty() {
        DEFAULT_TARGETS.to_vec()
    } else {
        args.target.iter().map(|t| (*t).into()).collect()
    };
    let mut rows = Vec::new();
    for (module, tool) in toolset.tools() {
        rows.extend(measure_tool(module, tool, &targets));
    }
    let request = targets
        .contains(&Target::AnthropicStrict)
        .then(|| anthropic_strict_request(&toolset));
    match args.format {
        Format::Json => {
            let all: Vec<Value> = rows.iter().map(Row::to_json).collect();
            to_stdout(&format!("{}\n", Value::Array(all)));
        }
        Format::Human => {
            let mut text = table(&rows);
            if let Some(counts) = &request {
                text.push_str(&request_line(counts));
            }
            to_stdout(&text);
        }
    }
    let over_limit = request.as_ref().map_or(0, over_request_limits);
    Ok(over_budget(&rows, args.budget).max(over_limit))
}

/// What Anthropic counts over the strict tools of one request, for the tools of the toolset that
/// `anthropic-strict` can represent.
fn anthropic_strict_request(toolset: &tooldef::Toolset) -> AnthropicStrictCounts {
    let quiet = Options { warnings: false };
    let tools: Vec<Value> = toolset
        .tools()
        .filter_map(|(module, tool)| {
            tooldef::emit::tool(module, tool, Target::AnthropicStrict, &quiet).ok()
        })
        .map(|e| e.json)
        .collect();
    AnthropicStrictCounts::of_document(&Value::Array(tools))
}

/// The line under the table that gives the per-request counts against their limits.
fn request_line(c: &AnthropicStrictCounts) -> String {
    let l = ANTHROPIC_STRICT_LIMITS;
    format!(
        "anthropic-strict, per request (the tools above sent together): {} of {} strict tools, \
         {} of {} optional parameters, {} of {} parameters with union types.\n",
        c.strict_tools, l.strict_tools, c.optional, l.optional, c.unions, l.unions
    )
}

/// Names every per-request limit the counts pass on standard error; 1 if any is passed, else 0.
fn over_request_limits(c: &AnthropicStrictCounts) -> u8 {
    let problems = c.problems();
    for p in &problems {
        to_stderr(&format!(
            "over a limit: the tools sent together for anthropic-strict have {p}\n"
        ));
    }
    if problems.is_empty() {
        0
    } else {
        EXIT_ERRORS
    }
}

/// The rows of one tool, one per target that can represent it; a note on standard error for
/// each target that cannot.
fn measure_tool(module: &Module, tool: &Tool, targets: &[Target]) -> Vec<Row> {
    let baseline = payload(module, tool, Target::JsonSchema)
        .map(|p| p.measure(o200k_tokens).tokens)
        .unwrap_or(0);
    let mut rows = Vec::new();
    for &target in targets {
        match payload(module, tool, target) {
            Ok(p) => rows.push(Row {
                tool: tool.name.clone(),
                target,
                size: p.measure(o200k_tokens),
                baseline,
            }),
            Err(errors) => {
                let why = errors
                    .errors()
                    .next()
                    .map_or_else(String::new, |d| format!(": {}", d.message));
                to_stderr(&format!(
                    "note: tool `{}` cannot be compiled for {}, so it has no row{why}\n",
                    tool.name,
                    target.as_str()
                ));
            }
        }
    }
    rows
}

/// Names every row over `budget` on standard error; 1 if any is, else 0.
fn over_budget(rows: &[Row], budget: Option<usize>) -> u8 {
    let Some(budget) = budget else { return 0 };
    let over: Vec<&Row> = rows.iter().filter(|r| r.size.tokens > budget).collect();
    for r in &over {
        to_stderr(&format!(
            "over budget: tool `{}` takes {} tokens in {} (budget {budget})\n",
            r.tool,
            r.size.tokens,
            r.target.as_str()
        ));
    }
    if over.is_empty() {
        0
    } else {
        EXIT_ERRORS
    }
}

/// The rows as an aligned table, with a line saying how tokens were counted.
fn table(rows: &[Row]) -> String {
    let header = [
        "tool",
        "target",
        "bytes",
        "tokens",
        "descriptions",
        "growth",
    ];
    let mut cells: Vec<[String; 6]> = vec![header.map(String::from)];
    for r in rows {
        let tilde = if exact(r.target) { "" } else { "~" };
        cells.push([
            r.tool.clone(),
            r.target.as_str().to_string(),
            r.size.bytes.to_string(),
            format!("{tilde}{}", r.size.tokens),
            r.description_share()
                .map_or_else(|| "-".into(), |s| format!("{:.0}%", s * 100.0)),
            r.growth()
                .map_or_else(|| "-".into(), |g| format!("{g:.2}x")),
        ]);
    }
    let mut widths = [0usize; 6];
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in &cells {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i < 2 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out.push_str(&format!(
        "\ntokens: o200k_base of the compact JSON; exact for openai, openai-strict and \
         openai-responses, estimates (~, {ESTIMATE_METHOD}) for the others. descriptions: the \
         share of the tokens in description text. growth: tokens over the same tool's \
         json-schema form.\n"
    ));
    out
}
