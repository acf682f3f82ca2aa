//! `tooldef serve` as clients see it: the MCP Python SDK drives the server over stdio and over
//! streamable HTTP (`tests/mcp/client.py` records what it saw, the assertions are here),
//! bindings errors stop the server at startup, and messages a client should not send (before
//! `initialize`, or malformed) neither stop nor hang it.
//!
//! The Python tests skip with a notice when python3 or the `mcp` package (2.x) is missing,
//! except when `CI=true`, where that is a failure. The MCP Inspector test needs Node 22 or newer
//! (installed, or `node@22` fetched by npx) and skips with a notice without it, in CI too.

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

    // Timeout: 3 s allowed, 5 s asked; the handler's process is gone.
    let t = &out["timeout"];
    assert_eq!(t["is_error"], true, "{}", show("timeout"));
    assert!(
        text(t).contains("did not finish within 3000 ms"),
        "{}",
        show("timeout")
    );
    let secs = t["seconds"].as_f64().unwrap();
    assert!((2.9..4.9).contains(&secs), "{}", show("timeout"));
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

    /// The answer to `id` if it comes within `wait`.
    fn answer_to(&self, id: &Value, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(v) if v.get("id") == Some(id) => Some(v),
            Ok(v) => panic!("an answer to nothing sent: {v}"),
            Err(_) => None,
        }
    }

    /// Sends a request and returns its answer.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.answer(frame.to_string().as_bytes(), &json!(id))
    }

    /// Sends a frame and returns the answer that carries `id` (`null`: the answer to a frame
    /// whose id cannot be read, which has `"id": null` or, as MCP 2026-07-28 has it, no id).
    fn answer(&mut self, frame: &[u8], id: &Value) -> Value {
        self.send(frame);
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("no answer to {id}: {e}; {}", self.stderr()));
            if v.get("id").unwrap_or(&Value::Null) == id {
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

    /// Closes stdin and asserts that the server exits successfully.
    fn finish_cleanly(self) {
        let (status, stderr) = self.finish();
        assert!(status.success(), "{status}: {stderr}");
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
        server.finish_cleanly();
    }
}

/// Whether the server still answers: a call after the frame under test.
fn still_serves(server: &mut StdioServer) {
    let added = server.request(
        99,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2}}),
    );
    assert_eq!(
        added["result"]["structuredContent"],
        json!({"sum": 3}),
        "{added}"
    );
}

#[test]
fn a_call_whose_arguments_are_not_an_object_is_invalid_params() {
    // rmcp reads a `tools/call` whose params do not fit as a custom request, which used to be
    // answered -32601 "Method not found: tools/call".
    let mut server = StdioServer::start();
    server.initialize();
    let frames = [
        (r#"{"name":"add","arguments":5}"#, "expected a map"),
        (r#"{"name":"add","arguments":[1]}"#, "expected a map"),
        (r#"{"arguments":{}}"#, "missing field `name`"),
    ];
    for (n, (params, why)) in frames.into_iter().enumerate() {
        let frame =
            format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{params}}}"#);
        let answer = server.answer(frame.as_bytes(), &json!(n));
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("tools/call") && message.contains(why),
            "{params}: {message}"
        );
    }
    // A method this server does not serve is still -32601.
    let unknown = server.answer(
        br#"{"jsonrpc":"2.0","id":"u","method":"tooldef/nothing","params":{"x":5}}"#,
        &json!("u"),
    );
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    still_serves(&mut server);
    server.finish_cleanly();
}

#[test]
fn a_second_initialize_is_an_invalid_request() {
    // rmcp handed a second `initialize` to the handler, which answered it with a result, as it
    // answers the first one.
    let mut server = StdioServer::start();
    server.initialize();
    for (id, version) in [(1, "2025-06-18"), (2, "2024-11-05")] {
        let again = server.request(
            id,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "again", "version": "1"}}),
        );
        assert_eq!(again["error"]["code"], -32600, "{again}");
        assert!(
            again["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("already initialized")),
            "{again}"
        );
    }
    still_serves(&mut server);
    server.finish_cleanly();
}

#[test]
fn arguments_serde_json_cannot_read_get_a_tool_error() {
    // rmcp's stdio transport dropped a line serde_json refused (nesting past 127 levels, a
    // number beyond a double) without an answer: the client waiting on the id hung.
    let mut server = StdioServer::start();
    server.initialize();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hi","tags":{}{}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let huge = r#"{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"add","arguments":{"a":1e400}}}"#;
    for (frame, id, why) in [
        (deep.as_str(), "deep", "nest deeper than 128 levels"),
        (huge, "huge", "number out of range at line 1, column"),
    ] {
        let answer = server.answer(frame.as_bytes(), &json!(id));
        // Invalid arguments, told as every other problem with arguments is: a tool error.
        assert_eq!(answer["result"]["isError"], true, "{id}: {answer}");
        let said = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(said.contains(why), "{id}: {said}");
        still_serves(&mut server);
    }
    // Arguments that are not an object are invalid params, deep or not.
    let array = format!(
        r#"{{"jsonrpc":"2.0","id":"array","method":"tools/call","params":{{"name":"add","arguments":{}{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let answer = server.answer(array.as_bytes(), &json!("array"));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    server.finish_cleanly();
}

