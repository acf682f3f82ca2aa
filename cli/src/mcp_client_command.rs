//! The commands that talk to an MCP server as its client, over [`tooldef::mcp::client`]:
//! `tooldef import --from mcp --server CMD | --url URL` and `tooldef call`.
//!
//! `--server` is one string, split into the program and its arguments the way a POSIX shell
//! splits words (whitespace separates; single quotes, double quotes and backslashes quote; no
//! expansion of any kind) and run without a shell.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use tooldef::import::{Dialect, Options};
use tooldef::mcp::client::{Client, ClientError};
use tooldef::validate::{Limits, Validator};

use super::{read_input, to_stderr, to_stdout, FromArg, InputLimits, EXIT_ERRORS};

/// Where the server is: `--server` or `--url` (with `--token-env`).
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct Remote {
    /// Start this MCP server and talk to it over its standard input and output: a command line,
    /// split into words like a shell would (quotes, backslashes) but run without one.
    #[arg(long, value_name = "COMMAND", conflicts_with = "url")]
    pub(crate) server: Option<String>,
    /// Talk to the MCP server at this URL (streamable HTTP).
    #[arg(long)]
    pub(crate) url: Option<String>,
    /// With `--url`: send `Authorization: Bearer <the value of VAR>`.
    #[arg(long, value_name = "VAR", requires = "url")]
    pub(crate) token_env: Option<String>,
}

impl Remote {
    /// Whether `--server` or `--url` was given.
    pub(crate) fn is_given(&self) -> bool {
        self.server.is_some() || self.url.is_some()
    }

    /// How messages name the server.
    pub(crate) fn name(&self) -> String {
        match (&self.server, &self.url) {
            (Some(cmd), _) => cmd.clone(),
            (None, Some(url)) => url.clone(),
            (None, None) => "<no server>".into(),
        }
    }

    /// Connects, with `--max-input-bytes` as the limit on the tools listed; every failure is a
    /// message for standard error (exit code 2).
    pub(crate) async fn connect(&self, limits: &InputLimits) -> Result<Client, String> {
        let client = if let Some(command) = &self.server {
            let argv = split_command(command)?;
            Client::connect_stdio(&argv).await
        } else if let Some(url) = &self.url {
            let bearer = match &self.token_env {
                Some(var) => match std::env::var(var) {
                    Ok(v) if !v.is_empty() => Some(v),
                    Ok(_) => return Err(format!("the environment variable {var} is empty")),
                    Err(_) => return Err(format!("the environment variable {var} is not set")),
                },
                None => None,
            };
            Client::connect_http(url, bearer).await
        } else {
            return Err("give --server or --url".into());
        };
        client
            .map(|c| c.with_max_listed_bytes(limits.max_input_bytes))
            .map_err(|e| format!("{}: {e}", self.name()))
    }
}

