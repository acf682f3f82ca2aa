//! Load on the MCP server over streamable HTTP: concurrent clients make mixed valid and invalid
//! calls of one tool whose handler answers at once, against tooldef's server and against the same
//! tool on the Python SDK's server (`benches/mcp/echo_server.py`, pydantic validation from type
//! hints), driven by the same Rust client (rmcp) in the same run.
//!
//! For each server: calls per second, the p50 and p99 latency a call sees, that every call got
//! exactly one answer of the right kind (the echo carries the call's own id; an invalid call is an
//! `isError` result), and the resident memory after the first and the second half of the calls.
//!
//! `cargo bench --bench mcp_load` runs 4 clients × 2,500 calls; `cargo test --benches` runs a
//! few calls on each side (the Python side only when python3 and the `mcp` package are there).

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tooldef::mcp::{http, LogFormat, ServerOptions, ToolServer};
use tooldef::runtime::{Handler, Runtime, ToolError};
use tooldef::Toolset;

const TOOLS: &str = r#"
/// Echo the arguments back.
tool echo {
  message: string @min_length(1)
  times?: integer @min(1) @max(5) = 1
  tags?: string[]
}
"#;

/// Every fourth call is invalid (an empty message, or `times` out of range).
fn arguments(client: usize, i: usize) -> (Value, bool) {
    let id = format!("c{client}-{i}");
    match i % 8 {
        3 => (json!({"message": "", "times": 2}), false),
        7 => (json!({"message": id, "times": 9}), false),
        k => (
            json!({"message": id, "times": 1 + k % 5, "tags": ["a", "b"]}),
            true,
        ),
    }
}

struct Report {
    calls: usize,
    seconds: f64,
    p50: Duration,
    p99: Duration,
    rss_half: Option<u64>,
    rss_end: Option<u64>,
}

/// Resident memory of a process in KiB, from /proc.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

async fn load(url: &str, clients: usize, per_client: usize, pid: u32) -> Report {
    let mut sessions = Vec::new();
    for _ in 0..clients {
        let transport = StreamableHttpClientTransport::from_uri(url.to_string());
        sessions.push(Arc::new(
            ().serve(transport).await.expect("the client connects"),
        ));
    }
    let rss_half = Arc::new(std::sync::Mutex::new(None));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (c, session) in sessions.iter().enumerate() {
        let session = Arc::clone(session);
        let rss_half = Arc::clone(&rss_half);
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(per_client);
            for i in 0..per_client {
                if c == 0 && i == per_client / 2 {
                    *rss_half.lock().unwrap() = rss_kib(pid);
                }
                let (args, valid) = arguments(c, i);
                let Value::Object(map) = args.clone() else {
                    unreachable!()
                };
                let t = Instant::now();
                let result = session
                    .call_tool(CallToolRequestParams::new("echo").with_arguments(map))
                    .await
                    .expect("every call is answered");
                latencies.push(t.elapsed());
                let error = result.is_error == Some(true);
                assert_eq!(error, !valid, "call {c}-{i}: {result:?}");
                if valid {
                    // The structured result, or the JSON of the text (a server may send only that).
                    let answer = result.structured_content.clone().or_else(|| {
                        let text = result.content.first()?.as_text()?.text.clone();
                        serde_json::from_str(&text).ok()
                    });
                    let answer = answer.unwrap_or_else(|| panic!("call {c}-{i}: {result:?}"));
                    let got = answer.get("received").unwrap_or(&answer);
                    assert_eq!(
                        got["message"], args["message"],
                        "call {c}-{i} got another's answer"
                    );
                }
            }
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await.expect("a client task"));
    }
    let seconds = start.elapsed().as_secs_f64();
    let rss_end = rss_kib(pid);
    for s in sessions {
        if let Ok(s) = Arc::try_unwrap(s) {
            let _ = s.cancel().await;
        }
    }
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    let rss_half = *rss_half.lock().unwrap();
    Report {
        calls: latencies.len(),
        seconds,
        p50: at(0.50),
        p99: at(0.99),
        rss_half,
        rss_end,
    }
}

fn print(name: &str, r: &Report) {
    println!(
        "{name:<22} {:>6} calls  {:>9.0} calls/s  p50 {:>8.3} ms  p99 {:>8.3} ms  RSS {} → {} KiB",
        r.calls,
        r.calls as f64 / r.seconds,
        r.p50.as_secs_f64() * 1e3,
        r.p99.as_secs_f64() * 1e3,
        r.rss_half.map_or("?".into(), |v| v.to_string()),
        r.rss_end.map_or("?".into(), |v| v.to_string()),
    );
}

fn python_server(port: u16) -> Option<Child> {
    let ok = Command::new("python3")
        .args(["-c", "import mcp, pydantic"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/mcp/echo_server.py");
    Command::new("python3")
        .args([script, &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (clients, per_client) = if full { (4, 2_500) } else { (2, 8) };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        // tooldef: the library's server with an in-process handler that answers at once.
        let toolset = Arc::new(Toolset::from_source(TOOLS).expect("the tool compiles"));
        let mut runtime = Runtime::new(toolset);
        runtime
            .register(
                "echo",
                Handler::new(|args| async move { Ok::<_, ToolError>(json!({"received": args})) }),
            )
            .expect("echo is a tool");
        let options = ServerOptions {
            log: LogFormat::Off,
            ..ServerOptions::default()
        };
        let server = ToolServer::with_runtime(runtime, "none", options).expect("a server");
        let (addr, serving) = http::bind(server, "127.0.0.1:0".parse().unwrap(), None)
            .await
            .expect("bound");
        tokio::spawn(serving);
        let ours = load(
            &format!("http://{addr}/mcp"),
            clients,
            per_client,
            std::process::id(),
        )
        .await;
        print("tooldef (in-process)", &ours);

        let port = free_port();
        let Some(mut child) = python_server(port) else {
            println!(
                "notice: python3 with the mcp package is missing; the Python SDK side is skipped"
            );
            return;
        };
        let url = format!("http://127.0.0.1:{port}/mcp");
        // Wait for the server to listen.
        let ready = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(100));
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        if ready {
            let theirs = load(&url, clients, per_client, child.id()).await;
            print("python sdk server", &theirs);
            println!(
                "throughput ratio tooldef / python sdk: {:.1}×",
                (ours.calls as f64 / ours.seconds) / (theirs.calls as f64 / theirs.seconds)
            );
        } else {
            println!("notice: the Python SDK server did not start; its side is skipped");
        }
        let _ = child.kill();
        let _ = child.wait();
    });
}
