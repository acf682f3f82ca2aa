//! The streamable HTTP endpoint's guard: `Origin` and `Host` validated as the MCP specification
//! asks, the sessions capped, and every refusal answered with a JSON-RPC error body. Raw HTTP/1.1
//! over loopback, so that each header is exactly what the test says.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tooldef::mcp::http::{self, HttpOptions};
use tooldef::mcp::{Bindings, LogFormat, ServerOptions, ToolServer};
use tooldef::Toolset;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// Serves one tool on `addr` with `options`, on a runtime of its own; returns the bound address.
fn serve(addr: &str, options: HttpOptions) -> Option<SocketAddr> {
    let toolset = Arc::new(Toolset::from_source("/// Echo.\ntool echo { s: string }\n").unwrap());
    let server = ToolServer::new(
        toolset,
        &Bindings::default(),
        ServerOptions {
            log: LogFormat::Off,
            ..ServerOptions::default()
        },
    )
    .expect("a server");
    let (sent, got) = std::sync::mpsc::channel();
    let addr: SocketAddr = addr.parse().unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            match http::bind_with(server, addr, options).await {
                Ok((bound, serving)) => {
                    let _ = sent.send(Some(bound));
                    let _ = serving.await;
                }
                Err(e) => {
                    eprintln!("notice: cannot bind {addr}: {e}");
                    let _ = sent.send(None);
                }
            }
        });
    });
    got.recv_timeout(Duration::from_secs(20)).expect("bound")
}

/// One POST to `/mcp` with the given extra headers and body; the status and the body.
fn post(addr: SocketAddr, headers: &[(&str, String)], body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| *k == "Host") {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = Vec::new();
    // An SSE answer stays open: read what comes until the first event is in.
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
        let text = String::from_utf8_lossy(&answer);
        if text.contains("\r\n\r\n") && (text.contains("data:") || !text.contains("event-stream")) {
            let head_end = text.find("\r\n\r\n").unwrap();
            let length = text[..head_end].lines().find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
            });
            if length.is_none_or(|n| answer.len() >= head_end + 4 + n) {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// The JSON-RPC error a refusal carries.
fn rpc_error(body: &str) -> Value {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(v["jsonrpc"], "2.0", "{body}");
    v["error"].clone()
}

#[test]
fn a_page_of_another_site_is_refused_and_loopback_pages_are_not() {
    let addr = serve(
        "127.0.0.1:0",
        HttpOptions {
            allowed_origins: vec!["https://app.example.com:443".into()],
            ..HttpOptions::default()
        },
    )
    .expect("loopback");
    for (origin, allowed) in [
        ("http://evil.example", false),
        ("https://app.example.com.evil.example", false),
        ("null", false),
        ("http://localhost:6274", true),
        ("http://127.0.0.1:3000", true),
        ("https://app.example.com", true),
    ] {
        let (status, body) = post(addr, &[("Origin", origin.to_string())], INITIALIZE);
        if allowed {
            assert_eq!(status, 200, "{origin}: {body}");
        } else {
            assert_eq!(status, 403, "{origin}: {body}");
            assert_eq!(rpc_error(&body)["code"], -32600, "{origin}");
        }
    }
    // No `Origin`: not a browser, let through.
    assert_eq!(post(addr, &[], INITIALIZE).0, 200);
}

#[test]
fn another_loopback_address_answers_to_its_own_host() {
    let Some(addr) = serve("127.0.0.2:0", HttpOptions::default()) else {
        return;
    };
    let (status, body) = post(addr, &[], INITIALIZE);
    assert_eq!(status, 200, "{body}");
    // A name that is not this server's is still refused (DNS rebinding).
    let (status, body) = post(addr, &[("Host", "evil.example".into())], INITIALIZE);
    assert_eq!(status, 403, "{body}");
    assert!(rpc_error(&body)["message"].is_string());
}

#[test]
fn a_body_that_is_not_json_rpc_is_a_parse_error() {
    let addr = serve("127.0.0.1:0", HttpOptions::default()).expect("loopback");
    for body in ["{", "not json", "[1, 2", "{\"jsonrpc\": 3}"] {
        let (status, answer) = post(addr, &[], body);
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(rpc_error(&answer)["code"], -32700, "{body}: {answer}");
    }
}

#[test]
fn a_missing_token_is_a_json_rpc_error() {
    let addr = serve(
        "127.0.0.1:0",
        HttpOptions {
            token: Some("right".into()),
            ..HttpOptions::default()
        },
    )
    .expect("loopback");
    let (status, body) = post(
        addr,
        &[("Authorization", "Bearer wrong".into())],
        INITIALIZE,
    );
    assert_eq!(status, 401);
    assert_eq!(rpc_error(&body)["code"], -32001);
    let (status, _) = post(
        addr,
        &[("Authorization", "Bearer right".into())],
        INITIALIZE,
    );
    assert_eq!(status, 200);
}

/// Sessions are capped: with caps that double, exactly the cap's number of `initialize`s open a
/// session and each one past it is answered 503 (11,000 sessions used to take 684 MB).
#[test]
fn sessions_stop_at_the_cap() {
    for cap in [2, 4, 8, 16] {
        let addr = serve(
            "127.0.0.1:0",
            HttpOptions {
                max_sessions: cap,
                ..HttpOptions::default()
            },
        )
        .expect("loopback");
        let mut opened = 0;
        for _ in 0..2 * cap {
            let (status, body) = post(addr, &[], INITIALIZE);
            match status {
                200 => opened += 1,
                503 => assert_eq!(rpc_error(&body)["code"], -32000),
                other => panic!("{other}: {body}"),
            }
        }
        assert_eq!(opened, cap, "cap {cap}");
    }
}

#[test]
fn beyond_loopback_needs_a_token_and_answers_to_the_hosts_allowed() {
    // Never open to a network by accident.
    let refused = serve("0.0.0.0:0", HttpOptions::default());
    assert_eq!(refused, None, "an unauthenticated wildcard bind was served");
    let Some(bound) = serve(
        "0.0.0.0:0",
        HttpOptions {
            token: Some("right".into()),
            allowed_hosts: vec!["tools.example".into()],
            ..HttpOptions::default()
        },
    ) else {
        return;
    };
    let addr: SocketAddr = format!("127.0.0.1:{}", bound.port()).parse().unwrap();
    let auth = ("Authorization", "Bearer right".to_string());
    // The token is asked for.
    let (status, body) = post(addr, &[], INITIALIZE);
    assert_eq!(status, 401, "{body}");
    // A host allowed, with or without a port, is answered; another is refused.
    for (host, expected) in [
        ("tools.example".to_string(), 200),
        (format!("tools.example:{}", bound.port()), 200),
        ("evil.example".to_string(), 403),
    ] {
        let (status, body) = post(addr, &[auth.clone(), ("Host", host.clone())], INITIALIZE);
        assert_eq!(status, expected, "{host}: {body}");
    }
}

#[test]
fn stateless_mode_answers_a_request_without_a_session() {
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#;
    let version = ("MCP-Protocol-Version", "2025-06-18".to_string());
    // Stateful (the default): a request outside a session is refused.
    let addr = serve("127.0.0.1:0", HttpOptions::default()).expect("loopback");
    let (status, body) = post(addr, std::slice::from_ref(&version), list);
    assert!((400..500).contains(&status), "{status}: {body}");
    // Stateless: every request stands on its own, so any process behind a balancer answers.
    let addr = serve(
        "127.0.0.1:0",
        HttpOptions {
            stateless: true,
            ..HttpOptions::default()
        },
    )
    .expect("loopback");
    let (status, body) = post(addr, &[version], list);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"echo\""), "{body}");
}