/// Splits `--server`'s string into argv.
fn split_command(command: &str) -> Result<Vec<String>, String> {
    match shlex::split(command) {
        Some(argv) if !argv.is_empty() => Ok(argv),
        Some(_) => Err("--server is empty".into()),
        None => Err(format!(
            "cannot split --server `{command}` into words (an unclosed quote, or a backslash at the end)"
        )),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// `tooldef import --from mcp --server CMD | --url URL`: the server's `tools/list` (every page),
/// imported exactly as a `tools/list` file would be.
pub(crate) fn import(
    remote: &Remote,
    from: FromArg,
    output: Option<&Path>,
    options: &Options,
    limits: &InputLimits,
) -> Result<u8, String> {
    if from != FromArg::Mcp {
        return Err(
            "--server and --url read an MCP server's tools: use them with --from mcp".into(),
        );
    }
    let tools = list_tools(remote, limits)?;
    let doc = json!({ "tools": tools });
    let result = tooldef::import::import(&doc, Dialect::Mcp, options);
    super::finish_import(&remote.name(), result, output)
}

/// Every tool the server lists (every page of `tools/list`), as MCP `Tool` JSON.
pub(crate) fn list_tools(remote: &Remote, limits: &InputLimits) -> Result<Vec<Value>, String> {
    let rt = runtime()?;
    rt.block_on(async {
        let client = remote.connect(limits).await?;
        let tools = client.list_tools().await;
        client.close().await;
        tools.map_err(|e| listing_failed(remote, &e))
    })
}

/// The message for a `tools/list` that failed; a list over the limit says how to raise it.
fn listing_failed(remote: &Remote, e: &ClientError) -> String {
    let hint = match e {
        ClientError::TooLarge { .. } => "; raise it with --max-input-bytes BYTES",
        _ => "",
    };
    format!("{}: {e}{hint}", remote.name())
}

/// The arguments of `tooldef call`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("remote").required(true).args(["server", "url"])))]
pub(crate) struct CallArgs {
    #[command(flatten)]
    remote: Remote,
    /// The tool to call, as the server names it.
    tool: String,
    /// The arguments: JSON text when it starts with `{`, else a file of JSON text; `-` or
    /// nothing reads standard input.
    args: Option<String>,
    /// Validate leniently (documented coercions such as "42" → 42) before calling.
    #[arg(long, conflicts_with = "strict")]
    lax: bool,
    /// Validate exactly as the imported JSON Schema (the default for imported tools).
    #[arg(long)]
    strict: bool,
    /// How to print the result.
    #[arg(long, value_enum, default_value_t = CallFormat::Human)]
    format: CallFormat,
}

/// How `call` prints.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CallFormat {
    /// The text blocks of the result, then its `structuredContent` as JSON; or the message for
    /// the model when the arguments are invalid.
    Human,
    /// The `CallToolResult` as JSON; or `{valid: false, errors, message}` when the arguments are
    /// invalid.
    Json,
}

/// `tooldef call`: validate the arguments locally against the tool's listed schema (imported
/// as `import --from mcp` would), then call it. Exit codes: 0 a result, 1 a result with
/// `isError: true` or invalid arguments (the server is not called), 2 usage, connection or
/// protocol errors, an unknown tool, or a schema the importer cannot read.
pub(crate) fn call(a: &CallArgs, limits: &InputLimits) -> Result<u8, String> {
    let text = read_arguments(a.args.as_deref(), limits)?;
    let rt = runtime()?;
    rt.block_on(async {
        let client = a.remote.connect(limits).await?;
        let outcome = call_with(&client, a, &text, limits).await;
        client.close().await;
        outcome
    })
}

async fn call_with(
    client: &Client,
    a: &CallArgs,
    text: &str,
    limits: &InputLimits,
) -> Result<u8, String> {
    let server = a.remote.name();
    let tools = client
        .list_tools()
        .await
        .map_err(|e| listing_failed(&a.remote, &e))?;
    let Some(listed) = tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(a.tool.as_str()))
    else {
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        let hint = tooldef::did_you_mean(&a.tool, names.iter().copied())
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_else(|| format!("; it lists: {}", names.join(", ")));
        return Err(format!("{server} has no tool named `{}`{hint}", a.tool));
    };
    if let Some(warning) = poisoning(&server, listed) {
        to_stderr(&format!("{warning}\n"));
    }
    let imported = tooldef::import::import(
        &json!({ "tools": [listed] }),
        Dialect::Mcp,
        &Options::default(),
    )
    .map_err(|e| {
        format!(
            "cannot read the schema of `{}` to validate the arguments:\n{e}",
            a.tool
        )
    })?;
    let module = &imported.module;
    let tool = module
        .tools
        .first()
        .ok_or_else(|| format!("the import of `{}` made no tool", a.tool))?;
    let validator = Validator::new(module, tool).map_err(|e| e.to_string())?;
    let checked = Limits {
        max_bytes: limits.max_args_bytes,
        ..validator.limits()
    };
    let validator = validator.with_limits(checked);
    let mode = super::mode_flag(a.lax, a.strict).unwrap_or(validator.default_mode());
    let arguments = match validator.validate_str(text, mode) {
        Ok(v) => {
            if a.format == CallFormat::Human {
                for c in &v.coercions {
                    let to =
                        c.to.as_ref()
                            .map_or("(absent)".to_string(), |t| t.to_string());
                    let at = if c.path.is_empty() { "/" } else { &c.path };
                    to_stderr(&format!(
                        "coerced {at} ({}): {} → {to}\n",
                        c.rule.as_str(),
                        c.from
                    ));
                }
            }
            v.into_arguments()
        }
        Err(e) => {
            let out = match a.format {
                CallFormat::Human => format!("{}\n", e.message()),
                CallFormat::Json => pretty(&json!({
                    "valid": false,
                    "errors": e.errors_json(),
                    "message": e.message(),
                })),
            };
            to_stdout(&out);
            return Ok(EXIT_ERRORS);
        }
    };
    let result = client
        .call(&a.tool, arguments)
        .await
        .map_err(|e| format!("{server}: {e}"))?;
    let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
    let out = match a.format {
        CallFormat::Json => pretty(&result),
        CallFormat::Human => human_result(&result),
    };
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    Ok(if failed { EXIT_ERRORS } else { 0 })
}

