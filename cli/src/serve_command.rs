//! `tooldef serve FILE... [--bind BINDINGS.toml] [--http ADDR [--token-env VAR]]`: the tools of
//! the files over MCP (the command line over [`tooldef::mcp`]); with `--upstream COMMAND` or
//! `--upstream-url URL` in place of the files, another server's tools, each call validated here
//! before it is sent there ([`tooldef::mcp::Upstream`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use tooldef::mcp::{http, Bindings, LogFormat, ServerOptions, ToolServer, Upstream};
use tooldef::{Source, Toolset};

use super::{read, read_input, render, style, to_stderr, InputLimits};

/// The arguments of `tooldef serve`.
#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// The `.tool` files whose tools to serve.
    #[arg(required_unless_present_any = ["upstream", "upstream_url"],
          conflicts_with_all = ["upstream", "upstream_url"])]
    files: Vec<PathBuf>,
    /// The bindings file: which command runs each tool (TOML; see the README). A tool without a
    /// binding is listed, and calling it is a tool error.
    #[arg(long = "bind", value_name = "BINDINGS.toml")]
    bindings: Option<PathBuf>,
    /// Serve the tools of this MCP server (started as a command line, split like a shell would
    /// but run without one) instead of files: each call is validated against the tool's listed
    /// schema here, and only a valid call is sent to it (a validating proxy).
    #[arg(long, value_name = "COMMAND", conflicts_with_all = ["upstream_url", "bindings"])]
    upstream: Option<String>,
    /// Serve the tools of the MCP server at this URL (streamable HTTP), as --upstream does.
    #[arg(long, value_name = "URL", conflicts_with = "bindings")]
    upstream_url: Option<String>,
    /// With --upstream-url: send `Authorization: Bearer <the value of VAR>` to it.
    #[arg(long, value_name = "VAR", requires = "upstream_url")]
    upstream_token_env: Option<String>,
    /// Serve streamable HTTP at this address (e.g. 127.0.0.1:8000) instead of stdio; the
    /// endpoint is `/mcp`. An address beyond loopback (e.g. 0.0.0.0:8000) needs --token-env.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// With --http: require `Authorization: Bearer <value of VAR>` on every request (HTTP 401
    /// otherwise).
    #[arg(long, value_name = "VAR", requires = "http")]
    token_env: Option<String>,
    /// With --http: a browser `Origin` allowed beside pages on loopback, with its scheme
    /// (`https://app.example.com`; `:*` for any port); repeatable. Other origins get 403.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allowed_origins: Vec<String>,
    /// With --http: a `Host` the server is reached by (a name or address, no port) beside the
    /// bound address and loopback's; repeatable. Requests naming another host get 403.
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    allowed_hosts: Vec<String>,
    /// With --http: the most sessions kept at once; a new `initialize` past it gets 503.
    #[arg(long, value_name = "N", default_value_t = http::DEFAULT_MAX_SESSIONS as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_sessions: u64,
    /// With --http: keep no session on the server, so that several processes can serve behind
    /// any load balancer.
    #[arg(long, requires = "http")]
    stateless: bool,
    /// With --http: close a session after this many seconds without a request.
    #[arg(long, value_name = "SECONDS", requires = "http",
          default_value_t = http::DEFAULT_SESSION_IDLE.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    session_idle: u64,
    /// With --http: on SIGTERM or Ctrl-C, let running calls finish for at most this many
    /// seconds, then stop.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    shutdown_grace: u64,
    /// The most calls whose handlers run at once; a call past it is answered that the server is
    /// busy (not queued).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_calls: Option<u64>,
    /// The most calls of one tool whose handlers run at once; past it, busy.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_calls_per_tool: Option<u64>,
    /// How each call is logged on standard error.
    #[arg(long, value_enum, default_value_t = LogArg::Text)]
    log: LogArg,
    /// How many tools a `tools/list` page holds.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    page_size: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogArg {
    /// One line of words a call.
    Text,
    /// One JSON object a line: the call's audit record.
    Json,
    /// Nothing.
    Off,
}

