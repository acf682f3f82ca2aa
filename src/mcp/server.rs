//! The MCP server: a toolset's tools listed as the `mcp` target emits them, every call validated
//! and run through its bound command under the tool's policies ([`crate::Runtime`]).
//!
//! - `tools/list` pages through the tools ([`ServerOptions::page_size`] a page; the cursor is
//!   the offset of the next page).
//! - `tools/call`: an unknown tool, and params that are not an object with a `name` and an
//!   object of `arguments`, are the JSON-RPC error -32602 (with a did-you-mean, or what is wrong
//!   with the params); invalid arguments, a handler that fails, times out or returns what
//!   `-> T` does not allow, and a tool without a binding are results with `isError: true` and a
//!   message the model can act on.
//! - `@requires_approval`: the client is asked through an elicitation request before the handler
//!   runs; declined, or a client without elicitation, is a tool error.
//! - `notifications/cancelled` stops the handler (its process is killed); a call that carries a
//!   progress token gets progress notifications while its handler runs.
//! - Every call writes one line to standard error: its audit record, as words or as JSON.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest, ContentBlock,
    CustomRequest, CustomResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, Implementation, InputRequest, InputRequests,
    InputRequiredResult, JsonRpcMessage, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use serde_json::Value;

use super::bindings::Bindings;
use super::stdio::RawArguments;
use crate::emit::{Options, Target};
use crate::envelope::as_text;
use crate::runtime::{
    Approval, Approver, Audit, CallError, CallErrorKind, CancelToken, RunOptions, Runtime,
};
use crate::validate::Arguments;
use crate::Toolset;

/// How the server logs each call on standard error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// One line of words a call.
    #[default]
    Text,
    /// One JSON object a line: the audit record.
    Json,
    /// Nothing.
    Off,
}

/// How the server behaves.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// How many tools a `tools/list` page holds.
    pub page_size: usize,
    /// How calls are logged.
    pub log: LogFormat,
    /// The `instructions` of `initialize` (by default, the first file's leading `//!` lines).
    pub instructions: Option<String>,
    /// How often a running handler reports progress, when the call asked for it.
    pub progress_every: Duration,
    /// Caps on the calls running at once ([`crate::runtime::Runtime::with_concurrency`]); the
    /// default (no caps) leaves the runtime's own.
    pub concurrency: crate::runtime::ConcurrencyLimits,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            page_size: 100,
            log: LogFormat::Text,
            instructions: None,
            progress_every: Duration::from_millis(500),
            concurrency: crate::runtime::ConcurrencyLimits::default(),
        }
    }
}

/// Why a server could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The `mcp` target refuses a tool (its errors, each carrying its file).
    #[error("the tools cannot be listed over MCP: {0}")]
    Target(crate::Errors),
}

/// An MCP server over a toolset and its bindings. Cheap to clone (the HTTP transport makes one
/// per session).
#[derive(Clone)]
pub struct ToolServer {
    inner: Arc<Inner>,
}

struct Inner {
    runtime: Runtime,
    tools: Vec<Tool>,
    /// The end of the message of a call to a tool without a handler.
    unbound: String,
    options: ServerOptions,
    /// What `/metrics` reports.
    metrics: super::metrics::Metrics,
}

/// The call being run, for the approver (which is registered once, for every call).
#[derive(Clone)]
struct CallContext {
    peer: Peer<RoleServer>,
    /// The client's answer to an approval asked for in an earlier round (protocol revisions
    /// without server-to-client requests answer in the call's `inputResponses`).
    answered: Option<Approval>,
}

tokio::task_local! {
    static CALL: CallContext;
}

/// The key of the approval request in an input-required result.
const APPROVAL_KEY: &str = "approval";

impl ToolServer {
    /// A server for `toolset`, running each tool through its binding.
    pub fn new(
        toolset: Arc<Toolset>,
        bindings: &Bindings,
        options: ServerOptions,
    ) -> Result<ToolServer, ServeError> {
        let runtime = bindings.runtime(toolset);
        let unbound = format!(
            "add a [tools.NAME] table to {}",
            if bindings.path.as_os_str().is_empty() {
                "a bindings file (--bind)".to_string()
            } else {
                bindings.path.display().to_string()
            }
        );
        ToolServer::with_runtime(runtime, &unbound, options)
    }

