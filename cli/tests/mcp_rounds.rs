//! `tooldef serve` on the newest protocol revision, driven by the official Rust SDK's client:
//! from 2026-07-28 on a server may not send requests to the client, so `@requires_approval` is
//! asked for in an input-required result and answered when the client calls again (the SDK's
//! client makes the rounds).

use std::path::PathBuf;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::json;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp")
}

/// A client that answers every elicitation with `action`, or declares no elicitation at all.
struct Answers(Option<ElicitationAction>);

impl ClientHandler for Answers {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.0.is_some() {
            capabilities = ClientCapabilities::builder().enable_elicitation().build();
        }
        ClientConfig::new(capabilities, Implementation::new("rounds-test", "1"))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(
            self.0.clone().unwrap_or(ElicitationAction::Decline),
        ))
    }
}

async fn call_delete(
    answer: Option<ElicitationAction>,
    lifecycle: ClientLifecycleMode,
) -> (ProtocolVersion, bool, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_tooldef"));
    command
        .arg("serve")
        .arg(dir().join("tools.tool"))
        .arg("--bind")
        .arg(dir().join("bindings.toml"))
        .arg("--log")
        .arg("off");
    let transport = TokioChildProcess::new(command).expect("tooldef serve starts");
    let client = Answers(answer)
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the session opens");
    let version = client
        .peer_info()
        .map(|i| i.protocol_version.clone())
        .unwrap_or_default();
    let mut params = CallToolRequestParams::new("delete_file");
    params.arguments = json!({"path": "/tmp/x"}).as_object().cloned();
    let result = client.call_tool(params).await.expect("a result");
    let _ = client.cancel().await;
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    (version, result.is_error == Some(true), text)
}

/// The newest revision: approval in input-required rounds; and 2025-11-25: approval through an
/// elicitation request of the server's. Both give the same answers.
#[tokio::test]
async fn approval_in_both_lifecycles() {
    let lifecycles = [
        (
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            ProtocolVersion::V_2026_07_28,
        ),
        (
            ClientLifecycleMode::Initialize,
            ProtocolVersion::V_2025_11_25,
        ),
    ];
    for (lifecycle, expected) in lifecycles {
        let (version, error, text) =
            call_delete(Some(ElicitationAction::Accept), lifecycle.clone()).await;
        assert_eq!(version, expected);
        assert!(!error, "{expected:?} accepted: {text}");
        assert!(text.contains("\"deleted\":\"/tmp/x\""), "{text}");

        let (_, error, text) =
            call_delete(Some(ElicitationAction::Decline), lifecycle.clone()).await;
        assert!(error, "{expected:?} declined: {text}");
        assert!(text.contains("declined"), "{text}");

        let (_, error, text) = call_delete(None, lifecycle).await;
        assert!(error, "{expected:?} no elicitation: {text}");
        assert!(text.contains("requires approval"), "{text}");
    }
}
