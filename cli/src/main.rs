//! The `tooldef` command line: a thin layer over the library.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use tooldef::emit::{self, Target};
use tooldef::render::{self, Style};
use tooldef::Diagnostic;
use tooldef::{decode_source, LineIndex};

/// tooldef: define the tools LLMs call, once; emit their JSON Schema; validate what comes back.
#[derive(Parser)]
#[command(name = "tooldef", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    limits: InputLimits,
}

#[derive(Subcommand)]
enum Command {
    /// Check `.tool` files and print every diagnostic.
    Check {
        /// Files and folders to check (folders: every `*.tool` in them, recursively); `-` reads
        /// standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Compile a `.tool` file and print its tools as JSON.
    Compile {
        /// The file to compile; `-` reads standard input.
        file: PathBuf,
        /// Print only this tool (an object instead of an array).
        #[arg(long)]
        tool: Option<String>,
        /// The output shape.
        #[arg(long, value_enum, default_value_t = TargetArg::JsonSchema)]
        target: TargetArg,
        /// Write the JSON here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// How to print diagnostics (on standard error).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Do not print warnings (constraints folded into descriptions); errors still print.
        #[arg(short, long)]
        quiet: bool,
        /// Also print the tool choice, in the target's form: `auto`, `none`, `required` (any
        /// tool must be called) or a tool's name (that tool must be called). The output is then
        /// `{"tools": [...], "tool_choice": ...}` (`toolConfig` for Gemini), the request's fields.
        #[arg(long, value_name = "auto|none|required|TOOL")]
        tool_choice: Option<String>,
    },
    /// Compile every tool of a set of files and folders into one document per target
    /// (`OUT/<target>.json`); tool names are unique across the set. With `--check`, write
    /// nothing and exit with 1 listing the documents that are missing or stale (for CI).
    Build(BuildArgs),
    /// Generate typed code for the tools of a set of files and folders: the types of every
    /// tool's arguments (validated and normalized) and output, and of every named type; in Rust
    /// also a `Tools` trait with one method per tool and `register`, which makes an
    /// implementation of it the handlers of a runtime.
    Gen(GenArgs),
    /// What each tool weighs in each target: bytes and tokens of the compact JSON a provider
    /// receives (OpenAI's o200k_base; exact for the OpenAI targets, an estimate for the others),
    /// the share of descriptions, and the growth over `json-schema`. With `--budget N`, exit
    /// with 1 naming every tool over N tokens.
    Stats(StatsArgs),
    /// Compare two versions of a set of tools (each a `.tool` file or a folder of them) and
    /// print every change, classified: `breaking` (a valid call becomes invalid), `safety` (a
    /// safety attribute weakened), `model` (a text the model reads changed) or `compatible`.
    ///
    /// Exit codes: 0 no breaking or safety change, 1 any, 2 usage or I/O errors, or sources
    /// that do not compile.
    Diff(DiffArgs),
    /// Pin every tool in a lock file (`tools.lock`): a SHA-256 of what each provider receives,
    /// the tool's MCP definition, and the settings no provider receives (`@requires_approval`,
    /// `@strict`/`@lax`, `@formats`, `@scope`, `@on_error`, `@retry`, `@meta`). `--server` or
    /// `--url` pins a running MCP server's tools.
    ///
    /// With `--check`, write nothing and name each tool added, removed or changed since, with
    /// diff's classes. Exit codes: 0 written, or nothing changed; 1 a change; 2 usage or I/O
    /// errors, a missing lock, or sources that do not compile.
    Lock(LockArgs),
    /// Validate a tool call's arguments against a tool of a `.tool` file.
    ///
    /// Exit codes: 0 valid (prints the normalized arguments), 1 invalid (prints the message for
    /// the model), 2 usage, I/O or compile errors.
    Validate(ValidateArgs),
    /// Print a provider's structured-output block for a type (or a tool's `-> T`): the value
    /// of OpenAI's `response_format` or `text`, Anthropic's `output_format`, or Gemini's
    /// `generationConfig` fields. Exit codes, as for `compile`: 0 success, 1 the source has
    /// errors, the type is unknown or the target cannot carry it, 2 usage or I/O errors.
    Schema(SchemaArgs),
    /// Check a model's structured answer against a type (or a tool's `-> T`).
    ///
    /// Exit codes: 0 valid (prints the normalized value), 1 invalid (prints the message for the
    /// model), 2 usage, I/O or compile errors.
    Parse(ParseArgs),
    /// Validate the tool calls of a model's response and build the replies for the bad ones.
    ///
    /// Prints `{"calls": [...], "replies": [...]}`: each call with its verdict, and the
    /// provider-shaped reply for every invalid or unknown call, ready to append to the
    /// conversation. Exit codes: 0 every call valid, 1 any invalid or unknown, 2 usage, I/O,
    /// compile errors or a malformed response.
    Dispatch(DispatchArgs),
    /// Serve the tools of `.tool` files over MCP (stdio, or streamable HTTP on loopback).
    ///
    /// Each call is validated and run through the command its binding names, under the tool's
    /// policies; its audit record is logged on standard error.
    Serve(ServeArgs),
    /// Format `.tool` files in place, in the one canonical layout (comments are kept).
    Fmt {
        /// Files and folders to format (folders: every `*.tool` in them, recursively); `-`
        /// formats standard input to standard output.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Change nothing; list the files that would change and exit with 1 if any would.
        #[arg(long)]
        check: bool,
    },
    /// Import tool definitions from JSON Schema or a provider format, printing `.tool` source.
    ///
    /// With `--from mcp`, `--server CMD` or `--url URL` reads the tools from a running MCP
    /// server (every page of `tools/list`) instead of a file.
    ///
    /// A tool that cannot be imported is left out and reported (each problem with its JSON
    /// pointer and code), and the other tools are imported. Exit codes: 0 every tool imported,
    /// 1 nothing imported (every tool refused, or the document cannot be read), 2 usage or I/O
    /// errors, 3 some tools imported and some refused (`--strict`: 1 instead, and no source).
    #[command(group(clap::ArgGroup::new("input").required(true).args(["file", "server", "url"])))]
    Import {
        /// The JSON (or JSON Lines) file; `-` reads standard input.
        file: Option<PathBuf>,
        #[command(flatten)]
        remote: mcp_client_command::Remote,
        /// The input format.
        #[arg(long, value_enum)]
        from: FromArg,
        /// Write the source here instead of standard output.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The name of the tool (or type) made from a bare JSON Schema.
        #[arg(long)]
        name: Option<String>,
        /// Keep objects open (tool formats close objects that declare properties by default).
        #[arg(long)]
        keep_open: bool,
        /// Refuse invisible and control characters in text shown to the model (descriptions,
        /// titles, defaults and examples): errors with their JSON pointers, exit code 1. By
        /// default they are removed (a default or example holding one is dropped) with a
        /// warning.
        #[arg(long)]
        deny_hidden: bool,
        /// All or nothing: a tool that cannot be imported fails the whole import (exit code 1,
        /// no source written).
        #[arg(long)]
        strict: bool,
    },
    /// Serve the language server for `.tool` files over standard input and output (LSP).
    ///
    /// Diagnostics, hover, go to definition, references, completion, document symbols,
    /// formatting and rename, for an editor to start. Exit codes: 0 after `shutdown` and `exit`,
    /// 1 when the client exits without `shutdown` or the connection ends first.
    Lsp(lsp_command::LspArgs),
    /// Call a tool of an MCP server, after validating its arguments against the listed schema.
    ///
    /// Exit codes: 0 the tool's result, 1 a result with `isError: true` or invalid arguments
    /// (prints the message for the model; the tool is not called), 2 usage, connection or
    /// protocol errors, or a tool the server does not list.
    Call(mcp_client_command::CallArgs),
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FromArg {
    /// A JSON Schema, or a list of them.
    JsonSchema,
    /// OpenAI tools (Chat Completions or Responses).
    Openai,
    /// Anthropic tools.
    Anthropic,
    /// Gemini function declarations.
    Gemini,
    /// An MCP `tools/list` result.
    Mcp,
    /// BFCL function documents.
    Bfcl,
}

impl From<FromArg> for tooldef::import::Dialect {
    fn from(f: FromArg) -> Self {
        use tooldef::import::Dialect;
        match f {
            FromArg::JsonSchema => Dialect::JsonSchema,
            FromArg::Openai => Dialect::OpenAi,
            FromArg::Anthropic => Dialect::Anthropic,
            FromArg::Gemini => Dialect::Gemini,
            FromArg::Mcp => Dialect::Mcp,
            FromArg::Bfcl => Dialect::Bfcl,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Reports with source snippets.
    Human,
    /// One JSON array of diagnostics.
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TargetArg {
    /// JSON Schema draft 2020-12 (the canonical form).
    JsonSchema,
    /// OpenAI Chat Completions tools.
    Openai,
    /// OpenAI Chat Completions tools in strict mode (Structured Outputs).
    OpenaiStrict,
    /// OpenAI Responses API function tools.
    OpenaiResponses,
    /// Anthropic Messages API tools.
    Anthropic,
    /// Anthropic Messages API tools in strict mode (strict tool use).
    AnthropicStrict,
    /// Gemini function declarations, `parametersJsonSchema` (JSON Schema).
    Gemini,
    /// Gemini function declarations, `parameters` (Gemini's OpenAPI schema subset).
    GeminiOpenapi,
    /// An MCP `tools/list` result.
    Mcp,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::JsonSchema => Target::JsonSchema,
            TargetArg::Openai => Target::OpenAi,
            TargetArg::OpenaiStrict => Target::OpenAiStrict,
            TargetArg::OpenaiResponses => Target::OpenAiResponses,
            TargetArg::Anthropic => Target::Anthropic,
            TargetArg::AnthropicStrict => Target::AnthropicStrict,
            TargetArg::Gemini => Target::Gemini,
            TargetArg::GeminiOpenapi => Target::GeminiOpenApi,
            TargetArg::Mcp => Target::Mcp,
        }
    }
}

/// Exit codes: 0 success, 1 the source has errors, 2 usage or I/O errors, 3 an import that left
/// out the tools it could not express and imported the others.
const EXIT_ERRORS: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_PARTIAL: u8 = 3;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let limits = cli.limits;
    let result = match cli.command {
        Command::Check { files, format } => check(&tool_files(&files), format, &limits),
        Command::Build(args) => build_command::build(&args, &limits),
        Command::Gen(args) => gen_command::run(&args, &limits),
        Command::Stats(args) => stats_command::run(&args, &limits),
        Command::Compile {
            file,
            tool,
            target,
            output,
            format,
            quiet,
            tool_choice,
        } => compile(
            &file,
            Shown {
                tool: tool.as_deref(),
                target: target.into(),
                choice: tool_choice.as_deref(),
            },
            output.as_deref(),
            format,
            quiet,
            &limits,
        ),
        Command::Diff(args) => diff_command::run(&args, &limits),
        Command::Lock(args) => lock_command::run(&args, &limits),
        Command::Validate(args) => validate_command::run(&args, &limits),
        Command::Schema(args) => answer_command::schema(&args, &limits),
        Command::Parse(args) => answer_command::parse(&args, &limits),
        Command::Dispatch(args) => dispatch_command::run(&args, &limits),
        Command::Serve(args) => serve_command::run(&args, &limits),
        Command::Fmt { files, check } => fmt(&tool_files(&files), check, &limits),
        Command::Import {
            file,
            from,
            output,
            name,
            keep_open,
            deny_hidden,
            strict,
            remote,
        } => {
            let options = tooldef::import::Options {
                name,
                keep_open,
                deny_hidden,
                strict,
            };
            match file {
                Some(file) if !remote.is_given() => {
                    import(&file, from.into(), output.as_deref(), &options, &limits)
                }
                _ => {
                    mcp_client_command::import(&remote, from, output.as_deref(), &options, &limits)
                }
            }
        }
        Command::Call(args) => mcp_client_command::call(&args, &limits),
        Command::Lsp(args) => lsp_command::run(&args, &limits),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            to_stderr(&format!("error: {message}\n"));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Writes to standard output; a closed pipe (`tooldef ... | head`) is not an error worth a panic.
fn to_stdout(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// The mode `--lax` / `--strict` ask for; `None` leaves each tool's own (`@strict` / `@lax`).
fn mode_flag(lax: bool, strict: bool) -> Option<tooldef::validate::Mode> {
    use tooldef::validate::Mode;
    match (lax, strict) {
        (true, _) => Some(Mode::Lax),
        (false, true) => Some(Mode::Strict),
        (false, false) => None,
    }
}

/// Writes to standard error, ignoring a closed pipe.
fn to_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

mod answer_command;
mod build_command;
mod diff_command;
mod dispatch_command;
mod gen_command;
mod lock_command;
mod lsp_command;
mod mcp_client_command;
mod read;
mod serve_command;
mod stats_command;
mod validate_command;
mod write;
use answer_command::{ParseArgs, SchemaArgs};
use build_command::{tool_files, BuildArgs};
use diff_command::DiffArgs;
use dispatch_command::DispatchArgs;
use gen_command::GenArgs;
use lock_command::LockArgs;
use read::{InputLimits, Limit};
use serve_command::ServeArgs;
use stats_command::StatsArgs;
use validate_command::ValidateArgs;

/// A source file read into memory.
struct Input {
    name: String,
    bytes: Vec<u8>,
}

/// Reads a file, or standard input for `-`, through `limit` (never more than the limit plus one
/// byte).
fn read_input(path: &std::path::Path, limit: Limit) -> Result<Input, String> {
    if path.as_os_str() == "-" {
        let bytes = read::read_bounded(std::io::stdin().lock(), "standard input", limit)?;
        return Ok(Input {
            name: "<stdin>".into(),
            bytes,
        });
    }
    let bytes = read::read_file_bounded(path, limit)?;
    Ok(Input {
        name: path.display().to_string(),
        bytes,
    })
}

fn style() -> Style {
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
        || !std::io::stderr().is_terminal()
    {
        Style::Plain
    } else {
        Style::Color
    }
}

/// Compiles one input; returns the module (if it compiled) and every diagnostic with the text
/// they point into.
fn compile_input(
    input: &Input,
    limits: &InputLimits,
) -> (Option<tooldef::Module>, Vec<Diagnostic>, String) {
    let text = match decode_source(&input.bytes) {
        Ok(s) => s.to_string(),
        Err(d) => {
            return (
                None,
                vec![d],
                String::from_utf8_lossy(&input.bytes).into_owned(),
            )
        }
    };
    // Imports are read from disk, relative to the file's folder (standard input's: the current
    // folder).
    let name = if input.name == "<stdin>" {
        "./<stdin>"
    } else {
        input.name.as_str()
    };
    let loader = limits.loader([name]);
    match tooldef::compile_with(name, &text, &loader) {
        Ok(c) => (Some(c.module), c.warnings, text),
        Err(e) => (None, e.diagnostics, text),
    }
}

fn print_diagnostics(all: &[(String, String, Vec<Diagnostic>)], format: Format, to_stdout: bool) {
    match format {
        Format::Human => {
            let style = style();
            // Each report is written as it is drawn (a source with a million problems is never
            // held drawn whole); a closed pipe ends the output.
            let mut out = std::io::BufWriter::new(std::io::stderr().lock());
            let mut written = Ok(());
            for (name, text, diags) in all {
                // Diagnostics in an imported file are drawn from that file; they come sorted by
                // file, so each file is indexed once.
                for (i, run) in diags.chunk_by(same_file).enumerate() {
                    if written.is_ok() && i > 0 {
                        written = out.write_all(b"\n");
                    }
                    if written.is_ok() {
                        written = match &run[0].file {
                            Some(file) => render::write_reports(
                                &mut out,
                                run,
                                file.name(),
                                file.text(),
                                style,
                            ),
                            None => render::write_reports(&mut out, run, name, text, style),
                        };
                    }
                }
            }
            let _ = out.flush();
        }
        Format::Json => {
            let all = JsonDiagnostics(all);
            if to_stdout {
                write_pretty(std::io::stdout().lock(), &all);
            } else {
                write_pretty(std::io::stderr().lock(), &all);
            }
        }
    }
}

/// Every diagnostic as one JSON array, each turned into JSON only as it is written, so a source
/// with a million problems never holds a million JSON objects at once.
struct JsonDiagnostics<'a>(&'a [(String, String, Vec<Diagnostic>)]);

impl serde::Serialize for JsonDiagnostics<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().flat_map(|(name, text, diags)| {
            diags.chunk_by(same_file).flat_map(move |run| {
                let (name, text) = match &run[0].file {
                    Some(file) => (file.name(), file.text()),
                    None => (name.as_str(), text.as_str()),
                };
                let index = LineIndex::new(text);
                run.iter().map(move |d| d.to_json(name, text, &index))
            })
        }))
    }
}

/// `value` as pretty JSON and a line break, through a buffer (a closed pipe ends the output).
fn write_pretty(out: impl Write, value: &impl serde::Serialize) {
    let mut out = std::io::BufWriter::new(out);
    if serde_json::to_writer_pretty(&mut out, value).is_ok() {
        let _ = out.write_all(b"\n");
    }
    let _ = out.flush();
}

/// Whether two diagnostics point into the same file.
fn same_file(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.file.as_ref().map(|f| f.name()) == b.file.as_ref().map(|f| f.name())
}

fn summary(all: &[(String, String, Vec<Diagnostic>)]) -> (usize, usize) {
    let diags = all.iter().flat_map(|(_, _, d)| d);
    let errors = diags.clone().filter(|d| d.is_error()).count();
    (errors, diags.count() - errors)
}

fn check(files: &[PathBuf], format: Format, limits: &InputLimits) -> Result<u8, String> {
    let mut all = Vec::new();
    let mut unreadable = false;
    let mut sources = Vec::new();
    for path in files {
        match read_input(path, limits.input()) {
            Ok(input) => match decode_source(&input.bytes) {
                // Standard input's imports are read relative to the current folder.
                Ok(text) => sources.push(tooldef::Source::new(input.name, text)),
                Err(d) => {
                    let text = String::from_utf8_lossy(&input.bytes).into_owned();
                    all.push((input.name, text, vec![d]));
                }
            },
            Err(message) => {
                // Report it and go on: the other files still get checked.
                to_stderr(&format!("error: {message}\n"));
                unreadable = true;
            }
        }
    }
    let files = all.len() + sources.len();
    // The files are checked as one build: each, named or imported, once.
    if !sources.is_empty() {
        let diagnostics = match limits.toolset(sources) {
            Ok(set) => set.warnings().to_vec(),
            Err(errors) => errors.diagnostics,
        };
        all.push((String::new(), String::new(), diagnostics));
    }
    print_diagnostics(&all, format, true);
    let (errors, warnings) = summary(&all);
    if format == Format::Human {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        to_stderr(&format!(
            "checked {}: {}, {}\n",
            plural(files, "file"),
            plural(errors, "error"),
            plural(warnings, "warning")
        ));
    }
    Ok(if unreadable {
        EXIT_USAGE
    } else if errors > 0 {
        EXIT_ERRORS
    } else {
        0
    })
}

/// What `compile` shows: one tool or all, for a target, with a tool choice or without.
struct Shown<'a> {
    tool: Option<&'a str>,
    target: Target,
    choice: Option<&'a str>,
}