    /// A server over a runtime whose handlers the host registered (in-process handlers, for a
    /// program that embeds the server). The runtime's approver is replaced by one that asks the
    /// client through an elicitation request. `unbound` completes the message of a call to a
    /// tool without a handler ("tool `x` has no handler: {unbound}").
    pub fn with_runtime(
        runtime: Runtime,
        unbound: &str,
        options: ServerOptions,
    ) -> Result<ToolServer, ServeError> {
        let runtime = if options.concurrency == crate::runtime::ConcurrencyLimits::default() {
            runtime
        } else {
            runtime.with_concurrency(options.concurrency)
        };
        let toolset = runtime.toolset();
        let listed = toolset
            .emit_with(Target::Mcp, &Options { warnings: false })
            .map_err(ServeError::Target)?;
        let tools: Vec<Tool> = listed.json["tools"]
            .as_array()
            .map(|ts| {
                ts.iter()
                    .filter_map(|t| serde_json::from_value(t.clone()).ok())
                    .collect()
            })
            .unwrap_or_default();
        let mut options = options;
        if options.instructions.is_none() {
            options.instructions = toolset
                .sources()
                .first()
                .and_then(|s| instructions(s.text()));
        }
        Ok(ToolServer {
            inner: Arc::new(Inner {
                runtime: runtime.with_approver(Approver::new(ask_client)),
                tools,
                unbound: unbound.to_string(),
                options,
                metrics: super::metrics::Metrics::default(),
            }),
        })
    }

    /// The calls served so far, per tool and outcome, with a latency histogram per tool, in the
    /// Prometheus text format (what the HTTP transport serves at `/metrics`).
    pub fn metrics(&self) -> String {
        self.inner.metrics.render()
    }

    /// The tools as `tools/list` returns them, all pages together.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let inner = &self.inner;
        let name = request.name.to_string();
        let toolset = inner.runtime.toolset();
        let Some((_, tool)) = toolset.tool(&name) else {
            let hint = toolset
                .suggest(&name)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            log_unknown(inner.options.log, &name);
            inner.metrics.unknown();
            return Err(McpError::invalid_params(
                format!("unknown tool `{name}`{hint}"),
                None,
            ));
        };
        // Revisions from 2026-07-28 on forbid server-to-client requests: approval is asked for
        // in an input-required result, and answered when the client calls again.
        let rounds = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        // Arguments the stdio transport could not read are text, which the validator reads.
        let raw = context
            .extensions
            .get::<RawArguments>()
            .map(|r| r.0.as_str());
        let needs_approval = tool.requires_approval;
        let mut answered = None;
        if needs_approval && rounds {
            let answer = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get(APPROVAL_KEY));
            match answer {
                Some(v) => answered = Some(approval_of(serde_json::from_value(v.clone()).ok())),
                None => {
                    let supports = context
                        .client_capabilities()
                        .is_some_and(|c| c.elicitation.is_some());
                    if supports {
                        let shown = match raw {
                            Some(text) => text.to_string(),
                            None => pretty(&Value::Object(
                                request.arguments.clone().unwrap_or_default(),
                            )),
                        };
                        let ask = ElicitRequest::new(approval_request(&name, &shown));
                        let mut requests = InputRequests::new();
                        requests.insert(APPROVAL_KEY.to_string(), InputRequest::Elicitation(ask));
                        return Ok(InputRequiredResult::from_input_requests(requests).into());
                    }
                    answered = Some(Approval::deny_because(NO_ELICITATION));
                }
            }
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let arguments = match raw {
            Some(text) => Arguments::Text(text),
            None => Arguments::Value(&arguments),
        };
        let token = CancelToken::new();
        let progress = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let run = CALL.scope(
            CallContext {
                peer: peer.clone(),
                answered,
            },
            inner.runtime.call(
                &name,
                arguments,
                RunOptions::default().cancel(token.clone()),
            ),
        );
        tokio::pin!(run);
        let mut ticks = tokio::time::interval(inner.options.progress_every);
        let mut reported = 0u32;
        let result = loop {
            tokio::select! {
                r = &mut run => break r,
                () = context.ct.cancelled(), if !token.is_cancelled() => token.cancel(),
                _ = ticks.tick(), if progress.is_some() => {
                    if let Some(p) = &progress {
                        reported += 1;
                        let mut note = ProgressNotificationParam::new(p.clone(), f64::from(reported));
                        note.message = Some(format!("`{name}` is running"));
                        let _ = peer.notify_progress(note).await;
                    }
                }
            }
        };
        Ok(CallToolResponse::from(match result {
            Ok(reply) => {
                log(inner.options.log, &reply.audit);
                inner.metrics.record(&reply.audit);
                if reply.is_error {
                    CallToolResult::error(vec![ContentBlock::text(as_text(&reply.content))])
                } else {
                    let mut result =
                        CallToolResult::success(vec![ContentBlock::text(as_text(&reply.content))]);
                    if reply.content.is_object() {
                        result.structured_content = Some(reply.content);
                    }
                    result
                }
            }
            Err(e) => {
                log(inner.options.log, &e.audit);
                inner.metrics.record(&e.audit);
                CallToolResult::error(vec![ContentBlock::text(self.error_text(&name, &e))])
            }
        }))
    }

    fn error_text(&self, name: &str, e: &CallError) -> String {
        match &e.kind {
            CallErrorKind::NoHandler { .. } => format!(
                "tool `{name}` has no handler: {}",
                self.inner.unbound.replace("NAME", name)
            ),
            CallErrorKind::TimedOut { after } => format!(
                "tool `{name}` did not finish within {} ms and was stopped",
                after.as_millis()
            ),
            CallErrorKind::Cancelled => format!("the call of `{name}` was cancelled"),
            CallErrorKind::Failed(err) => format!("tool `{name}` failed: {}", err.message()),
            _ => e.to_string(),
        }
    }
}

