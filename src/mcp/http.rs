//! Streamable HTTP: the MCP endpoint at `/mcp`, with an optional bearer token.
//!
//! With a token, a request without `Authorization: Bearer <token>` gets HTTP 401 (with
//! `WWW-Authenticate: Bearer`) before it reaches the MCP layer; the token is compared in constant
//! time and never logged. An address other than loopback is served only with a token
//! ([`HttpError::Unauthenticated`] otherwise): the endpoint runs commands, and is never open to
//! a network by accident.
//!
//! As the MCP specification asks, a request's `Origin` is validated (a page of another site is
//! answered 403, so that DNS rebinding cannot reach the endpoint) and so is its `Host` (the bound
//! address, `localhost`, `127.0.0.1`, `::1` and [`HttpOptions::allowed_hosts`]). The sessions the server keeps are capped
//! ([`HttpOptions::max_sessions`]): past the cap a new `initialize` is answered 503. Every
//! refusal, the SDK's included, carries a JSON-RPC error as its body (a body that is not JSON is
//! a parse error, -32700, with HTTP 400), so that an MCP client can read why.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;

use super::server::ToolServer;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The path of the health check: `200 {"status": "ok"}` while the process serves, without the
/// token.
pub const HEALTH: &str = "/healthz";

/// The path of the Prometheus metrics ([`ToolServer::metrics`]), behind the token when one is
/// set.
pub const METRICS: &str = "/metrics";

/// The default of [`HttpOptions::max_sessions`]: about 60 MB of sessions at the most.
pub const DEFAULT_MAX_SESSIONS: usize = 1_000;

/// The origins a browser page may call the endpoint from by default: pages served on loopback.
pub const LOOPBACK_ORIGINS: [&str; 3] =
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// How the HTTP endpoint is guarded.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The bearer token every request must carry (`None`: no token).
    pub token: Option<String>,
    /// The `Origin`s a request may come from (with a scheme; `:*` matches any port), beside
    /// [`LOOPBACK_ORIGINS`]. A request without `Origin` (not from a browser) is let through.
    pub allowed_origins: Vec<String>,
    /// The most sessions kept at once.
    pub max_sessions: usize,
    /// The `Host`s (names or addresses, without a port) a request may name beside the bound
    /// address and loopback's: the names a server beyond loopback is reached by.
    pub allowed_hosts: Vec<String>,
    /// Keep no session on the server: every request stands on its own, so that several
    /// processes can serve behind any load balancer (protocol revisions from 2026-07-28 on are
    /// always served this way).
    pub stateless: bool,
    /// How long a session with no request lives (stateful mode).
    pub session_idle: Duration,
}

/// The default of [`HttpOptions::session_idle`]: five minutes.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            token: None,
            allowed_origins: Vec::new(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            allowed_hosts: Vec::new(),
            stateless: false,
            session_idle: DEFAULT_SESSION_IDLE,
        }
    }
}

/// Why HTTP serving stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The address is not a loopback address, and no authentication is configured.
    #[error(
        "{0} is not a loopback address, and serving beyond loopback needs authentication: give a bearer token (--token-env VAR), or bind 127.0.0.1 or ::1"
    )]
    Unauthenticated(SocketAddr),
    /// Binding or serving failed.
    #[error("cannot serve on {addr}: {error}")]
    Io {
        /// The address.
        addr: SocketAddr,
        /// What went wrong.
        error: std::io::Error,
    },
}

/// Binds `addr` (port 0 picks a free port) and returns the bound address and the server's
/// future, which runs until the process ends. [`bind_with`] with only a token.
pub async fn bind(
    server: ToolServer,
    addr: SocketAddr,
    token: Option<String>,
) -> Result<
    (
        SocketAddr,
        impl std::future::Future<Output = Result<(), HttpError>>,
    ),
    HttpError,
> {
    bind_with(
        server,
        addr,
        HttpOptions {
            token,
            ..HttpOptions::default()
        },
    )
    .await
}

/// Binds `addr` (port 0 picks a free port) with `options`, and returns the bound address and
/// the server's future, which runs until the process ends.
pub async fn bind_with(
    server: ToolServer,
    addr: SocketAddr,
    options: HttpOptions,
) -> Result<
    (
        SocketAddr,
        impl std::future::Future<Output = Result<(), HttpError>>,
    ),
    HttpError,
> {
    bind_until(
        server,
        addr,
        options,
        std::future::pending(),
        Duration::ZERO,
    )
    .await
}