fn compile(
    path: &std::path::Path,
    shown: Shown<'_>,
    output: Option<&std::path::Path>,
    format: Format,
    quiet: bool,
    limits: &InputLimits,
) -> Result<u8, String> {
    if let Some(out) = output {
        write::refuse_output_over_input(out, &[path])?;
    }
    let input = read_input(path, limits.input())?;
    let (module, mut diags, text) = compile_input(&input, limits);
    if quiet {
        diags.retain(Diagnostic::is_error);
    }
    let Some(module) = module else {
        print_diagnostics(&[(input.name, text, diags)], format, false);
        return Ok(EXIT_ERRORS);
    };
    let options = emit::Options { warnings: !quiet };
    let Shown {
        tool,
        target,
        choice,
    } = shown;
    let named = |name: &str| -> Result<(), String> {
        if module.tool(name).is_some() {
            return Ok(());
        }
        let names: Vec<&str> = module.tools.iter().map(|t| t.name.as_str()).collect();
        let hint = tooldef::did_you_mean(name, names.iter().copied())
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_else(|| format!("; the file defines: {}", names.join(", ")));
        Err(format!("no tool named `{name}`{hint}"))
    };
    let choice = match choice.map(emit::ToolChoice::parse) {
        None => None,
        Some(c) => {
            if let emit::ToolChoice::Tool(name) = c {
                named(name)?;
            }
            let field = emit::tool_choice_field(target);
            let value = emit::tool_choice(target, c).ok_or_else(|| {
                format!(
                    "--tool-choice: the target `{}` has no tool choice",
                    target.as_str()
                )
            })?;
            Some((field, value))
        }
    };
    let emitted = match tool {
        None => emit::tools(&module, target, &options),
        Some(name) => {
            named(name)?;
            let t = module.tool(name).ok_or("no such tool")?;
            emit::tool(&module, t, target, &options)
        }
    };
    let json = match emitted {
        Ok(e) => {
            diags.extend(e.warnings);
            if !diags.is_empty() {
                print_diagnostics(&[(input.name, text, diags)], format, false);
            }
            e.json
        }
        Err(e) => {
            diags.extend(e.diagnostics);
            print_diagnostics(&[(input.name, text, diags)], format, false);
            return Ok(EXIT_ERRORS);
        }
    };
    // With a tool choice: the request's two fields (one tool shown is a list of one).
    let json = match choice {
        None => json,
        Some((field, value)) => {
            let tools = if tool.is_some() && !json.is_array() {
                serde_json::Value::Array(vec![json])
            } else {
                json
            };
            serde_json::json!({ "tools": tools, field: value })
        }
    };
    let mut text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    text.push('\n');
    match output {
        Some(p) => write::write_file(p, text.as_bytes())?,
        None => to_stdout(&text),
    }
    Ok(0)
}