#[test]
fn requests_serde_json_cannot_read_are_answered_with_their_id() {
    // Each of these got no answer at all (rmcp's transport dropped them).
    let mut server = StdioServer::start();
    server.initialize();
    let nested = format!("{}{}", "[".repeat(1_000), "]".repeat(1_000));
    let frames = [
        (
            1,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"cursor":{nested}}}}}"#
            ),
            -32602,
        ),
        (
            2,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"add"}"#.to_string(),
            -32602,
        ),
        (
            3,
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","x":{nested}}}"#),
            -32600,
        ),
        (
            4,
            r#"{"jsonrpc":"2.0","id":4,"method":"ping","x":1e400}"#.to_string(),
            -32600,
        ),
    ];
    for (id, frame, code) in frames {
        let answer = server.answer(frame.as_bytes(), &json!(id));
        assert_eq!(answer["error"]["code"], code, "{id}: {answer}");
    }
    // A notification that cannot be read has no answer, and stops nothing.
    server.send(
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{nested}}}}}"#
        )
        .as_bytes(),
    );
    still_serves(&mut server);
    server.finish_cleanly();
}

#[test]
fn a_line_that_is_not_json_is_a_parse_error_with_id_null() {
    // A line of 100,000 `[` got no answer (JSON-RPC answers it -32700 with id null).
    let mut server = StdioServer::start();
    server.initialize();
    for frame in [
        "[".repeat(100_000),
        "{\"jsonrpc\":\"2.0\",\"id\":5,".to_string(),
    ] {
        let answer = server.answer(frame.as_bytes(), &Value::Null);
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("not JSON")),
            "{answer}"
        );
        still_serves(&mut server);
    }
    server.finish_cleanly();
}

/// The kinds of bad frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bad {
    Truncated,
    WrongTypes,
    HugeId,
    Binary,
    UnknownMethodRequest,
    UnknownMethodNotification,
    NotJsonRpc,
    BeforeInitializeRequest,
    BeforeInitializeOther,
    Stray,
}

/// A small deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A bad frame of `kind`; `n` makes its id unique.
fn bad_frame(kind: Bad, n: u64, rng: &mut Rng) -> Vec<u8> {
    let pick = |rng: &mut Rng, xs: &[String]| xs[rng.below(xs.len())].clone().into_bytes();
    match kind {
        Bad::Truncated => {
            let whole = pick(
                rng,
                &[
                    format!(
                        r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hi"}}}}}}"#
                    ),
                    format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/list"}}"#),
                    format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping","params":{{}}}}"#),
                ],
            );
            whole[..1 + rng.below(whole.len() - 1)].to_vec()
        }
        Bad::WrongTypes => pick(
            rng,
            &[
                format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":"echo"}}"#),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":5}}}}"#
                ),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"echo","arguments":[1]}}}}"#
                ),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":5}}}}}}"#
                ),
                format!(r#"{{"jsonrpc":"2.0","id":{n},"method":5}}"#),
                format!(r#"{{"jsonrpc":2,"id":{n},"method":"ping"}}"#),
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#.to_string(),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/list","params":{{"cursor":7}}}}"#
                ),
            ],
        ),
        Bad::HugeId => pick(
            rng,
            &[
                r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#.to_string(),
                r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}"#.to_string(),
                r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}"#.to_string(),
                r#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}"#.to_string(),
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.to_string(),
                format!(
                    r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#,
                    "9".repeat(10_000)
                ),
            ],
        ),
        Bad::Binary => {
            let len = 1 + rng.below(200);
            let mut bytes = vec![0xff];
            bytes.extend((0..len).map(|_| match rng.below(256) as u8 {
                b'\n' => 0,
                b => b,
            }));
            bytes
        }
        Bad::UnknownMethodRequest => {
            format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tooldef/nothing-{n}"}}"#).into_bytes()
        }
        Bad::UnknownMethodNotification => pick(
            rng,
            &[
                r#"{"jsonrpc":"2.0","method":"tooldef/nothing"}"#.to_string(),
                r#"{"jsonrpc":"2.0","method":"notifications/nothing","params":{}}"#.to_string(),
            ],
        ),
        Bad::NotJsonRpc => pick(
            rng,
            &[
                "[1,2,3]".into(),
                "\"text\"".into(),
                "null".into(),
                "42".into(),
                "true".into(),
                "{}".into(),
                "[]".into(),
                r#"{"hello":"world"}"#.into(),
                r#"{"jsonrpc":"2.0"}"#.into(),
                format!(r#"{{"jsonrpc":"2.0","id":{n}}}"#),
                format!(r#"[{{"jsonrpc":"2.0","id":{n},"method":"ping"}}]"#),
            ],
        ),
        Bad::BeforeInitializeRequest => pick(
            rng,
            &[
                format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/list"}}"#),
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"hi"}}}}}}"#
                ),
                format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"tooldef/nothing"}}"#),
            ],
        ),
        Bad::BeforeInitializeOther | Bad::Stray => pick(
            rng,
            &[
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
                format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{n}}}}}"#
                ),
                format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{n},"progress":1}}}}"#
                ),
                format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{{}}}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":{n},"error":{{"code":-1,"message":"no"}}}}"#),
            ],
        ),
    }
}