pub(crate) fn run(a: &ServeArgs, limits: &InputLimits) -> Result<u8, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let options = ServerOptions {
        page_size: usize::try_from(a.page_size).unwrap_or(usize::MAX),
        log: match a.log {
            LogArg::Text => LogFormat::Text,
            LogArg::Json => LogFormat::Json,
            LogArg::Off => LogFormat::Off,
        },
        concurrency: tooldef::runtime::ConcurrencyLimits {
            total: a
                .max_calls
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            per_tool: a
                .max_calls_per_tool
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        },
        ..ServerOptions::default()
    };
    let server = if a.upstream.is_some() || a.upstream_url.is_some() {
        runtime.block_on(upstream_server(a, limits, options))?
    } else {
        files_server(a, limits, options)?
    };
    let token = match &a.token_env {
        Some(var) => match std::env::var(var) {
            Ok(v) if !v.is_empty() => Some(v),
            _ => {
                return Err(format!(
                    "--token-env {var}: the variable is not set or empty"
                ))
            }
        },
        None => None,
    };
    runtime.block_on(async move {
        match a.http {
            None => tooldef::mcp::serve_stdio(server)
                .await
                .map_err(|e| format!("serving on standard input and output: {e}")),
            Some(addr) => {
                let options = http::HttpOptions {
                    token,
                    allowed_origins: a.allowed_origins.clone(),
                    max_sessions: usize::try_from(a.max_sessions).unwrap_or(usize::MAX),
                    allowed_hosts: a.allowed_hosts.clone(),
                    stateless: a.stateless,
                    session_idle: std::time::Duration::from_secs(a.session_idle),
                };
                let grace = std::time::Duration::from_secs(a.shutdown_grace);
                let (bound, serving) =
                    http::bind_until(server, addr, options, stop_signal(), grace)
                        .await
                        .map_err(|e| e.to_string())?;
                // The address first, so that a caller who asked for port 0 learns the port.
                eprintln!("serving MCP on http://{bound}{}", http::ENDPOINT);
                serving.await.map_err(|e| e.to_string())
            }
        }
    })?;
    Ok(0)
}

/// Completes on SIGTERM (how a service manager or a container runtime stops a process) or
/// Ctrl-C.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    eprintln!("stopping: letting running calls finish");
}

/// The server of another server's tools (`--upstream`, `--upstream-url`): what the import
/// changed or left out is said on standard error; a server none of whose tools can be imported
/// is an error.
async fn upstream_server(
    a: &ServeArgs,
    limits: &InputLimits,
    options: ServerOptions,
) -> Result<ToolServer, String> {
    let remote = super::mcp_client_command::Remote {
        server: a.upstream.clone(),
        url: a.upstream_url.clone(),
        token_env: a.upstream_token_env.clone(),
    };
    let name = remote.name();
    let client = remote.connect(limits).await?;
    let upstream = Upstream::connect(client, &name, &tooldef::import::Options::default())
        .await
        .map_err(|e| format!("{name}: {e}"))?;
    // A hidden character removed (the tool-poisoning guard) is said in full; the rest of what
    // the import changed (titles dropped, objects closed) is counted.
    let mut notes = 0;
    for w in upstream.warnings() {
        if w.code == tooldef::Code::ForbiddenCharacter {
            to_stderr(&format!("warning: {name}: {w}\n"));
        } else {
            notes += 1;
        }
    }
    if notes > 0 {
        to_stderr(&format!(
            "note: {name}: the import changed {notes} thing(s) of its tools; `tooldef import --from mcp` with the same server lists them\n"
        ));
    }
    for r in upstream.refused() {
        to_stderr(&format!("warning: {name}: not served: {r}\n"));
    }
    ToolServer::with_runtime(
        upstream.runtime(),
        "the upstream server handles every tool",
        options,
    )
    .map_err(|e| e.to_string())
}

/// The server of the files' tools, each run through its binding.
fn files_server(
    a: &ServeArgs,
    limits: &InputLimits,
    options: ServerOptions,
) -> Result<ToolServer, String> {
    let mut sources = Vec::with_capacity(a.files.len());
    for f in &a.files {
        if f.as_os_str() == "-" {
            return Err("the tool files cannot come from standard input when serving".into());
        }
        let input = read_input(f, limits.input())?;
        let text = String::from_utf8(input.bytes)
            .map_err(|e| format!("{} is not UTF-8: {e}", input.name))?;
        sources.push(Source::new(input.name, text));
    }
    let toolset = match limits.toolset(sources) {
        Ok(t) => Arc::new(t),
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
    let bindings = match &a.bindings {
        Some(path) => load_bindings(path, &toolset, limits)?,
        None => Bindings::default(),
    };
    ToolServer::new(toolset, &bindings, options).map_err(|e| e.to_string())
}

/// [`Bindings::load`], reading the file through the input limit.
pub(crate) fn load_bindings(
    path: &std::path::Path,
    toolset: &Toolset,
    limits: &InputLimits,
) -> Result<Bindings, String> {
    let name = path.display().to_string();
    let bytes = read::read_file_bounded(path, limits.input())?;
    let text = String::from_utf8(bytes).map_err(|e| format!("{name} is not UTF-8: {e}"))?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    Bindings::parse(&text, &name, dir, toolset).map_err(|e| e.to_string())
}