/// The warning for a listed tool whose definition holds an invisible or control character (the
/// tool-poisoning guard of [`tooldef::hidden`], as `import` applies it), naming where.
pub(crate) fn poisoning(server: &str, tool: &Value) -> Option<String> {
    let (at, hidden) = tooldef::hidden::find_in_value(tool)?;
    let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
    Some(format!(
        "warning: {server}: tool `{}` holds the invisible character {} ({}) at `{}`: text a \
         model reads but a reviewer does not see, a way to hide instructions (tool poisoning)",
        tooldef::hidden::reveal(name),
        hidden.code_point(),
        hidden.class.describe(),
        if at.is_empty() { "/" } else { &at }
    ))
}

/// `text` for a terminal: each control, invisible or bidirectional character but line breaks
/// and tabs written as `<U+XXXX>`, so that a result cannot move the cursor, recolour the screen
/// or hide text.
fn for_terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && c != '\t' && tooldef::hidden::class(c).is_some() {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The text blocks, one after another (other blocks as a `[type]` line), then the structured
/// content as pretty JSON, made safe for a terminal.
fn human_result(result: &Value) -> String {
    for_terminal(&human_text(result))
}

/// [`human_result`] as the server sent it.
fn human_text(result: &Value) -> String {
    let mut out = String::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match (
            block.get("type").and_then(Value::as_str),
            block.get("text").and_then(Value::as_str),
        ) {
            (Some("text"), Some(text)) => out.push_str(text),
            (kind, _) => {
                let mime = block
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .map(|m| format!(" {m}"))
                    .unwrap_or_default();
                out.push_str(&format!("[{}{mime}]", kind.unwrap_or("content")));
            }
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    if let Some(structured) = result.get("structuredContent") {
        out.push_str(&pretty(structured));
    }
    out
}

/// The argument text: inline when it starts with `{`, else a file, else standard input.
fn read_arguments(args: Option<&str>, limits: &InputLimits) -> Result<String, String> {
    let text = match args {
        Some(s) if s.trim_start().starts_with('{') => s.to_string(),
        other => {
            let raw = read_input(&PathBuf::from(other.unwrap_or("-")), limits.args())?;
            String::from_utf8(raw.bytes).map_err(|e| format!("{} is not UTF-8: {e}", raw.name))?
        }
    };
    Ok(text
        .strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text))
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::{for_terminal, human_result, poisoning};
    use serde_json::json;

    /// A result cannot drive the terminal: escape sequences, bidirectional overrides and tag
    /// characters are shown as code points; line breaks and tabs stay.
    #[test]
    fn results_are_made_safe_for_a_terminal() {
        assert_eq!(
            for_terminal("a\u{1b}[2Jb\n\u{202E}c\t\u{E0041}"),
            "a<U+001B>[2Jb\n<U+202E>c\t<U+E0041>"
        );
        let result = json!({"content": [{"type": "text", "text": "\u{1b}]0;owned\u{7}done"}]});
        assert_eq!(human_result(&result), "<U+001B>]0;owned<U+0007>done\n");
    }

    #[test]
    fn a_poisoned_listing_is_named_where_it_hides() {
        let clean = json!({"name": "t", "description": "Adds."});
        assert!(poisoning("s", &clean).is_none());
        let tool = json!({"name": "t", "inputSchema": {"properties": {"a": {"description": "x\u{E0041}"}}}});
        let warning = poisoning("s", &tool).expect("flagged");
        assert!(warning.contains("U+E0041"), "{warning}");
        assert!(
            warning.contains("/inputSchema/properties/a/description"),
            "{warning}"
        );
    }
}