/// One GET; the status and the body.
fn get(addr: SocketAddr, path: &str, headers: &[(&str, String)]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[test]
fn health_is_open_and_metrics_count_calls_behind_the_token() {
    let addr = serve(
        "127.0.0.1:0",
        HttpOptions {
            token: Some("right".into()),
            stateless: true,
            ..HttpOptions::default()
        },
    )
    .expect("loopback");
    let auth = ("Authorization", "Bearer right".to_string());
    let (status, body) = get(addr, http::HEALTH, &[]);
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    assert_eq!(get(addr, http::METRICS, &[]).0, 401);
    let version = ("MCP-Protocol-Version", "2025-06-18".to_string());
    for (tool, n) in [("echo", 1), ("echo", 2), ("nope", 3)] {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"s":"x"}}}}}}"#
        );
        let (status, body) = post(addr, &[auth.clone(), version.clone()], &call);
        assert_eq!(status, 200, "{body}");
    }
    let (status, text) = get(addr, http::METRICS, &[auth]);
    assert_eq!(status, 200, "{text}");
    // The echo tool has no binding here: its calls end as errors, counted as such.
    assert!(
        text.contains("tooldef_calls_total{tool=\"echo\",outcome=\"error\"} 2\n"),
        "{text}"
    );
    assert!(
        text.contains("tooldef_unknown_tool_calls_total 1\n"),
        "{text}"
    );
    assert!(
        text.contains("tooldef_call_duration_seconds_count{tool=\"echo\"} 2\n"),
        "{text}"
    );
}
