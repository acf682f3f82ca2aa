//! Serving a toolset over MCP, and reading another server's tools: on the official Rust SDK
//! (`rmcp`) and tokio, behind the `mcp` feature.
//!
//! - [`bindings`]: which command runs each tool (a TOML file);
//! - `process`: running a bound command for a call;
//! - [`server`]: the MCP server over a [`crate::Toolset`], on stdio;
//! - `stdio`: the server's stdio transport, which answers every line it cannot read;
//! - [`http`]: the same on streamable HTTP, on loopback, with an optional bearer token;
//! - [`client`]: another server's tools, listed and called;
//! - [`upstream`]: another server's tools as this runtime's handlers (a validating proxy).

pub mod bindings;
pub mod client;
pub mod http;
mod metrics;
mod process;
pub mod server;
mod stdio;
pub mod upstream;

pub use bindings::{Binding, Bindings, BindingsError};
pub use client::{Client, ClientError};
pub use server::{serve_stdio, LogFormat, ServeError, ServerOptions, ToolServer};
pub use upstream::{Upstream, UpstreamError};