/// Why a call that needs approval is refused when the client cannot be asked.
const NO_ELICITATION: &str =
    "requires approval, and the client cannot be asked (it does not support elicitation)";

/// Arguments as the approval shows them.
fn pretty(arguments: &Value) -> String {
    serde_json::to_string_pretty(arguments).unwrap_or_default()
}

/// The elicitation that asks to approve a call with the arguments `shown`.
fn approval_request(tool: &str, shown: &str) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!("Allow the tool `{tool}` to run with these arguments?\n{shown}"),
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    }
}

/// The decision an elicitation's answer stands for (`None`: no answer that can be read).
fn approval_of(result: Option<ElicitResult>) -> Approval {
    match result {
        Some(r) if r.action == ElicitationAction::Accept => {
            if r.content.as_ref().and_then(|c| c.get("approve")) == Some(&Value::Bool(false)) {
                Approval::deny_because("the user declined")
            } else {
                Approval::Approve
            }
        }
        Some(r) if r.action == ElicitationAction::Decline => {
            Approval::deny_because("the user declined")
        }
        Some(_) => Approval::deny_because("the user cancelled the approval"),
        None => Approval::deny_because("the client's answer to the approval could not be read"),
    }
}

/// The approver: the answer the client already gave in this call's round, or else a question
/// to the client of the call through an elicitation request.
async fn ask_client(request: crate::runtime::ApprovalRequest) -> Approval {
    let Ok(call) = CALL.try_with(CallContext::clone) else {
        return Approval::deny_because("requires approval, and there is no client to ask");
    };
    if let Some(answer) = call.answered {
        return answer;
    }
    let supports = call
        .peer
        .peer_info()
        .is_some_and(|info| info.capabilities.elicitation.is_some());
    if !supports {
        return Approval::deny_because(NO_ELICITATION);
    }
    match call
        .peer
        .create_elicitation(approval_request(&request.tool, &pretty(&request.arguments)))
        .await
    {
        Ok(r) => approval_of(Some(r)),
        Err(e) => Approval::deny_because(format!(
            "requires approval, and asking the client failed: {e}"
        )),
    }
}

/// The instructions of a source: its leading `//!` lines, without the marker.
pub fn instructions(source: &str) -> Option<String> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let lines: Vec<&str> = source
        .lines()
        .map(str::trim_start)
        .take_while(|l| l.starts_with("//!"))
        .map(|l| {
            let rest = &l[3..];
            rest.strip_prefix(' ').unwrap_or(rest)
        })
        .collect();
    let text = lines.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn log(format: LogFormat, audit: &Audit) {
    let line = match format {
        LogFormat::Off => return,
        LogFormat::Json => serde_json::to_string(audit).unwrap_or_default(),
        LogFormat::Text => {
            let valid = !matches!(audit.outcome, crate::runtime::CallOutcome::Invalid);
            let mut s = format!(
                "call {}: valid={valid} coercions={} attempts={} duration={:.1}ms outcome={}",
                audit.tool,
                audit.coercions.len(),
                audit.attempts,
                audit.duration.as_secs_f64() * 1000.0,
                serde_json::to_value(audit.outcome)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
            );
            if let Some(e) = &audit.error {
                s.push_str(": ");
                s.push_str(&e.replace('\n', " "));
            }
            s
        }
    };
    eprintln!("{line}");
}

fn log_unknown(format: LogFormat, name: &str) {
    match format {
        LogFormat::Json => eprintln!(
            "{}",
            serde_json::json!({"tool": name, "outcome": "unknown-tool"})
        ),
        LogFormat::Text => eprintln!("call {name}: unknown tool"),
        LogFormat::Off => {}
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("tooldef", env!("CARGO_PKG_VERSION"));
        info.instructions = self.inner.options.instructions.clone();
        info
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let all = &self.inner.tools;
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(c) => c
                .parse::<usize>()
                .ok()
                .filter(|&i| i < all.len())
                .ok_or_else(|| McpError::invalid_params(format!("invalid cursor `{c}`"), None))?,
        };
        let end = start
            .saturating_add(self.inner.options.page_size.max(1))
            .min(all.len());
        let mut page = ListToolsResult::with_all_items(all[start..end].to_vec());
        if end < all.len() {
            page.next_cursor = Some(end.to_string());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        Err(unread_request(&request))
    }
}