/// An answer in words: whether it is a result or an error, its code, and whether it carries
/// the id of the frame it answers.
fn describe(answer: &Value, sent: &[u8]) -> String {
    let sent: Option<Value> = serde_json::from_slice(sent).ok();
    let same_id = match (answer.get("id"), sent.as_ref().and_then(|s| s.get("id"))) {
        (None | Some(Value::Null), _) => "no id",
        (Some(a), Some(s)) if a == s => "its id",
        (Some(_), _) => "ANOTHER id",
    };
    if let Some(e) = answer.get("error") {
        format!("error {} ({same_id})", e["code"])
    } else if answer["result"]["isError"] == true {
        format!("tool error ({same_id})")
    } else if answer.get("result").is_some() {
        format!("result ({same_id})")
    } else {
        format!("?? {answer}")
    }
}

#[test]
fn malformed_frames_neither_stop_nor_hang_the_server() {
    use std::collections::BTreeMap;
    const FRAMES: usize = 10_000;
    const BEFORE_INITIALIZE: usize = 1_000;
    let mut rng = Rng(0x7003_DEF5_EED5_0001);
    let mut server = StdioServer::start();
    let mut seen: BTreeMap<(bool, Bad), BTreeMap<String, usize>> = BTreeMap::new();
    let common = [
        Bad::Truncated,
        Bad::WrongTypes,
        Bad::HugeId,
        Bad::Binary,
        Bad::UnknownMethodRequest,
        Bad::UnknownMethodNotification,
        Bad::NotJsonRpc,
    ];
    for i in 0..FRAMES {
        if i == BEFORE_INITIALIZE {
            server.initialize();
        }
        let kind = match (i < BEFORE_INITIALIZE, rng.below(common.len() + 2)) {
            (_, k) if k < common.len() => common[k],
            (true, k) if k == common.len() => Bad::BeforeInitializeRequest,
            (true, _) => Bad::BeforeInitializeOther,
            (false, _) => Bad::Stray,
        };
        let n = 1_000_000 + i as u64;
        let frame = bad_frame(kind, n, &mut rng);
        server.send(&frame);
        // A ping after each frame: what comes before its answer answers the frame.
        let fence = json!(format!("fence-{i}"));
        server.send(
            json!({"jsonrpc": "2.0", "id": fence, "method": "ping"})
                .to_string()
                .as_bytes(),
        );
        let mut answers = server.until(&fence).unwrap_or_else(|e| {
            panic!(
                "frame {i} ({kind:?}) {:?}: {e}\n{}",
                String::from_utf8_lossy(&frame),
                server.stderr()
            )
        });
        // Requests are handled concurrently: the answer to a request can come after the ping's.
        let request: Option<Value> = serde_json::from_slice(&frame).ok();
        if let Some(id) = request
            .as_ref()
            .filter(|r| answers.is_empty() && r.get("method").is_some())
            .and_then(|r| r.get("id"))
        {
            answers.extend(server.answer_to(id, Duration::from_secs(2)));
        }
        let words = match answers.as_slice() {
            [] => "nothing".to_string(),
            [one] => describe(one, &frame),
            more => panic!("frame {i} ({kind:?}) got {} answers: {more:?}", more.len()),
        };
        let ok = match kind {
            // rmcp's transport dropped these; JSON-RPC answers them -32700.
            Bad::Truncated | Bad::Binary => words == "error -32700 (no id)",
            // Before initialize, rmcp answers every request but a ping with -32602 (the request
            // lacks the metadata of the lifecycle without initialize).
            Bad::UnknownMethodRequest if i < BEFORE_INITIALIZE => words == "error -32602 (its id)",
            Bad::UnknownMethodRequest => words == "error -32601 (its id)",
            Bad::UnknownMethodNotification | Bad::Stray | Bad::BeforeInitializeOther => {
                words == "nothing"
            }
            Bad::NotJsonRpc => {
                ["nothing", "error -32600 (no id)", "error -32700 (no id)"]
                    .contains(&words.as_str())
                    || words == "error -32600 (its id)"
            }
            // An answer of some kind (rmcp reads a number as cursor leniently: a result).
            Bad::WrongTypes => words != "nothing",
            // An id that is not a string or an integer (1e400, 1.5, past 64 bits) cannot be
            // read: -32600 without it.
            Bad::HugeId => words == "result (its id)" || words == "error -32600 (no id)",
            Bad::BeforeInitializeRequest => {
                words.starts_with("error ") && words.ends_with("(its id)")
            }
        };
        assert!(
            ok && !words.contains("ANOTHER"),
            "frame {i} ({kind:?}) {:?} was answered with {words}",
            String::from_utf8_lossy(&frame)
        );
        let after = i >= BEFORE_INITIALIZE;
        *seen
            .entry((after, kind))
            .or_default()
            .entry(words)
            .or_default() += 1;
    }
    // What the server answered, by class (shown with --nocapture).
    for ((after, kind), answers) in &seen {
        let when = if *after { "after" } else { "before" };
        eprintln!("{when} initialize, {kind:?}: {answers:?}");
    }
    assert_eq!(seen.len(), 17, "every class was sent: {seen:?}");

    let added = server.request(
        7,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2}}),
    );
    assert_eq!(
        added["result"]["structuredContent"],
        json!({"sum": 3}),
        "{added}"
    );
    server.finish_cleanly();
}

