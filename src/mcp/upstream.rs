//! Another MCP server's tools as this runtime's handlers: a validating proxy.
//!
//! [`Upstream::connect`] lists the server's tools (every page) and imports them as
//! `import --from mcp` does, into a [`Toolset`]; [`Upstream::runtime`] registers one handler per
//! tool that sends the call to the server. A call is validated locally first, against the
//! listed schema, and runs under the runtime's policies (timeout, retry, on-error, approval and
//! its audit), so an invalid call gets the validator's message and never reaches the server.
//! `tooldef serve --upstream` serves a server's tools this way.
//!
//! A handler gives back the server's result as a value: its `structuredContent` when it has
//! one, else the text of its text blocks (one string), else its content blocks as JSON. A result
//! with `isError: true` is a handler error whose message is that text, so the tool's
//! `@on_error` and `@retry` apply to it as to a local handler's failure.

use std::sync::Arc;

use serde_json::{json, Value};

use super::client::{Client, ClientError};
use crate::import::{Dialect, ImportError, Options, Refusal, Warning};
use crate::runtime::{Handler, Runtime, ToolError};
use crate::{Errors, Source, Toolset};

/// Why a server's tools could not be taken on.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// Listing the tools failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// No tool of the listing could be imported.
    #[error("the server's tools cannot be imported:\n{0}")]
    Import(ImportError),
    /// The imported source did not compile (a bug of the importer: it checks what it writes).
    #[error("the server's imported tools do not compile:\n{0}")]
    Compile(Errors),
}

/// A server whose tools are served through this runtime.
#[derive(Debug)]
pub struct Upstream {
    client: Arc<Client>,
    toolset: Arc<Toolset>,
    warnings: Vec<Warning>,
    refused: Vec<Refusal>,
}

impl Upstream {
    /// Lists `client`'s tools and imports them (`options` as for `import --from mcp`; a tool
    /// the importer cannot express is left out and listed in [`Upstream::refused`], unless
    /// `options.strict`). `name` names the source of the imported tools in diagnostics.
    pub async fn connect(
        client: Client,
        name: &str,
        options: &Options,
    ) -> Result<Upstream, UpstreamError> {
        let tools = client.list_tools().await?;
        let imported = crate::import::import(&json!({ "tools": tools }), Dialect::Mcp, options)
            .map_err(UpstreamError::Import)?;
        let toolset =
            Toolset::new([Source::new(name, imported.source)]).map_err(UpstreamError::Compile)?;
        Ok(Upstream {
            client: Arc::new(client),
            toolset: Arc::new(toolset),
            warnings: imported.warnings,
            refused: imported.refused,
        })
    }

    /// The server's tools, as imported.
    pub fn toolset(&self) -> &Arc<Toolset> {
        &self.toolset
    }

    /// What the import changed or left out of the tools it kept (e.g. hidden characters
    /// removed from a description).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The tools the server lists that could not be imported, and so are not served.
    pub fn refused(&self) -> &[Refusal] {
        &self.refused
    }

    /// The handler that calls the server's tool `name` with the (validated) arguments.
    pub fn handler(&self, name: &str) -> Handler {
        let client = Arc::clone(&self.client);
        let name = name.to_string();
        Handler::new(move |args: Value| {
            let client = Arc::clone(&client);
            let name = name.clone();
            async move {
                let result = client
                    .call(&name, args)
                    .await
                    .map_err(ToolError::from_error)?;
                result_value(&result)
            }
        })
    }

    /// A runtime over [`Upstream::toolset`] with every tool handled by the server.
    pub fn runtime(&self) -> Runtime {
        let mut runtime = Runtime::new(Arc::clone(&self.toolset));
        for name in self.toolset.names() {
            // Every name is the set's own, so registering cannot fail.
            let _ = runtime.register(name, self.handler(name));
        }
        runtime
    }
}

/// A `CallToolResult` as a handler's value (see the module's text), or its error.
fn result_value(result: &Value) -> Result<Value, ToolError> {
    let content = result.get("content").and_then(Value::as_array);
    let texts: Option<Vec<&str>> = content.map(|blocks| {
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect()
    });
    let all_text = content.is_some_and(|blocks| {
        blocks
            .iter()
            .all(|b| b.get("type").and_then(Value::as_str) == Some("text"))
    });
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let message = texts
            .filter(|t| !t.is_empty())
            .map(|t| t.join("\n"))
            .unwrap_or_else(|| "the server's tool failed and said nothing".to_string());
        return Err(ToolError::new(message));
    }
    if let Some(structured) = result.get("structuredContent") {
        return Ok(structured.clone());
    }
    match (texts, all_text) {
        (Some(t), true) => Ok(Value::String(t.join("\n"))),
        _ => Ok(content.map_or(Value::Null, |c| Value::Array(c.clone()))),
    }
}

#[cfg(test)]
mod tests {
    use super::result_value;
    use serde_json::json;

    #[test]
    fn results_become_values_and_errors() {
        let text =
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        assert_eq!(result_value(&text).unwrap(), json!("a\nb"));
        let structured =
            json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {"x": 1}});
        assert_eq!(result_value(&structured).unwrap(), json!({"x": 1}));
        let image =
            json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]});
        assert_eq!(result_value(&image).unwrap(), image["content"]);
        let failed =
            json!({"content": [{"type": "text", "text": "no such city"}], "isError": true});
        assert_eq!(result_value(&failed).unwrap_err().message(), "no such city");
        let silent = json!({"content": [], "isError": true});
        assert!(result_value(&silent)
            .unwrap_err()
            .message()
            .contains("said nothing"));
    }
}
