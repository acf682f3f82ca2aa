//! Reading another MCP server's tools, and calling them: a small client over `rmcp`.
//!
//! [`Client::connect_stdio`] starts a server as a child process and speaks MCP over its standard
//! input and output (the child's standard error is left to ours, so that its complaints show);
//! [`Client::connect_http`] speaks streamable HTTP to a URL, optionally with a bearer token.
//! [`Client::list_tools`] follows `nextCursor` until the last page, and [`Client::call`] calls a
//! tool. Tools and results are handed back as JSON (as `rmcp` reads them and writes them back),
//! so that the importer (`--from mcp`) and the validator take them exactly as they would take a
//! `tools/list` file.
//!
//! Every request (and the handshake) is bounded by [`Client::timeout`], one minute by default.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, PaginatedRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

/// How long the handshake and each request may take unless [`Client::with_timeout`] says.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The most pages [`Client::list_tools`] reads: a server whose cursors never end is an error,
/// not a loop.
pub const MAX_PAGES: usize = 10_000;

/// The most bytes of tools [`Client::list_tools`] gathers over all pages (measured as the
/// schemas' text is: strings and keys, and one byte for every other part) unless
/// [`Client::with_max_listed_bytes`] says otherwise: the size limit of an import read from a
/// file. A server is read a message at a time (the transport drops a message past 16 MiB), and
/// without it a server that answered every page with more tools held the client's memory until
/// allocation failed.
pub const DEFAULT_MAX_LISTED_BYTES: usize = 10 << 20;

/// What can go wrong talking to a server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// `connect_stdio` was given no program.
    #[error("the server command is empty")]
    EmptyCommand,
    /// The server's program could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program, as given.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The MCP handshake failed (the server exited, answered something else, or refused).
    #[error("cannot connect to the MCP server: {0}")]
    Connect(String),
    /// A request failed: the transport closed, or the server answered with an error.
    #[error("`{method}` failed: {message}")]
    Request {
        /// The MCP method, e.g. `tools/list`.
        method: &'static str,
        /// What the transport or the server said.
        message: String,
    },
    /// The server did not answer in time.
    #[error("`{method}` timed out after {} s", .after.as_secs_f64())]
    Timeout {
        /// The MCP method, or `initialize` for the handshake.
        method: &'static str,
        /// The limit that passed.
        after: Duration,
    },
    /// `tools/list` kept returning a `nextCursor` past [`MAX_PAGES`] pages, or repeated one.
    #[error("`tools/list` does not end: {0}")]
    Pagination(String),
    /// The tools of `tools/list`, over its pages, hold more than the limit.
    #[error("`tools/list` is larger than the limit of {limit} bytes (its tools, all pages)")]
    TooLarge {
        /// The limit, in bytes of JSON.
        limit: usize,
    },
    /// The arguments of [`Client::call`] are not a JSON object.
    #[error("the arguments of a tool call must be a JSON object, not {0}")]
    ArgumentsNotObject(&'static str),
}

/// A connection to one MCP server.
pub struct Client {
    service: RunningService<RoleClient, ()>,
    timeout: Duration,
    max_listed_bytes: usize,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

async fn bounded<T>(
    method: &'static str,
    after: Duration,
    fut: impl std::future::Future<Output = T>,
) -> Result<T, ClientError> {
    tokio::time::timeout(after, fut)
        .await
        .map_err(|_| ClientError::Timeout { method, after })
}

impl Client {
    /// Starts `argv[0]` with the rest as its arguments (no shell) and connects over its standard
    /// input and output, waiting at most [`DEFAULT_TIMEOUT`] for the handshake.
    pub async fn connect_stdio(argv: &[String]) -> Result<Client, ClientError> {
        Client::connect_stdio_within(argv, DEFAULT_TIMEOUT).await
    }

    /// [`Client::connect_stdio`] with another limit for the handshake and for every request.
    pub async fn connect_stdio_within(
        argv: &[String],
        timeout: Duration,
    ) -> Result<Client, ClientError> {
        let (program, args) = argv.split_first().ok_or(ClientError::EmptyCommand)?;
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        let transport = TokioChildProcess::new(command).map_err(|source| ClientError::Spawn {
            program: program.clone(),
            source,
        })?;
        let service = bounded("initialize", timeout, ().serve(transport))
            .await?
            .map_err(|e| ClientError::Connect(e.to_string()))?;
        Ok(Client {
            service,
            timeout,
            max_listed_bytes: DEFAULT_MAX_LISTED_BYTES,
        })
    }

