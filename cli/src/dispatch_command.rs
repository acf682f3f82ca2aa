//! `tooldef dispatch FILE... --from PROVIDER [--target T] [--lax | --strict] [RESPONSE | -]`:
//! the command line over [`tooldef::Toolset::dispatch`].

use std::io::Write;
use std::path::{Path, PathBuf};

use tooldef::envelope::Provider;
use tooldef::runtime::{Approval, ApprovalRequest, Approver, RunOptions};
use tooldef::{DispatchError, DispatchOptions, Source};

use super::{read_input, render, style, to_stderr, InputLimits, TargetArg, EXIT_ERRORS};

/// The arguments of `tooldef dispatch`.
#[derive(clap::Args)]
pub(crate) struct DispatchArgs {
    /// The `.tool` files that define the tools, then the response: a JSON file, or `-` for
    /// standard input (the default). The last argument is the response when it is `-` or does
    /// not end in `.tool`.
    #[arg(required = true, value_name = "FILE... [RESPONSE | -]")]
    paths: Vec<PathBuf>,
    /// The provider whose response it is.
    #[arg(long, value_enum)]
    from: ProviderArg,
    /// The target whose schema the model was shown (default: the provider's own, non-strict).
    /// `openai-strict` reads `null` in an optional field as "absent".
    #[arg(long, value_enum)]
    target: Option<TargetArg>,
    /// Validate leniently (documented coercions such as "42" → 42), whatever the tools say.
    #[arg(long, conflicts_with = "strict")]
    lax: bool,
    /// Validate exactly as the emitted JSON Schema, whatever the tools say.
    #[arg(long)]
    strict: bool,
    /// Run every call through its handler (a bindings file, as `serve --bind` reads) with the
    /// tool's policies, and print the messages to append to the conversation as `"messages"`.
    #[arg(long, value_name = "BINDINGS.toml")]
    run: Option<PathBuf>,
    /// With --run: approve the calls of this `@requires_approval` tool (repeatable); `all`
    /// approves every tool. Without it such a call is answered "not approved", unrun.
    #[arg(long, value_name = "TOOL", requires = "run")]
    approve: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ProviderArg {
    /// OpenAI Chat Completions: `choices[].message.tool_calls[]`.
    Openai,
    /// The OpenAI Responses API: `output[]` items of type `function_call`.
    OpenaiResponses,
    /// Anthropic Messages: `content[]` blocks of type `tool_use`.
    Anthropic,
    /// Gemini: `candidates[].content.parts[].functionCall`.
    Gemini,
    /// An MCP `tools/call` JSON-RPC request.
    Mcp,
}

impl From<ProviderArg> for Provider {
    fn from(p: ProviderArg) -> Provider {
        match p {
            ProviderArg::Openai => Provider::OpenAi,
            ProviderArg::OpenaiResponses => Provider::OpenAiResponses,
            ProviderArg::Anthropic => Provider::Anthropic,
            ProviderArg::Gemini => Provider::Gemini,
            ProviderArg::Mcp => Provider::Mcp,
        }
    }
}

/// `dispatch --run`: every call run through its binding, the turn printed as JSON.
fn run_calls(
    a: &DispatchArgs,
    toolset: tooldef::Toolset,
    bindings: &Path,
    text: &str,
    name: &str,
    limits: &InputLimits,
) -> Result<u8, String> {
    let toolset = std::sync::Arc::new(toolset);
    let bindings = super::serve_command::load_bindings(bindings, &toolset, limits)?;
    for tool in &a.approve {
        if tool != "all" && toolset.tool(tool).is_none() {
            let hint = toolset
                .suggest(tool)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(format!("--approve {tool}: no tool of that name{hint}"));
        }
    }
    let approved: Vec<String> = a.approve.clone();
    let runtime = bindings.runtime(toolset).with_approver(Approver::sync(
        move |request: &ApprovalRequest| {
            if approved.iter().any(|t| t == "all" || *t == request.tool) {
                Approval::Approve
            } else {
                Approval::deny_because(format!(
                    "approval was not given for `{}` (`--approve {}` gives it)",
                    request.tool, request.tool
                ))
            }
        },
    ));
    let response: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("{name}: not valid JSON: {e}"))?;
    let options = RunOptions {
        target: a.target.map(Into::into),
        mode: super::mode_flag(a.lax, a.strict),
        ..RunOptions::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let turn = rt
        .block_on(runtime.run_response(a.from.into(), &response, &options))
        .map_err(|e| format!("{name}: {e}"))?;
    let mut out = serde_json::to_string_pretty(&turn.to_json()).unwrap_or_default();
    out.push('\n');
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    Ok(if turn.all_succeeded() { 0 } else { EXIT_ERRORS })
}

/// Whether a path names a `.tool` file.
fn is_tool_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "tool")
}

pub(crate) fn run(a: &DispatchArgs, limits: &InputLimits) -> Result<u8, String> {
    let (files, response) = match a.paths.split_last() {
        Some((last, rest))
            if !rest.is_empty() && (last.as_os_str() == "-" || !is_tool_file(last)) =>
        {
            (rest, last.clone())
        }
        _ => (a.paths.as_slice(), PathBuf::from("-")),
    };
    if files.iter().any(|f| f.as_os_str() == "-") {
        return Err("the tool files cannot come from standard input; the response may".into());
    }
    let mut sources = Vec::with_capacity(files.len());
    for f in files {
        let input = read_input(f, limits.input())?;
        let text = String::from_utf8(input.bytes)
            .map_err(|e| format!("{} is not UTF-8: {e}", input.name))?;
        sources.push(Source::new(input.name, text));
    }
    let toolset = match limits.toolset(sources) {
        Ok(t) => t,
        Err(errors) => {
            let style = style();
            for d in &errors.diagnostics {
                if let Some(file) = &d.file {
                    to_stderr(&render::report(d, file.name(), file.text(), style));
                }
            }
            return Err("the tool files have errors".into());
        }
    };
    let raw = read_input(&response, limits.input())?;
    let text =
        String::from_utf8(raw.bytes).map_err(|e| format!("{} is not UTF-8: {e}", raw.name))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if let Some(bindings) = &a.run {
        return run_calls(a, toolset, bindings, text, &raw.name, limits);
    }
    let options = DispatchOptions {
        target: a.target.map(Into::into),
        mode: super::mode_flag(a.lax, a.strict),
    };
    let dispatched = toolset
        .dispatch_str(a.from.into(), text, &options)
        .map_err(|e| match e {
            DispatchError::Envelope(e) => format!("{}: {e}", raw.name),
            DispatchError::Target(e) => e.to_string(),
        })?;
    let mut out = serde_json::to_string_pretty(&dispatched.to_json()).unwrap_or_default();
    out.push('\n');
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    Ok(if dispatched.all_valid() {
        0
    } else {
        EXIT_ERRORS
    })
}