/// How to run Node 22 or newer: the installed `node`, or `node@22` from the npm registry
/// through npx. None (with the reason) when neither works.
fn node_22() -> Result<Vec<String>, String> {
    let major = |out: &Output| {
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse::<u32>().ok())
    };
    let installed = Command::new("node").arg("--version").output();
    if let Ok(out) = &installed {
        if major(out).is_some_and(|m| m >= 22) {
            return Ok(vec!["npx".into(), "-y".into()]);
        }
    }
    let via_npx = Command::new("npx")
        .args(["-y", "node@22", "--version"])
        .output();
    match via_npx {
        Ok(out) if out.status.success() && major(&out).is_some_and(|m| m >= 22) => Ok(vec![
            "npx".into(),
            "-y".into(),
            "-p".into(),
            "node@22".into(),
        ]),
        _ => Err(format!(
            "Node 22 or newer is needed (installed: {}), and npx could not fetch node@22",
            installed
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_else(|e| e.to_string())
        )),
    }
}

#[test]
fn mcp_inspector_cli_lists_the_tools() {
    let npx = match node_22() {
        Ok(npx) => npx,
        Err(why) => {
            eprintln!("skipping the MCP Inspector check (in CI too): {why}");
            return;
        }
    };
    let mut command = Command::new(&npx[0]);
    command.args(&npx[1..]);
    if npx.len() > 2 {
        // node@22 comes from the registry: run the inspector's binary beside it.
        command.args(["-p", "@modelcontextprotocol/inspector", "mcp-inspector"]);
    } else {
        command.arg("@modelcontextprotocol/inspector");
    }
    let out = command
        .args([
            "--cli",
            BIN,
            "serve",
            "tools.tool",
            "--bind",
            "bindings.toml",
        ])
        .args(["--method", "tools/list"])
        .current_dir(fixtures())
        .stdin(Stdio::null())
        .output()
        .expect("npx runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && !in_ci() && stdout.trim().is_empty() {
        // The registry may be out of reach on a developer's machine.
        eprintln!("skipping the MCP Inspector check: the inspector did not run:\n{stderr}");
        return;
    }
    assert!(
        out.status.success(),
        "the inspector failed:\n{stdout}\n{stderr}"
    );
    let listed: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the inspector printed no JSON ({e}):\n{stdout}"));
    let listed: Vec<Value> = listed["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(listed_fields)
        .collect();
    let expected: Vec<Value> = expected_tools().iter().map(listed_fields).collect();
    assert_eq!(listed, expected, "the inspector's tools/list differs");
}

/// A request over the line limit (16 MiB) is skipped unread, and answered with the id found at
/// its start: the answer used to carry no id, so the client that sent it waited out its own
/// timeout (60 s) and said "timed out". Lines of 17 and 34 MiB, each answered at once with its
/// id, the server serving on.
#[test]
fn an_oversized_request_is_answered_with_its_id() {
    let mut server = StdioServer::start();
    server.initialize();
    for (id, mib) in [(41u64, 17usize), (42, 34)] {
        let frame = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "x".repeat(mib << 20)}}});
        let answer = server.answer(frame.to_string().as_bytes(), &json!(id));
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("longer than")),
            "{answer}"
        );
    }
    still_serves(&mut server);
    server.finish_cleanly();
}
