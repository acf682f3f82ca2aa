//! `tooldef import --from mcp --server/--url` and `tooldef call`, end to end, against the small
//! MCP server of `cli/tests/mcp/fastmcp_server.py` (the Python SDK's high-level server,
//! `MCPServer`, formerly FastMCP), over stdio and over streamable HTTP.
//!
//! The tests that need the server skip with a notice when python3 or the Python package `mcp`
//! (version 2 or later) is missing, except when `CI=true`, where that is a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use tooldef::emit::{self, Options, Target};

fn tooldef() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tooldef"))
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/fastmcp_server.py")
}

/// The `--server` string that runs the test server with `extra` options.
fn server(extra: &[&str]) -> String {
    let script = script();
    let mut words = vec!["python3".to_string(), script.display().to_string()];
    words.extend(extra.iter().map(|s| s.to_string()));
    shlex::try_join(words.iter().map(String::as_str)).expect("quotable")
}

/// Whether the server can run; panics under CI when it cannot.
fn have_python_mcp() -> bool {
    let why = match Command::new("python3")
        .args(["-c", "import mcp.server.mcpserver, pydantic, uvicorn"])
        .output()
    {
        Ok(out) if out.status.success() => return true,
        Ok(_) => "the Python package mcp >= 2 is not installed (pip install 'mcp>=2')".to_string(),
        Err(e) => format!("python3 cannot run: {e}"),
    };
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why}; CI must run the MCP client tests");
    }
    eprintln!("skipping the MCP client test: {why}");
    false
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    run_env(args, &[])
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = tooldef();
    cmd.args(args).stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("tooldef runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The server's own `tools/list` result, as the SDK serializes it (not through our client).
fn servers_own_tools_list() -> Value {
    let out = Command::new("python3")
        .arg(script())
        .arg("--dump-tools")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the dump is JSON")
}

/// The import's documented normalization of a tool format: every object schema that declares
/// `properties` and says nothing about other keys is closed (docs/language.md, "Open objects
/// and JSON Schema interop").
fn closed(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> =
                map.iter().map(|(k, v)| (k.clone(), closed(v))).collect();
            if out.contains_key("properties") && !out.contains_key("additionalProperties") {
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(closed).collect()),
        other => other.clone(),
    }
}

/// Arguments for each tool with whether they are valid: both schemas must say so for each.
fn probes() -> Vec<(&'static str, Value, bool)> {
    vec![
        ("greet", json!({"name": "Ada"}), true),
        (
            "greet",
            json!({"name": "Ada", "times": 3, "style": "shout", "tags": ["a"]}),
            true,
        ),
        ("greet", json!({"name": "Ada", "tags": null}), true),
        ("greet", json!({}), false),
        ("greet", json!({"name": 1}), false),
        ("greet", json!({"name": "Ada", "times": 1.5}), false),
        ("greet", json!({"name": "Ada", "style": "whisper"}), false),
        ("greet", json!({"name": "Ada", "tags": [1]}), false),
        ("greet", json!({"name": "Ada", "extra": 1}), false),
        (
            "send_parcel",
            json!({"parcel": {"label": "box", "weight": 2.5}}),
            true,
        ),
        (
            "send_parcel",
            json!({"parcel": {"label": "box", "weight": 2, "size": {"width": 1, "height": 2}}, "express": true}),
            true,
        ),
        (
            "send_parcel",
            json!({"parcel": {"label": "box", "weight": 2, "size": null}}),
            true,
        ),
        (
            "send_parcel",
            json!({"parcel": {"label": "", "weight": 2}}),
            false,
        ),
        (
            "send_parcel",
            json!({"parcel": {"label": "x".repeat(41), "weight": 2}}),
            false,
        ),
        (
            "send_parcel",
            json!({"parcel": {"label": "box", "weight": 2, "size": {"width": 0, "height": 2}}}),
            false,
        ),
        (
            "send_parcel",
            json!({"parcel": {"label": "box", "weight": 2, "size": {"width": 1}}}),
            false,
        ),
        (
            "send_parcel",
            json!({"parcel": {"label": "box", "weight": 2, "colour": "red"}}),
            false,
        ),
        ("send_parcel", json!({"parcel": {"label": "box"}}), false),
        ("stats", json!({"values": [1, 2.5]}), true),
        ("stats", json!({"values": []}), true),
        ("stats", json!({"values": ["1"]}), false),
        ("stats", json!({}), false),
        ("explode", json!({"reason": "why"}), true),
        ("explode", json!({"reason": null}), false),
    ]
}

fn accepts(schema: &Value, instance: &Value) -> bool {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("{e}: {schema}"))
        .is_valid(instance)
}

