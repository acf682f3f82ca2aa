//! Streamable HTTP on loopback: the MCP endpoint at `/mcp`, with an optional bearer token.
//!
//! With a token, a request without `Authorization: Bearer <token>` gets HTTP 401 (with
//! `WWW-Authenticate: Bearer`) before it reaches the MCP layer; the token is compared in constant
//! time and never logged. Only loopback addresses are served: the endpoint runs commands.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;

use super::server::ToolServer;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// Why HTTP serving stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The address is not a loopback address.
    #[error(
        "{0} is not a loopback address; tooldef serves HTTP on loopback only (127.0.0.1, ::1)"
    )]
    NotLoopback(SocketAddr),
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
/// future, which runs until the process ends.
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
    if !addr.ip().is_loopback() {
        return Err(HttpError::NotLoopback(addr));
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = Router::new()
        .nest_service(ENDPOINT, service)
        .layer(middleware::from_fn_with_state(
            token.map(Arc::<str>::from),
            authorize,
        ));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|error| HttpError::Io { addr, error })?;
    let bound = listener
        .local_addr()
        .map_err(|error| HttpError::Io { addr, error })?;
    let serving = async move {
        axum::serve(listener, app)
            .await
            .map_err(|error| HttpError::Io { addr: bound, error })
    };
    Ok((bound, serving))
}

/// Lets a request through when no token is set or when it carries the token.
async fn authorize(
    State(token): State<Option<Arc<str>>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(token) = token else {
        return next.run(request).await;
    };
    let sent = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match sent {
        Some(sent) if bool::from(sent.as_bytes().ct_eq(token.as_bytes())) => {
            next.run(request).await
        }
        // The request's body is left unread, so the connection cannot carry another request:
        // say so, or a client that reuses it sees the connection drop without a response.
        _ => (
            StatusCode::UNAUTHORIZED,
            [
                (header::WWW_AUTHENTICATE, "Bearer"),
                (header::CONNECTION, "close"),
            ],
            "missing or wrong bearer token\n",
        )
            .into_response(),
    }
}
