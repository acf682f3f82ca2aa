//! Serving a toolset over MCP, and reading another server's tools: on the official Rust SDK
//! (`rmcp`) and tokio, behind the `mcp` feature.

pub mod client;