/// Formats each file in place (through [`write::write_file`]). A file that cannot be read or
/// written is reported and skipped, and the others are still formatted, as `check` does: the exit
/// code is then 2. Otherwise it is 1 when a file does not parse (invalid UTF-8 included, a
/// diagnostic as in `check`) or, with `--check`, would change.
fn fmt(files: &[PathBuf], check: bool, limits: &InputLimits) -> Result<u8, String> {
    let mut errors = false;
    let mut io_failed = false;
    let mut failures = Vec::new();
    for path in files {
        let input = match read_input(path, limits.input()) {
            Ok(input) => input,
            Err(message) => {
                to_stderr(&format!("error: {message}\n"));
                io_failed = true;
                continue;
            }
        };
        let text = match decode_source(&input.bytes) {
            Ok(s) => s.to_string(),
            Err(d) => {
                let text = String::from_utf8_lossy(&input.bytes).into_owned();
                failures.push((input.name, text, vec![d]));
                errors = true;
                continue;
            }
        };
        match tooldef::format(&text) {
            Ok(formatted) => {
                if path.as_os_str() == "-" && !check {
                    to_stdout(&formatted);
                } else if formatted != text {
                    if check {
                        to_stdout(&format!("{}\n", input.name));
                        errors = true;
                    } else if let Err(message) = write::write_file(path, formatted.as_bytes()) {
                        to_stderr(&format!("error: {message}\n"));
                        io_failed = true;
                    }
                }
            }
            Err(e) => {
                failures.push((input.name, text, e.diagnostics));
                errors = true;
            }
        }
    }
    print_diagnostics(&failures, Format::Human, false);
    Ok(if io_failed {
        EXIT_USAGE
    } else if errors {
        EXIT_ERRORS
    } else {
        0
    })
}