/// "The same tools": the same names in the same order with the same descriptions; for each,
/// the same top-level parameters, the same `required` set and the same top-level defaults; and
/// input schemas that accept and reject the same arguments (every probe of [`probes`], each with
/// its expected verdict) once the server's schema has had the import's documented normalization
/// (objects closed). Titles, which the import drops with a warning, and the schemas' shape
/// (`$defs`/`$ref`, `anyOf` with `null`) are not compared.
fn assert_same_tools(servers: &Value, ours: &Value) {
    let names = |v: &Value| -> Vec<String> {
        v["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().expect("name").to_string())
            .collect()
    };
    assert_eq!(names(servers), names(ours));
    assert_eq!(names(ours), ["greet", "send_parcel", "stats", "explode"]);
    let probes = probes();
    for (theirs, mine) in servers["tools"]
        .as_array()
        .unwrap()
        .iter()
        .zip(ours["tools"].as_array().unwrap())
    {
        let name = theirs["name"].as_str().unwrap();
        assert_eq!(theirs["description"], mine["description"], "{name}");
        let (ts, ms) = (closed(&theirs["inputSchema"]), &mine["inputSchema"]);
        let keys = |s: &Value| -> Vec<String> {
            s["properties"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        assert_eq!(keys(&ts), keys(ms), "{name}: parameters");
        let required = |s: &Value| -> Vec<String> {
            let mut r: Vec<String> = s["required"]
                .as_array()
                .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            r.sort();
            r
        };
        assert_eq!(required(&ts), required(ms), "{name}: required");
        for (key, prop) in ts["properties"].as_object().unwrap() {
            if let Some(default) = prop.get("default") {
                assert_eq!(
                    Some(default),
                    ms["properties"][key].get("default"),
                    "{name}.{key}: default"
                );
            }
        }
        let mine_probes: Vec<_> = probes.iter().filter(|(t, _, _)| *t == name).collect();
        assert!(!mine_probes.is_empty(), "no probes for {name}");
        for (_, args, valid) in mine_probes {
            assert_eq!(
                accepts(&ts, args),
                *valid,
                "{name}: server schema on {args}"
            );
            assert_eq!(accepts(ms, args), *valid, "{name}: our schema on {args}");
        }
    }
}

/// Compiles the import and emits its `mcp` target.
fn emitted_mcp(source: &str) -> Value {
    let module = tooldef::compile(source)
        .unwrap_or_else(|e| panic!("the import does not compile: {e}\n{source}"))
        .module;
    emit::tools(&module, Target::Mcp, &Options::default())
        .expect("emits for mcp")
        .json
}

#[test]
fn import_server_pages_through_tools_list_and_matches_the_servers_own_list() {
    if !have_python_mcp() {
        return;
    }
    // Pages of two: the four tools come in two pages linked by nextCursor.
    let r = run(&[
        "import",
        "--from",
        "mcp",
        "--server",
        &server(&["--page-size", "2"]),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_same_tools(&servers_own_tools_list(), &emitted_mcp(&r.stdout));
    // The same warnings as for a tools/list file: pointers into {"tools": [...]}.
    assert!(
        r.stderr.contains(
            "at /tools/1/inputSchema/$defs/Parcel/title: [import-dropped] the annotation `title`"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--keep-open"), "{}", r.stderr);

    // Exactly what `import` prints for the server's own tools/list in a file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    std::fs::write(&file, servers_own_tools_list().to_string()).unwrap();
    let from_file = run(&["import", "--from", "mcp", file.to_str().unwrap()]);
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    assert_eq!(r.stdout, from_file.stdout);
}

#[test]
fn import_server_keep_open_and_output_file() {
    if !have_python_mcp() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.tool");
    let r = run(&[
        "import",
        "--from",
        "mcp",
        "--keep-open",
        "-o",
        out.to_str().unwrap(),
        "--server",
        &server(&[]),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "");
    let source = std::fs::read_to_string(&out).unwrap();
    assert!(!r.stderr.contains("--keep-open"), "{}", r.stderr);
    let emitted = emitted_mcp(&source);
    let greet = &emitted["tools"][0]["inputSchema"];
    assert!(
        accepts(greet, &json!({"name": "Ada", "extra": 1})),
        "{greet}"
    );
}

fn calls_in(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn call_validates_locally_then_calls() {
    if !have_python_mcp() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let srv = server(&["--calls", calls.to_str().unwrap(), "--page-size", "3"]);

    // Valid: the tool's text, then its structured content; defaults filled in before the call.
    let r = run(&[
        "call",
        "--server",
        &srv,
        "greet",
        r#"{"name": "Ada", "times": 2}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("Hello, Ada! Hello, Ada!\n"),
        "{}",
        r.stdout
    );
    assert_eq!(
        calls_in(&calls),
        [
            json!({"name": "greet", "arguments": {"name": "Ada", "times": 2, "style": "plain", "tags": null}})
        ]
    );

    // Invalid: the message for the model, exit 1, and the server is not called.
    for bad in [
        r#"{"name": "Ada", "times": "two"}"#,
        r#"{"name": "Ada", "style": "whisper"}"#,
        r#"{"name": "Ada", "extra": true}"#,
        r#"{"name": "Ada""#,
    ] {
        let r = run(&["call", "--server", &srv, "greet", bad]);
        assert_eq!(r.code, 1, "{bad}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout
                .starts_with("The arguments for `greet` are invalid (1 problem).")
                && r.stdout.contains("\nSignature: greet(name: string"),
            "{bad}: {}",
            r.stdout
        );
    }
    let r = run(&[
        "call",
        "--server",
        &srv,
        "--format",
        "json",
        "send_parcel",
        r#"{"parcel": {"label": "box", "weight": 1, "size": {"width": 0, "height": 1}}}"#,
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let verdict: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(verdict["valid"], false);
    assert_eq!(verdict["errors"][0]["path"], "/parcel/size/width");
    assert_eq!(
        calls_in(&calls).len(),
        1,
        "an invalid call reached the server"
    );

    // Unknown tool: exit 2 with a suggestion, nothing called.
    let r = run(&["call", "--server", &srv, "gret", r#"{"name": "Ada"}"#]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("did you mean `greet`?"), "{}", r.stderr);
    assert_eq!(calls_in(&calls).len(), 1);

    // A tool error: its text, exit 1.
    let r = run(&["call", "--server", &srv, "explode", r#"{"reason": "boom"}"#]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("exploded: boom"), "{}", r.stdout);

    // Structured output, as JSON: the CallToolResult.
    let r = run(&[
        "call",
        "--server",
        &srv,
        "--format",
        "json",
        "stats",
        r#"{"values": [1, 2, 3]}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let result: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        result["structuredContent"],
        json!({"count": 3, "mean": 2.0})
    );
    assert_eq!(result["content"][0]["type"], "text");
    assert_ne!(result["isError"], true);

    // Lax mode coerces before calling; the arguments may come from a file.
    let args = dir.path().join("args.json");
    std::fs::write(&args, r#"{"parcel": {"label": "box", "weight": "2.5"}}"#).unwrap();
    let r = run(&[
        "call",
        "--server",
        &srv,
        "--lax",
        "send_parcel",
        args.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("sent box\n"), "{}", r.stdout);
    assert!(r.stderr.contains("coerced /parcel/weight"), "{}", r.stderr);
    assert_eq!(
        calls_in(&calls).last().unwrap()["arguments"]["parcel"]["weight"],
        2.5
    );
    assert_eq!(calls_in(&calls).len(), 4);
}

#[test]
fn connection_failures_are_usage_errors() {
    let r = run(&[
        "call",
        "--server",
        "/nonexistent/tooldef-mcp-server",
        "t",
        "{}",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot start"), "{}", r.stderr);
    // A program that exits at once: the handshake fails.
    let r = run(&["import", "--from", "mcp", "--server", "sh -c 'exit 3'"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot connect"), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let r = run(&["import", "--from", "mcp", "--server", "python3 'unclosed"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = run(&["import", "--from", "mcp", "--url", "http://127.0.0.1:9/mcp"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        // Neither FILE, --server nor --url.
        &["import", "--from", "mcp"][..],
        // FILE and --server.
        &["import", "--from", "mcp", "tools.json", "--server", "x"],
        // --server and --url.
        &[
            "import", "--from", "mcp", "--server", "x", "--url", "http://x",
        ],
        // --server with another format.
        &["import", "--from", "openai", "--server", "x"],
        // --token-env without --url.
        &[
            "import",
            "--from",
            "mcp",
            "--server",
            "x",
            "--token-env",
            "T",
        ],
        // call without a server.
        &["call", "greet", "{}"],
        &["call", "--server", "x", "--lax", "--strict", "greet", "{}"],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    }
    let r = run_env(
        &[
            "import",
            "--from",
            "mcp",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--token-env",
            "TOOLDEF_TEST_UNSET",
        ],
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("TOOLDEF_TEST_UNSET is not set"),
        "{}",
        r.stderr
    );
}

/// The test server over streamable HTTP, killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(extra: &[&str]) -> HttpServer {
        let mut child = Command::new("python3")
            .arg(script())
            .arg("--http")
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .strip_prefix("PORT ")
            .unwrap_or_else(|| panic!("the server said {line:?}"))
            .trim()
            .to_string();
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn url_with_a_bearer_token() {
    if !have_python_mcp() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let http = HttpServer::start(&[
        "--token",
        "s3cret",
        "--page-size",
        "3",
        "--calls",
        calls.to_str().unwrap(),
    ]);
    let url = http.url.as_str();
    let token = [("TOOLDEF_TEST_TOKEN", "s3cret")];

    let r = run_env(
        &[
            "import",
            "--from",
            "mcp",
            "--url",
            url,
            "--token-env",
            "TOOLDEF_TEST_TOKEN",
        ],
        &token,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_same_tools(&servers_own_tools_list(), &emitted_mcp(&r.stdout));

    // Without the token, or with another, the server refuses: a connection error.
    let r = run(&["import", "--from", "mcp", "--url", url]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("401"), "{}", r.stderr);
    let r = run_env(
        &[
            "import",
            "--from",
            "mcp",
            "--url",
            url,
            "--token-env",
            "TOOLDEF_TEST_TOKEN",
        ],
        &[("TOOLDEF_TEST_TOKEN", "wrong")],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);

    let r = run_env(
        &[
            "call",
            "--url",
            url,
            "--token-env",
            "TOOLDEF_TEST_TOKEN",
            "greet",
            r#"{"name": "Bo", "style": "shout"}"#,
        ],
        &token,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("HELLO, BO!\n"), "{}", r.stdout);
    let r = run_env(
        &[
            "call",
            "--url",
            url,
            "--token-env",
            "TOOLDEF_TEST_TOKEN",
            "greet",
            r#"{"name": 7}"#,
        ],
        &token,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(calls_in(&calls).len(), 1);
}

/// `serve --upstream`: another server's tools served through this runtime, each call validated
/// here before it is sent there (a validating proxy), spoken to by a plain MCP client that does
/// no validation of its own.
#[test]
fn serve_upstream_validates_before_it_forwards() {
    if !have_python_mcp() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    let upstream = server(&["--calls", calls.to_str().unwrap(), "--page-size", "2"]);
    let argv: Vec<String> = vec![
        env!("CARGO_BIN_EXE_tooldef").into(),
        "serve".into(),
        "--log".into(),
        "off".into(),
        "--upstream".into(),
        upstream,
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = tooldef::mcp::Client::connect_stdio(&argv)
            .await
            .expect("the proxy starts");
        // The proxy lists what the upstream lists (all its pages), as it imported them.
        let tools = client.list_tools().await.expect("listed");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["greet", "send_parcel", "stats", "explode"]);

        // Valid: forwarded with the defaults filled in; the text comes back.
        let r = client
            .call("greet", json!({"name": "Ada", "times": 2}))
            .await
            .expect("called");
        assert_ne!(r["isError"], true, "{r}");
        assert!(r.to_string().contains("Hello, Ada! Hello, Ada!"), "{r}");
        assert_eq!(
            calls_in(&calls),
            [json!({"name": "greet", "arguments": {"name": "Ada", "times": 2, "style": "plain", "tags": null}})]
        );

        // Invalid: the validator's message as a tool error, and the upstream is not called.
        for bad in [
            json!({"name": "Ada", "times": "two"}),
            json!({"name": "Ada", "style": "whisper"}),
            json!({"name": "Ada", "extra": true}),
            json!({"parcel": {"label": "box", "weight": 1, "size": {"width": 0, "height": 1}}}),
        ] {
            let tool = if bad.get("parcel").is_some() { "send_parcel" } else { "greet" };
            let r = client.call(tool, bad.clone()).await.expect("answered");
            assert_eq!(r["isError"], true, "{bad}: {r}");
            assert!(r.to_string().contains("are invalid"), "{bad}: {r}");
        }
        assert_eq!(calls_in(&calls).len(), 1, "an invalid call reached the upstream");

        // The upstream's structured content and its tool errors come through.
        let r = client
            .call("stats", json!({"values": [1, 2, 3]}))
            .await
            .expect("called");
        assert!(r.to_string().contains("\"mean\""), "{r}");
        let r = client
            .call("explode", json!({"reason": "boom"}))
            .await
            .expect("answered");
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(calls_in(&calls).len(), 3);
        client.close().await;
    });
    // Neither files nor bindings go with an upstream.
    let r = run(&["serve", "x.tool", "--upstream", "cat"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}