    /// Connects to a streamable HTTP endpoint; `bearer`, when given, is sent as
    /// `Authorization: Bearer <bearer>` with every request.
    pub async fn connect_http(url: &str, bearer: Option<String>) -> Result<Client, ClientError> {
        Client::connect_http_within(url, bearer, DEFAULT_TIMEOUT).await
    }

    /// [`Client::connect_http`] with another limit for the handshake and for every request.
    pub async fn connect_http_within(
        url: &str,
        bearer: Option<String>,
        timeout: Duration,
    ) -> Result<Client, ClientError> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        if let Some(token) = bearer {
            config = config.auth_header(token);
        }
        let transport = StreamableHttpClientTransport::from_config(config);
        let service = bounded("initialize", timeout, ().serve(transport))
            .await?
            .map_err(|e| ClientError::Connect(e.to_string()))?;
        Ok(Client {
            service,
            timeout,
            max_listed_bytes: DEFAULT_MAX_LISTED_BYTES,
        })
    }

    /// The same client with another limit for every later request.
    pub fn with_timeout(mut self, timeout: Duration) -> Client {
        self.timeout = timeout;
        self
    }

    /// The limit for each request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The same client with another limit on the bytes of tools [`Client::list_tools`] gathers.
    pub fn with_max_listed_bytes(mut self, bytes: usize) -> Client {
        self.max_listed_bytes = bytes;
        self
    }

    /// Every tool the server lists, following `nextCursor` to the last page, in the server's
    /// order; each as MCP's `Tool` JSON (`{name, title?, description?, inputSchema,
    /// outputSchema?, annotations?, ...}`).
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        let mut listed = 0usize;
        for _ in 0..MAX_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor.clone());
            let page = bounded(
                "tools/list",
                self.timeout,
                self.service.list_tools(Some(params)),
            )
            .await?
            .map_err(|e| ClientError::Request {
                method: "tools/list",
                message: e.to_string(),
            })?;
            for tool in page.tools {
                let tool = serde_json::to_value(tool).map_err(|e| ClientError::Request {
                    method: "tools/list",
                    message: e.to_string(),
                })?;
                listed = listed.saturating_add(crate::shape::value_len(&tool) as usize);
                if listed > self.max_listed_bytes {
                    return Err(ClientError::TooLarge {
                        limit: self.max_listed_bytes,
                    });
                }
                tools.push(tool);
            }
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) => {
                    if !seen.insert(next.clone()) {
                        return Err(ClientError::Pagination(format!(
                            "the cursor `{next}` came twice"
                        )));
                    }
                    cursor = Some(next);
                }
            }
        }
        Err(ClientError::Pagination(format!(
            "more than {MAX_PAGES} pages"
        )))
    }

    /// Calls `name` with `arguments` (a JSON object) and returns the `CallToolResult` as JSON
    /// (`{content, structuredContent?, isError?, ...}`). A tool that fails is a result with
    /// `isError: true`, not an error; an error is a failure of the transport or the protocol
    /// (e.g. a JSON-RPC error for a tool the server does not know).
    pub async fn call(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        let arguments = match arguments {
            Value::Object(map) => map,
            other => return Err(ClientError::ArgumentsNotObject(json_kind(&other))),
        };
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let result = bounded("tools/call", self.timeout, self.service.call_tool(params))
            .await?
            .map_err(|e| ClientError::Request {
                method: "tools/call",
                message: e.to_string(),
            })?;
        serde_json::to_value(result).map_err(|e| ClientError::Request {
            method: "tools/call",
            message: e.to_string(),
        })
    }

    /// Ends the session: closes the transport and, for a child process, waits a few seconds for
    /// it to exit (it is killed otherwise).
    pub async fn close(mut self) {
        let _ = self
            .service
            .close_with_timeout(Duration::from_secs(10))
            .await;
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