fn import(
    file: &std::path::Path,
    dialect: tooldef::import::Dialect,
    output: Option<&std::path::Path>,
    options: &tooldef::import::Options,
    limits: &InputLimits,
) -> Result<u8, String> {
    if let Some(out) = output {
        write::refuse_output_over_input(out, &[file])?;
    }
    let input = read_input(file, limits.input())?;
    let text =
        String::from_utf8(input.bytes).map_err(|_| format!("{} is not UTF-8", input.name))?;
    let result = tooldef::import::parse_input(&text)
        .and_then(|doc| tooldef::import::import(&doc, dialect, options));
    finish_import(&input.name, result, output)
}

/// Prints an import's warnings (or errors) on standard error and writes its source; `source` names
/// the input in messages. Each tool the import left out is reported with its problems (exit
/// code 3).
fn finish_import(
    source: &str,
    result: Result<tooldef::import::Imported, tooldef::import::ImportError>,
    output: Option<&std::path::Path>,
) -> Result<u8, String> {
    let print_issue = |issue: &tooldef::import::Issue| {
        let kw = issue
            .keyword
            .as_deref()
            .map(|k| format!(" [{k}]"))
            .unwrap_or_default();
        to_stderr(&format!("error: {source}: {issue}{kw}\n"));
    };
    match result {
        Ok(imported) => {
            for w in &imported.warnings {
                to_stderr(&format!("warning: {source}: {w}\n"));
            }
            for r in &imported.refused {
                r.issues.iter().for_each(print_issue);
                let at = if r.pointer.is_empty() {
                    "/"
                } else {
                    &r.pointer
                };
                to_stderr(&format!(
                    "refused: {source}: the tool at {at} was not imported\n"
                ));
            }
            match output {
                Some(path) => write::write_file(path, imported.source.as_bytes())?,
                None => to_stdout(&imported.source),
            }
            if imported.refused.is_empty() {
                Ok(0)
            } else {
                let n = imported.refused.len();
                to_stderr(&format!(
                    "{source}: imported {} tool{}, refused {n} (pass --strict to import all or nothing)\n",
                    imported.module.tools.len(),
                    if imported.module.tools.len() == 1 { "" } else { "s" },
                ));
                Ok(EXIT_PARTIAL)
            }
        }
        Err(e) => {
            e.issues.iter().for_each(print_issue);
            Ok(EXIT_ERRORS)
        }
    }
}