/// [`bind_with`], with a graceful end: once `shutdown` completes (e.g. on SIGTERM) the server
/// takes no new connection and lets the requests in flight (running calls) finish, for at most
/// `grace`; then it closes every session and its future returns.
pub async fn bind_until(
    server: ToolServer,
    addr: SocketAddr,
    options: HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> Result<
    (
        SocketAddr,
        impl std::future::Future<Output = Result<(), HttpError>>,
    ),
    HttpError,
> {
    if !addr.ip().is_loopback() && options.token.is_none() {
        return Err(HttpError::Unauthenticated(addr));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|error| HttpError::Io { addr, error })?;
    let bound = listener
        .local_addr()
        .map_err(|error| HttpError::Io { addr, error })?;
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.session_idle);
    let sessions = Arc::new(manager);
    // The bound address is a host the endpoint answers to, whatever loopback address it is.
    let hosts = [
        "localhost".to_string(),
        "127.0.0.1".into(),
        "::1".into(),
        bound.ip().to_string(),
    ]
    .into_iter()
    .chain(options.allowed_hosts.iter().cloned());
    let origins = LOOPBACK_ORIGINS
        .iter()
        .map(|o| (*o).to_string())
        .chain(options.allowed_origins.iter().cloned());
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    config.legacy_session_mode = !options.stateless;
    let sessions_end = config.cancellation_token.clone();
    let observed = server.clone();
    let service =
        StreamableHttpService::new(move || Ok(server.clone()), Arc::clone(&sessions), config);
    let guard = Guard {
        token: options.token.map(Arc::<str>::from),
        sessions,
        max_sessions: options.max_sessions,
    };
    // `/metrics` is behind the token like the endpoint; `/healthz` is not, for a balancer's
    // probes (it says nothing but that the process serves).
    let app = Router::new()
        .nest_service(ENDPOINT, service)
        .route(
            METRICS,
            get(move || {
                let text = observed.metrics();
                async move {
                    (
                        [(
                            header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        text,
                    )
                }
            }),
        )
        .layer(middleware::from_fn_with_state(
            Arc::new(guard),
            guard_request,
        ))
        .route(
            HEALTH,
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"status":"ok"}"#,
                )
            }),
        );
    let (began, ending) = tokio::sync::oneshot::channel::<()>();
    let serving = async move {
        let served = axum::serve(listener, app).with_graceful_shutdown(async move {
            shutdown.await;
            let _ = began.send(());
        });
        let served = std::future::IntoFuture::into_future(served);
        tokio::pin!(served);
        let ended = tokio::select! {
            r = &mut served => r,
            // The grace runs from the signal; past it, what is still open is cut.
            () = async {
                if ending.await.is_ok() {
                    tokio::time::sleep(grace).await;
                } else {
                    std::future::pending::<()>().await;
                }
            } => Ok(()),
        };
        sessions_end.cancel();
        ended.map_err(|error| HttpError::Io { addr: bound, error })
    };
    Ok((bound, serving))
}

/// What every request passes before the MCP layer.
struct Guard {
    token: Option<Arc<str>>,
    sessions: Arc<LocalSessionManager>,
    max_sessions: usize,
}

/// A refusal: the HTTP status and a JSON-RPC error body (id `null`: the request was not read).
fn refusal(status: StatusCode, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// The most bytes of a refusal's text read back, to carry in its JSON-RPC body.
const REFUSAL_TEXT: usize = 4096;

/// Checks the token and the session cap, runs the request, and gives a refusal of the MCP layer
/// (whose bodies are plain text) a JSON-RPC body.
async fn guard_request(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    if let Some(refused) = authorize(guard.token.as_deref(), &request) {
        return refused;
    }
    let opens_session =
        request.method() == Method::POST && !request.headers().contains_key("mcp-session-id");
    if opens_session && guard.sessions.sessions.read().await.len() >= guard.max_sessions {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            &format!(
                "the server keeps {} sessions, its limit; close one (HTTP DELETE) or try later",
                guard.max_sessions
            ),
        );
    }
    let sent_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    let response = next.run(request).await;
    let status = response.status();
    let plain = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_none_or(|v| !v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() && plain) {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), REFUSAL_TEXT)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    match status {
        // JSON that does not read as a JSON-RPC message.
        StatusCode::UNSUPPORTED_MEDIA_TYPE if sent_json => refusal(
            StatusCode::BAD_REQUEST,
            -32700,
            &format!("parse error: {text}"),
        ),
        _ => refusal(status, -32600, &text),
    }
}

/// The refusal of a request without the token, when one is set (`None`: let through).
fn authorize(token: Option<&str>, request: &Request) -> Option<Response> {
    let token = token?;
    let sent = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match sent {
        Some(sent) if bool::from(sent.as_bytes().ct_eq(token.as_bytes())) => None,
        // The request's body is left unread, so the connection cannot carry another request:
        // say so, or a client that reuses it sees the connection drop without a response.
        _ => {
            let mut refused = refusal(
                StatusCode::UNAUTHORIZED,
                -32001,
                "missing or wrong bearer token",
            );
            let headers = refused.headers_mut();
            headers.insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
            headers.insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            Some(refused)
        }
    }
}
