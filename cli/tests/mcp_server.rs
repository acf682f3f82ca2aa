//! `tooldef serve` as clients see it: the MCP Python SDK drives the server over stdio and over
//! streamable HTTP (`tests/mcp/client.py` records what it saw, the assertions are here),
//! bindings errors stop the server at startup, and messages a client should not send (before
//! `initialize`, or malformed) neither stop nor hang it.
//!
//! The Python tests skip with a notice when python3 or the `mcp` package (2.x) is missing,
//! except when `CI=true`, where that is a failure.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};
use tooldef::emit::{self, Options, Target};

const BIN: &str = env!("CARGO_BIN_EXE_tooldef");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp")
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether the MCP Python SDK can be used; prints why not (or panics in CI).
fn python_with_mcp() -> bool {
    let check = "import sys, importlib.metadata as m\n\
                 import mcp.client.stdio, mcp.client.streamable_http, httpx2\n\
                 sys.exit(0 if int(m.version('mcp').split('.')[0]) >= 2 else 1)";
    let why = match Command::new("python3").args(["-c", check]).output() {
        Err(e) => format!("python3 cannot run: {e}"),
        Ok(out) if out.status.success() => return true,
        Ok(_) => "the Python package mcp (2.x) is not installed (pip install 'mcp>=2.3')".into(),
    };
    if in_ci() {
        panic!("{why}; CI must run the MCP client tests");
    }
    eprintln!("skipping the MCP Python client test: {why}");
    false
}

/// The tools as the `mcp` target emits them for the fixture.
fn expected_tools() -> Vec<Value> {
    let source = std::fs::read_to_string(fixtures().join("tools.tool")).expect("tools.tool");
    let module = tooldef::compile(&source)
        .expect("tools.tool compiles")
        .module;
    let emitted = emit::tools(&module, Target::Mcp, &Options::default()).expect("mcp target");
    emitted.json["tools"]
        .as_array()
        .expect("a tools array")
        .clone()
}

/// The fields of a listed tool that the target decides.
fn listed_fields(tool: &Value) -> Value {
    let keys = [
        "name",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ];
    Value::Object(
        keys.iter()
            .filter_map(|k| tool.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect(),
    )
}

/// The audit records among the lines of a server's standard error.
fn audit_records(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("tool").is_some())
        .collect()
}

