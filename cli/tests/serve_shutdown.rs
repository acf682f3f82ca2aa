//! `tooldef serve --http` stops gracefully: on SIGTERM a running call finishes and is answered,
//! then the process exits 0.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

#[test]
fn sigterm_lets_a_running_call_finish_then_exits() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tools.tool"),
        "/// Echo, slowly.\ntool slow {\n  /// Anything.\n  s: string\n}\n",
    )
    .unwrap();
    // The handler says it started (a file), waits on a second file, then echoes its arguments.
    std::fs::write(
        dir.path().join("bindings.toml"),
        "[tools.slow]\ncommand = [\"sh\", \"-c\", \"touch started; while [ ! -e go ]; do sleep 0.05; done; cat\"]\n",
    )
    .unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args([
            "serve",
            "tools.tool",
            "--bind",
            "bindings.toml",
            "--log",
            "off",
            "--http",
            "127.0.0.1:0",
            "--shutdown-grace",
            "60",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tooldef serve starts");
    let mut err = BufReader::new(server.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("serving MCP on ")
        .unwrap_or_else(|| panic!("no address line, got {first:?}"))
        .to_string();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = dir.path().join("started");
    let go = dir.path().join("go");
    let pid = server.id().to_string();
    let result = rt.block_on(async {
        let client = tooldef::mcp::Client::connect_http(&url, None)
            .await
            .expect("connects");
        let call = tokio::spawn(async move {
            let r = client.call("slow", json!({"s": "hi"})).await;
            client.close().await;
            r
        });
        // Wait (bounded) for the handler to be running, then ask the server to stop.
        let deadline = Instant::now() + Duration::from_secs(60);
        while !started.exists() {
            assert!(Instant::now() < deadline, "the handler never started");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(killed.success());
        // The stop is under way (its line on stderr) while the call still runs; let it end.
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        assert!(line.contains("stopping"), "{line}");
        std::fs::write(&go, "").unwrap();
        call.await.expect("joined")
    });
    let result = result.expect("the running call was answered");
    assert_ne!(result["isError"], true, "{result}");
    assert!(result.to_string().contains("hi"), "{result}");
    let status = server.wait().expect("exits");
    assert!(status.success(), "{status:?}");
}