/// The answer to a request rmcp read as none of its own. rmcp reads a request whose params do
/// not have its method's shape (`tools/call` with `"arguments": 5`) as a custom one: for a
/// method this server serves, that is -32602 with what is wrong with the params; any other
/// method is -32601.
fn unread_request(request: &CustomRequest) -> McpError {
    use rmcp::model::{
        CallToolRequestMethod, ConstString, ErrorCode, InitializeRequestParams,
        InitializeResultMethod, ListToolsRequestMethod,
    };
    fn problem<T: serde::de::DeserializeOwned>(params: Option<&Value>) -> Option<String> {
        serde_json::from_value::<T>(params.cloned().unwrap_or(Value::Null))
            .err()
            .map(|e| e.to_string())
    }
    let method = request.method.as_str();
    let params = request.params.as_ref();
    let problem = if method == CallToolRequestMethod::VALUE {
        problem::<CallToolRequestParams>(params)
    } else if method == ListToolsRequestMethod::VALUE {
        problem::<Option<PaginatedRequestParams>>(params)
    } else if method == InitializeResultMethod::VALUE {
        problem::<InitializeRequestParams>(params)
    } else {
        return McpError::new(ErrorCode::METHOD_NOT_FOUND, method.to_string(), None);
    };
    let message = match problem {
        Some(why) => format!("invalid params of `{method}`: {why}"),
        None => format!("invalid params of `{method}`"),
    };
    McpError::invalid_params(message, None)
}

/// Serves over standard input and output until the client closes them. Logs go to standard
/// error, never to standard output.
pub async fn serve_stdio(server: ToolServer) -> std::io::Result<()> {
    use rmcp::ServiceExt;
    let transport = Lifecycle {
        inner: super::stdio::Lines::new(),
        initialized: false,
    };
    let running = server
        .serve(transport)
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

/// A transport that keeps the lifecycle for rmcp: it drops the notifications and responses a
/// client sends before its `initialize` request, and refuses an `initialize` sent once the
/// server is initialized.
///
/// rmcp answers requests that come before `initialize` (a ping, or an error), but ends the
/// session on any other message: one stray `notifications/initialized` or response sent too
/// early would stop the whole server. Nothing such a message could ask for is lost by dropping
/// it (a notification has no answer, and no request of the server's is pending yet).
///
/// Initialization is the first interaction between client and server (MCP 2024-11-05 to
/// 2025-11-25, "Lifecycle"), so a later `initialize` is an invalid request: -32600, and what
/// was negotiated stays. rmcp would hand it to the handler, which answered it as a first one.
struct Lifecycle<T> {
    inner: T,
    initialized: bool,
}

impl<T: rmcp::transport::Transport<RoleServer>> rmcp::transport::Transport<RoleServer>
    for Lifecycle<T>
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleServer>> {
        loop {
            let message = self.inner.receive().await?;
            if self.initialized {
                match message {
                    JsonRpcMessage::Request(r)
                        if matches!(r.request, ClientRequest::InitializeRequest(_)) =>
                    {
                        // Sent on its own task, so that a receive cancelled by the service's
                        // loop cannot cut the answer short.
                        tokio::spawn(self.inner.send(JsonRpcMessage::error(
                            McpError::invalid_request(
                                "the server is already initialized: `initialize` is only \
                                 valid as the first request",
                                None,
                            ),
                            Some(r.id),
                        )));
                        continue;
                    }
                    message => return Some(message),
                }
            }
            match &message {
                JsonRpcMessage::Request(r) => {
                    self.initialized = starts_session(&r.request);
                    return Some(message);
                }
                JsonRpcMessage::Notification(_)
                | JsonRpcMessage::Response(_)
                | JsonRpcMessage::Error(_) => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

/// Whether rmcp starts the session on this request: `initialize`, or (the lifecycle without
/// `initialize`) a request other than a ping or a discovery that carries the protocol version
/// and the client's capabilities in its `_meta`.
fn starts_session(request: &ClientRequest) -> bool {
    use rmcp::model::{GetMeta, ProtocolVersion};
    match request {
        ClientRequest::InitializeRequest(_) => true,
        ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => false,
        other => {
            let meta = other.get_meta();
            meta.protocol_version().is_some()
                && meta
                    .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty()
        }
    }
}