fn text(call: &Value) -> String {
    call["text"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// What every transport must show the client (`out` is client.py's record) and log.
fn check_session(out: &Value, stderr: &str) {
    let show = |what: &str| {
        format!(
            "{what}: {}",
            serde_json::to_string_pretty(&out[what]).unwrap()
        )
    };

    assert_eq!(out["init"]["server"], "tooldef", "{}", show("init"));
    assert_eq!(
        out["init"]["instructions"],
        "Tools for testing `tooldef serve`: each handler is a small script in handlers/.",
        "{}",
        show("init")
    );

    // --page-size 2: four pages, all seven tools, as the mcp target emits them.
    assert_eq!(out["pages"], 4, "pages followed through next_cursor");
    let listed: Vec<Value> = out["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(listed_fields)
        .collect();
    let expected: Vec<Value> = expected_tools().iter().map(listed_fields).collect();
    assert_eq!(listed.len(), 7);
    assert_eq!(listed, expected, "tools/list differs from the mcp target");

    // The handler echoes what it received: the default is filled in.
    assert_eq!(out["echo"]["is_error"], false, "{}", show("echo"));
    assert_eq!(
        out["echo"]["structured"],
        json!({"received": {"message": "hi", "times": 1, "tags": ["a"]}}),
        "{}",
        show("echo")
    );
    assert_eq!(
        out["add"]["structured"],
        json!({"sum": 3}),
        "{}",
        show("add")
    );

    assert_eq!(out["invalid"]["is_error"], true, "{}", show("invalid"));
    assert!(
        text(&out["invalid"]).contains("`message`: must be at least 1 character long, got 0"),
        "{}",
        show("invalid")
    );

    assert_eq!(out["unknown"]["code"], -32602, "{}", show("unknown"));
    assert!(
        out["unknown"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool `ech`") && m.contains("`echo`")),
        "{}",
        show("unknown")
    );

    assert_eq!(out["crash"]["is_error"], true, "{}", show("crash"));
    assert!(
        text(&out["crash"]).contains("exited with status 3: something broke: boom"),
        "the crash's message holds the end of its stderr: {}",
        show("crash")
    );

    assert_eq!(
        out["wrong_output"]["is_error"],
        true,
        "{}",
        show("wrong_output")
    );
    assert!(
        text(&out["wrong_output"]).contains("does not fit its output type `{sum: number}`"),
        "{}",
        show("wrong_output")
    );

    assert_eq!(out["unbound"]["is_error"], true, "{}", show("unbound"));
    assert!(
        text(&out["unbound"]).contains("add a [tools.unbound] table to")
            && text(&out["unbound"]).contains("bindings.toml"),
        "{}",
        show("unbound")
    );

    // Timeout: 1.5 s allowed, 5 s asked; the handler's process is gone.
    let t = &out["timeout"];
    assert_eq!(t["is_error"], true, "{}", show("timeout"));
    assert!(
        text(t).contains("did not finish within 1500 ms"),
        "{}",
        show("timeout")
    );
    let secs = t["seconds"].as_f64().unwrap();
    assert!((1.4..4.0).contains(&secs), "{}", show("timeout"));
    assert_eq!(t["pid_seen"], true, "{}", show("timeout"));
    assert_eq!(t["killed"], true, "the timed-out handler still runs");

    // Cancellation: notifications/cancelled kills the handler.
    assert_eq!(out["cancel"]["pid_seen"], true, "{}", show("cancel"));
    assert_eq!(
        out["cancel"]["killed"],
        true,
        "the cancelled handler still runs: {}",
        show("cancel")
    );

    // Progress: a 1.1 s call reports at least twice (every 500 ms).
    let p = &out["progress"];
    assert_eq!(p["is_error"], false, "{}", show("progress"));
    let notes = p["notes"].as_array().unwrap();
    assert!(notes.len() >= 2, "{}", show("progress"));
    assert!(notes
        .iter()
        .all(|n| n["message"] == "`slow` is running" && n["progress"].as_f64() > Some(0.0)));

    // Approval through elicitation.
    assert_eq!(
        out["approve_accept"]["structured"],
        json!({"deleted": "/x"}),
        "{}",
        show("approve_accept")
    );
    assert_eq!(out["approve_decline"]["is_error"], true);
    assert!(
        text(&out["approve_decline"]).contains("the user declined"),
        "{}",
        show("approve_decline")
    );
    assert_eq!(out["approval_asked"].as_array().map(Vec::len), Some(2));
    assert!(out["approval_asked"][0]
        .as_str()
        .unwrap()
        .contains("Allow the tool `delete_file`"));
    assert_eq!(out["approve_unsupported"]["is_error"], true);
    assert!(
        text(&out["approve_unsupported"]).contains("requires approval"),
        "{}",
        show("approve_unsupported")
    );
    assert_eq!(out["after"]["structured"], json!({"sum": 3}));

    // The audit log: one record a call, with the outcomes the client saw.
    let records = audit_records(stderr);
    let outcomes: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            (
                r["tool"].as_str().unwrap_or("").to_string(),
                r["outcome"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    for want in [
        ("echo", "ok"),
        ("echo", "invalid"),
        ("ech", "unknown-tool"),
        ("crash", "error"),
        ("slow", "timed_out"),
        ("slow", "cancelled"),
        ("delete_file", "refused"),
        ("delete_file", "ok"),
    ] {
        assert!(
            outcomes.contains(&(want.0.to_string(), want.1.to_string())),
            "no audit record {want:?} in {outcomes:?}"
        );
    }
    assert_eq!(records.len(), 14, "one record a call: {outcomes:?}");
}

/// Runs client.py and parses the JSON it prints.
fn run_client(args: &[&str], pid_dir: &Path) -> (Value, String) {
    let out = Command::new("python3")
        .arg(fixtures().join("client.py"))
        .args(args)
        .env("TOOLDEF_TEST_PID_DIR", pid_dir)
        .current_dir(fixtures())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "client.py failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("client.py printed no JSON ({e}):\n{stdout}\n{stderr}"));
    (value, stderr)
}

#[test]
fn python_client_over_stdio() {
    if !python_with_mcp() {
        return;
    }
    let pids = tempfile::tempdir().unwrap();
    // The SDK starts the server; the server's stderr (its audit log) is the client's.
    let (out, stderr) = run_client(
        &[
            "stdio",
            "--",
            BIN,
            "serve",
            "tools.tool",
            "--bind",
            "bindings.toml",
            "--log",
            "json",
            "--page-size",
            "2",
        ],
        pids.path(),
    );
    check_session(&out, &stderr);
}

#[test]
fn python_client_over_http_with_token() {
    if !python_with_mcp() {
        return;
    }
    let pids = tempfile::tempdir().unwrap();
    let token = "tok-3f9a1c-never-logged";
    let mut server = Command::new(BIN)
        .args([
            "serve",
            "tools.tool",
            "--bind",
            "bindings.toml",
            "--log",
            "json",
            "--page-size",
            "2",
            "--http",
            "127.0.0.1:0",
            "--token-env",
            "TOOLDEF_TEST_TOKEN",
        ])
        .env("TOOLDEF_TEST_TOKEN", token)
        .env("TOOLDEF_TEST_PID_DIR", pids.path())
        .current_dir(fixtures())
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
    let rest = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let client = std::panic::catch_unwind(|| run_client(&["http", &url, token], pids.path()));
    let _ = server.kill();
    let _ = server.wait();
    let stderr = first + &rest.join().unwrap();
    let (out, _) = client.unwrap_or_else(|e| std::panic::resume_unwind(e));

    assert_eq!(
        out["http_no_token"]["status"], 401,
        "{}",
        out["http_no_token"]
    );
    assert_eq!(out["http_no_token"]["www_authenticate"], "Bearer");
    assert_eq!(out["http_wrong_token"]["status"], 401);
    check_session(&out, &stderr);
    assert!(
        !stderr.contains(token),
        "the token appears in the server's stderr:\n{stderr}"
    );
}

/// `tooldef serve` with a bindings file holding `text`, in a directory of its own.
fn serve_with_bindings(text: &str) -> (Output, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad-bindings.toml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .arg(fixtures().join("tools.tool"))
        .arg("--bind")
        .arg(&path)
        .stdin(Stdio::null())
        .output()
        .expect("tooldef runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

#[test]
fn bindings_errors_stop_the_server_at_startup() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "an unknown tool",
            "[tools.ecoh]\ncommand = [\"python3\", \"echo.py\"]\n",
            &[
                "[tools.ecoh]",
                "no tool named `ecoh`",
                "did you mean `echo`?",
            ],
        ),
        (
            "a command that cannot be started",
            "[tools.echo]\ncommand = [\"tooldef-no-such-program\"]\n",
            &[
                "[tools.echo].command",
                "`tooldef-no-such-program` cannot be started",
                "on PATH",
            ],
        ),
        (
            "a relative program that does not exist",
            "[tools.echo]\ncommand = [\"./missing.sh\"]\n",
            &["[tools.echo].command", "`./missing.sh` cannot be started"],
        ),
        (
            "a cwd that does not exist",
            "[tools.echo]\ncommand = [\"python3\"]\ncwd = \"no-such-dir\"\n",
            &["[tools.echo].cwd", "no-such-dir is not a directory"],
        ),
        (
            "malformed TOML",
            "[tools.echo\ncommand = [\"python3\"]\n",
            &["line 1", "unclosed table"],
        ),
        (
            "an unknown key",
            "[tools.echo]\ncommand = [\"python3\"]\ntimeout = 5\n",
            &["unknown field `timeout`"],
        ),
    ];
    for (what, text, wants) in cases {
        let (out, stderr) = serve_with_bindings(text);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(out.stdout.is_empty(), "{what}: nothing on stdout");
        assert!(
            stderr.contains("bad-bindings.toml"),
            "{what}: the message names the file: {stderr}"
        );
        for want in *wants {
            assert!(stderr.contains(want), "{what}: {want:?} not in {stderr}");
        }
    }
}

/// `tooldef serve` on stdio, spoken to frame by frame: each line it writes arrives on a channel
/// (as JSON, or as a string when it is not JSON).
struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    stderr: Option<JoinHandle<String>>,
}

impl StdioServer {
    fn start() -> StdioServer {
        let mut child = Command::new(BIN)
            .args(["serve", "tools.tool", "--bind", "bindings.toml"])
            .current_dir(fixtures())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tooldef serve starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).split(b'\n') {
                let Ok(line) = line else { break };
                let v = serde_json::from_slice(&line)
                    .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&line).into()));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        StdioServer {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
        }
    }

    fn send(&mut self, frame: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        // A server that has exited shows up as a closed stdout in `until`.
        let _ = stdin.write_all(frame).and_then(|()| stdin.write_all(b"\n"));
        let _ = stdin.flush();
    }

    /// What the server wrote before its answer to `id` (which is dropped); an error when it
    /// closed its output or did not answer within 10 s.
    fn until(&self, id: &Value) -> Result<Vec<Value>, String> {
        let mut before = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(10)) {
                Ok(v) if v.get("id") == Some(id) => return Ok(before),
                Ok(v) => before.push(v),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!("no answer to {id} within 10 s: the server hangs"))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!("the server exited before answering {id}"))
                }
            }
        }
    }

    /// Sends a request and returns its answer.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(frame.to_string().as_bytes());
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}; {}", self.stderr()));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn initialize(&mut self) {
        let init = self.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "frames", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "tooldef", "{init}");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// Closes stdin and returns the exit status and the standard error.
    fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        (status, self.stderr())
    }

    fn stderr(&mut self) -> String {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        self.stderr
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default()
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn notifications_and_responses_before_initialize_do_not_stop_the_server() {
    // rmcp ends the session when the first message is not a request; any one of these used to
    // stop the server with "expect initialized request".
    let early: &[&[u8]] = &[
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
        br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        br#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}"#,
    ];
    for frame in early {
        let mut server = StdioServer::start();
        server.send(frame);
        // A ping before initialize is answered (the spec allows it) and shows the server lives.
        server.send(br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
        let before = server.until(&json!("p")).unwrap_or_else(|e| {
            panic!(
                "{}: {e}\n{}",
                String::from_utf8_lossy(frame),
                server.stderr()
            )
        });
        assert!(before.is_empty(), "answered {before:?}");
        server.initialize();
        let listed = server.request(5, "tools/list", json!({}));
        assert_eq!(listed["result"]["tools"].as_array().map(Vec::len), Some(7));
        let (status, stderr) = server.finish();
        assert!(status.success(), "{status}: {stderr}");
    }
}
