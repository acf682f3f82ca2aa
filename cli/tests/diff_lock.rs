//! `tooldef diff` and `tooldef lock`, end to end: exit codes, the JSON shape of `diff`, the lock
//! file, `lock --check` on unchanged and edited sources, and `lock --server` against the MCP
//! server of `cli/tests/mcp/versioned_server.py`, whose tools change with an environment
//! variable (skipped with a notice when python3 or the Python package `mcp` is missing, except
//! under `CI=true`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use sha2::{Digest, Sha256};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tooldef"));
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
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

fn run(dir: &Path, args: &[&str]) -> Run {
    run_in(dir, args, &[])
}

const WEATHER: &str = r#"/// Return the weather.
@read_only
tool get_weather {
  /// The city.
  city: string @min_length(1)
  unit?: "c" | "f" | "k"
}

/// Remove a file.
@requires_approval
tool remove { path: string }
"#;

/// A folder with `name` holding `text`.
fn with_file(name: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), name, text);
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// `tooldef diff old.tool new.tool` with WEATHER as the old version and `new` as the new one.
fn diff_against(new: &str, extra: &[&str]) -> Run {
    let dir = with_file("old.tool", WEATHER);
    write(dir.path(), "new.tool", new);
    let mut args = vec!["diff", "old.tool", "new.tool"];
    args.extend(extra);
    run(dir.path(), &args)
}

#[test]
fn diff_exits_0_without_changes_and_for_compatible_or_model_ones() {
    let same = diff_against(WEATHER, &[]);
    assert_eq!(
        (same.code, same.stdout.as_str()),
        (0, ""),
        "{}",
        same.stderr
    );
    assert!(same.stderr.contains("no changes"), "{}", same.stderr);

    let compatible = diff_against(
        &WEATHER.replace(
            "tool remove { path: string }",
            "tool remove { path: string, force?: boolean }",
        ),
        &[],
    );
    assert_eq!(compatible.code, 0, "{}", compatible.stderr);
    assert_eq!(
        compatible.stdout,
        "compatible: remove /inputSchema/properties/force: optional field `force` added\n"
    );

    let model = diff_against(&WEATHER.replace("/// The city.", "/// The town."), &[]);
    assert_eq!(model.code, 0, "{}", model.stderr);
    assert!(
        model
            .stdout
            .starts_with("model: get_weather /inputSchema/properties/city: "),
        "{}",
        model.stdout
    );
}

#[test]
fn diff_exits_1_for_breaking_and_safety_changes() {
    let breaking = diff_against(&WEATHER.replace(r#""c" | "f" | "k""#, r#""c" | "f""#), &[]);
    assert_eq!(breaking.code, 1, "{}", breaking.stderr);
    assert_eq!(
        breaking.stdout,
        "breaking: get_weather /inputSchema/properties/unit: value \"k\" removed\n"
    );
    let safety = diff_against(&WEATHER.replace("@requires_approval\n", ""), &[]);
    assert_eq!(safety.code, 1, "{}", safety.stderr);
    assert!(
        safety
            .stdout
            .starts_with("safety: remove /requires_approval: "),
        "{}",
        safety.stdout
    );
    let removed = diff_against(&WEATHER.replace("tool remove", "tool delete"), &[]);
    assert_eq!(removed.code, 1);
    assert!(
        removed.stdout.contains("breaking: remove: tool removed"),
        "{}",
        removed.stdout
    );
    assert!(
        removed.stdout.contains("compatible: delete: tool added"),
        "{}",
        removed.stdout
    );
}

#[test]
fn diff_prints_the_changes_as_json() {
    let new = WEATHER
        .replace(r#""c" | "f" | "k""#, r#""c" | "f""#)
        .replace("@read_only\n", "");
    let out = diff_against(&new, &["--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let changes = doc["changes"].as_array().expect("a list of changes");
    assert_eq!(doc.as_object().unwrap().len(), 1);
    let mut kinds: Vec<(&str, &str, &str)> = changes
        .iter()
        .map(|c| {
            let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, ["tool", "path", "kind", "message"]);
            assert!(c["message"].as_str().is_some_and(|m| !m.is_empty()));
            (
                c["tool"].as_str().unwrap(),
                c["path"].as_str().unwrap(),
                c["kind"].as_str().unwrap(),
            )
        })
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ("get_weather", "/annotations/readOnlyHint", "safety"),
            ("get_weather", "/inputSchema/properties/unit", "breaking"),
        ]
    );
}

#[test]
fn diff_reads_folders_and_exits_2_for_sources_that_do_not_compile() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "old/a.tool", "/// A.\ntool a { x: string }");
    write(
        dir.path(),
        "old/deep/b.tool",
        "/// B.\ntool b { x: string }",
    );
    write(dir.path(), "new/a.tool", "/// A.\ntool a { x: string }");
    let out = run(dir.path(), &["diff", "old", "new"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "breaking: b: tool removed: calls to it fail\n");

    write(dir.path(), "bad.tool", "tool t { x: strng }");
    let bad = run(dir.path(), &["diff", "old", "bad.tool"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("unknown-type") || bad.stderr.contains("strng"),
        "{}",
        bad.stderr
    );
    let missing = run(dir.path(), &["diff", "old", "nowhere.tool"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    let usage = run(dir.path(), &["diff", "old"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
}

/// The compact JSON's SHA-256, in hex, computed here apart from the command.
fn sha256_hex(value: &Value) -> String {
    Sha256::digest(serde_json::to_string(value).unwrap().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn lock_writes_each_tools_hashes_and_mcp_definition() {
    let dir = with_file("tools.tool", WEATHER);
    let out = run(dir.path(), &["lock", "tools.tool"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(dir.path().join("tools.lock")).expect("tools.lock written");
    let lock: Value = serde_json::from_str(&text).unwrap();
    let top: Vec<&str> = lock
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(top, ["from", "tools", "version"]);
    assert_eq!(
        (lock["version"].as_u64(), lock["from"].as_str()),
        (Some(1), Some("files"))
    );
    let names: Vec<&str> = lock["tools"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names, ["get_weather", "remove"]);

    // The definition is what `compile --target mcp` gives, and each hash is of what the
    // target emits for the tool.
    let compiled = run(dir.path(), &["compile", "tools.tool", "--target", "mcp"]);
    let mcp: Value = serde_json::from_str(&compiled.stdout).unwrap();
    let entry = &lock["tools"]["get_weather"];
    assert_eq!(entry["definition"], mcp["tools"][0]);
    assert_eq!(entry["sha256"]["mcp"], sha256_hex(&mcp["tools"][0]));
    let anthropic = run(
        dir.path(),
        &["compile", "tools.tool", "--target", "anthropic"],
    );
    let anthropic: Value = serde_json::from_str(&anthropic.stdout).unwrap();
    assert_eq!(entry["sha256"]["anthropic"], sha256_hex(&anthropic[0]));
    let targets: Vec<&str> = entry["sha256"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        targets,
        [
            "anthropic",
            "anthropic-strict",
            "gemini",
            "gemini-openapi",
            "json-schema",
            "mcp",
            "openai",
            "openai-responses",
            "openai-strict"
        ]
    );
    assert_eq!(lock["tools"]["remove"]["requires_approval"], true);
    assert_eq!(lock["tools"]["remove"]["settings"], serde_json::json!({}));
    assert!(text.ends_with("}\n"));

    // Writing it again changes nothing.
    run(dir.path(), &["lock", "tools.tool"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tools.lock")).unwrap(),
        text
    );
    // Nor may the lock replace an input.
    let over = run(dir.path(), &["lock", "tools.tool", "--lock", "tools.tool"]);
    assert_eq!(over.code, 2, "{}", over.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tools.tool")).unwrap(),
        WEATHER
    );
}

/// Locks WEATHER, then checks `edited` against the lock.
fn check_after(edited: &str) -> Run {
    let dir = with_file("tools.tool", WEATHER);
    let locked = run(dir.path(), &["lock", "tools.tool", "--lock", "my.lock"]);
    assert_eq!(locked.code, 0, "{}", locked.stderr);
    write(dir.path(), "tools.tool", edited);
    let out = run(
        dir.path(),
        &["lock", "--check", "tools.tool", "--lock", "my.lock"],
    );
    assert!(!dir.path().join("tools.lock").exists());
    out
}

#[test]
fn lock_check_passes_on_the_locked_sources() {
    let out = check_after(WEATHER);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
}

#[test]
fn lock_check_names_a_description_change_as_model() {
    let out =
        check_after(&WEATHER.replace("/// Remove a file.", "/// Remove a file, and every copy."));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "model: remove /description: description changed to \"Remove a file, and every copy.\"\n"
    );
    assert!(
        out.stderr.contains("tool `remove`: changed (model)"),
        "{}",
        out.stderr
    );
}

#[test]
fn lock_check_classifies_schema_changes() {
    let narrowed = check_after(&WEATHER.replace(r#""c" | "f" | "k""#, r#""c" | "f""#));
    assert_eq!(narrowed.code, 1, "{}", narrowed.stderr);
    assert_eq!(
        narrowed.stdout,
        "breaking: get_weather /inputSchema/properties/unit: value \"k\" removed\n"
    );
    let widened = check_after(&WEATHER.replace("@min_length(1)", ""));
    assert_eq!(widened.code, 1, "{}", widened.stderr);
    assert!(
        widened
            .stdout
            .starts_with("compatible: get_weather /inputSchema/properties/city: widened"),
        "{}",
        widened.stdout
    );
    // `@requires_approval` reaches no provider, but the lock keeps it.
    let approval = check_after(&WEATHER.replace("@requires_approval\n", ""));
    assert_eq!(approval.code, 1, "{}", approval.stderr);
    assert!(
        approval
            .stdout
            .starts_with("safety: remove /requires_approval"),
        "{}",
        approval.stdout
    );
    let added = check_after(&format!("{WEATHER}\n/// New.\ntool extra {{}}\n"));
    assert_eq!(added.code, 1, "{}", added.stderr);
    assert_eq!(
        added.stdout,
        "compatible: extra: tool added since the lock\n"
    );
    assert!(
        added.stderr.contains("tool `extra`: added"),
        "{}",
        added.stderr
    );
}

/// A tool with every setting that no provider receives, and a tool whose field has a format.
const SETTINGS: &str = r#"/// Return the weather.
tool get_weather {
  /// The day.
  day?: string @format(date)
}

/// Remove a file.
@lax @scope(admin) @on_error(suppress) @retry(times: 2, wait: exponential, base: 0.5) @meta(owner: "ops")
tool remove { path: string }
"#;

/// Locks `locked`, then checks `edited` against the lock (`lock` is the lock's text, when it
/// is to be replaced before the check).
fn check_settings(locked: &str, edited: &str, lock: Option<&dyn Fn(Value) -> Value>) -> Run {
    let dir = with_file("tools.tool", locked);
    let out = run(dir.path(), &["lock", "tools.tool"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    if let Some(rewrite) = lock {
        let path = dir.path().join("tools.lock");
        let text = std::fs::read_to_string(&path).unwrap();
        let value = rewrite(serde_json::from_str(&text).unwrap());
        std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    }
    write(dir.path(), "tools.tool", edited);
    run(dir.path(), &["lock", "--check", "tools.tool"])
}

#[test]
fn lock_check_sees_the_settings_no_provider_receives() {
    let annotate = SETTINGS.replace("tool get_weather", "@formats(annotate)\ntool get_weather");
    // (locked, edited, the tool, diff's class of each change, the first change printed)
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        (
            SETTINGS,
            &SETTINGS.replace("@lax", "@strict"),
            "remove",
            "breaking",
            "breaking: remove /mode: validation is now strict",
        ),
        (
            SETTINGS,
            &SETTINGS.replace("@lax ", ""),
            "remove",
            "breaking",
            "breaking: remove /mode: validation is now strict",
        ),
        (
            &SETTINGS.replace("@lax", "@strict"),
            SETTINGS,
            "remove",
            "compatible",
            "compatible: remove /mode: validation is now lax",
        ),
        (
            SETTINGS,
            &annotate,
            "get_weather",
            "compatible",
            "compatible: get_weather /formats: @format is now an annotation only",
        ),
        (
            &annotate,
            SETTINGS,
            "get_weather",
            "breaking, compatible",
            "compatible: get_weather /formats: @format is now asserted",
        ),
        (
            SETTINGS,
            &SETTINGS.replace("@scope(admin)", "@scope(billing)"),
            "remove",
            "compatible",
            "compatible: remove /scope: @scope changed",
        ),
        (
            SETTINGS,
            &SETTINGS.replace("@on_error(suppress)", "@on_error(raise)"),
            "remove",
            "compatible",
            "compatible: remove /on_error: @on_error changed",
        ),
        (
            SETTINGS,
            &SETTINGS.replace("times: 2", "times: 3"),
            "remove",
            "compatible",
            "compatible: remove /retry: @retry changed",
        ),
        (
            SETTINGS,
            &SETTINGS.replace("wait: exponential", "wait: 1.5"),
            "remove",
            "compatible",
            "compatible: remove /retry: @retry changed",
        ),
        (
            SETTINGS,
            &SETTINGS.replace(r#"owner: "ops""#, r#"owner: "dev""#),
            "remove",
            "compatible",
            "compatible: remove /meta: @meta changed",
        ),
    ];
    for (locked, edited, tool, kinds, first) in cases {
        let out = check_settings(locked, edited, None);
        assert_eq!(out.code, 1, "{edited}\n{}", out.stderr);
        assert!(out.stdout.starts_with(first), "{edited}\n{}", out.stdout);
        let line = format!("tool `{tool}`: changed ({kinds})");
        assert!(out.stderr.contains(&line), "{edited}\n{}", out.stderr);
        // `diff` on the two sources says the same.
        let dir = with_file("old.tool", locked);
        write(dir.path(), "new.tool", edited);
        let diff = run(dir.path(), &["diff", "old.tool", "new.tool"]);
        assert_eq!(diff.stdout, out.stdout, "{edited}");
    }
    let same = check_settings(SETTINGS, SETTINGS, None);
    assert_eq!(
        (same.code, same.stdout.as_str()),
        (0, ""),
        "{}",
        same.stderr
    );
}

#[test]
fn a_lock_without_settings_still_checks_and_says_what_it_cannot() {
    let strip = |mut lock: Value| {
        for entry in lock["tools"].as_object_mut().unwrap().values_mut() {
            entry.as_object_mut().unwrap().remove("settings");
        }
        lock
    };
    // A lock written before the settings were kept: their change is not seen, and a note says so.
    let out = check_settings(SETTINGS, &SETTINGS.replace("@lax", "@strict"), Some(&strip));
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("not checked for `get_weather` and `remove`"),
        "{}",
        out.stderr
    );
    // What it kept is still checked.
    let described = SETTINGS.replace("/// Remove a file.", "/// Remove one file.");
    let out = check_settings(
        SETTINGS,
        &described.replace("@lax", "@strict"),
        Some(&strip),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "model: remove /description: description changed to \"Remove one file.\"\n"
    );
    // A malformed setting is an error of the lock, at its pointer.
    let bad = |mut lock: Value| {
        lock["tools"]["remove"]["settings"]["retry"]["wait"] = Value::Bool(true);
        lock
    };
    let out = check_settings(SETTINGS, SETTINGS, Some(&bad));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("at /tools/remove/settings/retry/wait"),
        "{}",
        out.stderr
    );
}

#[test]
fn lock_check_without_a_lock_is_an_error() {
    let dir = with_file("tools.tool", WEATHER);
    let out = run(dir.path(), &["lock", "--check", "tools.tool"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("no lock file at tools.lock"),
        "{}",
        out.stderr
    );
    write(
        dir.path(),
        "bad.lock",
        r#"{"version": 1, "from": "files", "tools": {"t": {"sha256": {}}}}"#,
    );
    let bad = run(
        dir.path(),
        &["lock", "--check", "tools.tool", "--lock", "bad.lock"],
    );
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("at /tools/t/definition"),
        "{}",
        bad.stderr
    );
}

fn versioned_server() -> String {
    let script: PathBuf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/versioned_server.py");
    shlex::try_join(["python3", script.to_str().unwrap()]).unwrap()
}

/// Whether the server can run; panics under CI when it cannot.
fn have_python_mcp() -> bool {
    let why = match Command::new("python3")
        .args(["-c", "import mcp.server.mcpserver"])
        .output()
    {
        Ok(out) if out.status.success() => return true,
        Ok(_) => "the Python package mcp >= 2 is not installed (pip install 'mcp>=2')".to_string(),
        Err(e) => format!("python3 cannot run: {e}"),
    };
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why}; CI must run the lock --server tests");
    }
    eprintln!("skipping the lock --server test: {why}");
    false
}

#[test]
fn lock_pins_a_servers_tools_and_check_finds_a_change() {
    if !have_python_mcp() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = versioned_server();
    let version = |v: &'static str| [("TOOLDEF_TEST_TOOLS", v)];
    let lock = run_in(dir.path(), &["lock", "--server", &server], &version("1"));
    assert_eq!(lock.code, 0, "{}", lock.stderr);
    let text = std::fs::read_to_string(dir.path().join("tools.lock")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["from"], "server");
    let convert = &doc["tools"]["convert"];
    assert_eq!(convert["definition"]["name"], "convert");
    assert_eq!(convert["sha256"]["mcp"], sha256_hex(&convert["definition"]));

    let same = run_in(
        dir.path(),
        &["lock", "--check", "--server", &server],
        &version("1"),
    );
    assert_eq!(
        (same.code, same.stdout.as_str()),
        (0, ""),
        "{}",
        same.stderr
    );

    let narrowed = run_in(
        dir.path(),
        &["lock", "--check", "--server", &server],
        &version("2"),
    );
    assert_eq!(narrowed.code, 1, "{}", narrowed.stderr);
    assert_eq!(
        narrowed.stdout,
        "breaking: convert /inputSchema/properties/unit: value \"k\" removed\n"
    );
    assert!(
        narrowed
            .stderr
            .contains("tool `convert`: changed (breaking)"),
        "{}",
        narrowed.stderr
    );

    let described = run_in(
        dir.path(),
        &["lock", "--check", "--server", &server, "--format", "json"],
        &version("3"),
    );
    assert_eq!(described.code, 1, "{}", described.stderr);
    let doc: Value = serde_json::from_str(&described.stdout).unwrap();
    assert_eq!(doc["changes"][0]["kind"], "model");
    assert_eq!(doc["changes"][0]["path"], "/description");
    assert_eq!(doc["changes"].as_array().unwrap().len(), 1);

    // A description that hides words in tag characters is a safety change, not a rendering
    // difference (the comparison's import removes such characters, and so saw none).
    let poisoned = run_in(
        dir.path(),
        &["lock", "--check", "--server", &server, "--format", "json"],
        &version("4"),
    );
    assert_eq!(poisoned.code, 1, "{}", poisoned.stderr);
    let doc: Value = serde_json::from_str(&poisoned.stdout).unwrap();
    let changes = doc["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{doc}");
    assert_eq!(changes[0]["kind"], "safety", "{doc}");
    let message = changes[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("U+E0072") && message.contains("poisoning"),
        "{doc}"
    );
    // Pinning such a tool says so; so does calling it.
    let pinned = run_in(
        dir.path(),
        &["lock", "--server", &server, "--lock", "p.lock"],
        &version("4"),
    );
    assert_eq!(pinned.code, 0, "{}", pinned.stderr);
    assert!(
        pinned.stderr.contains("tool poisoning"),
        "{}",
        pinned.stderr
    );
    let called = run_in(
        dir.path(),
        &[
            "call",
            "--server",
            &server,
            "convert",
            r#"{"value": 1, "unit": "c"}"#,
        ],
        &version("4"),
    );
    assert!(called.stderr.contains("U+E0072"), "{}", called.stderr);

    // A server's lock is not checked against files.
    write(dir.path(), "t.tool", WEATHER);
    let files = run(dir.path(), &["lock", "--check", "t.tool"]);
    assert_eq!(files.code, 2, "{}", files.stderr);
}

#[path = "../../tests/support/corpus.rs"]
mod corpus;
use corpus::corpus;

/// Real servers' tools (the corpus's MCP tool lists): locked and checked unchanged, then every
/// string field given a minimum length, which `lock --check` must report exactly as `diff`
/// does on the sources, though it compares the definitions kept in the lock.
#[test]
fn lock_check_agrees_with_diff_over_real_tools() {
    let Some(corpus) = corpus("the lock test over real MCP tools") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tools = corpus.join("mcp/all_tools.json");
    let import = run(
        dir.path(),
        &[
            "import",
            tools.to_str().unwrap(),
            "--from",
            "mcp",
            "-o",
            "all.tool",
        ],
    );
    assert_eq!(import.code, 0, "{}", import.stderr);
    let locked = run(dir.path(), &["lock", "all.tool"]);
    assert_eq!(locked.code, 0, "{}", locked.stderr);
    let same = run(dir.path(), &["lock", "--check", "all.tool"]);
    assert_eq!(
        (same.code, same.stdout.as_str()),
        (0, ""),
        "{}",
        same.stderr
    );

    let source = std::fs::read_to_string(dir.path().join("all.tool")).unwrap();
    let edited: String = source
        .lines()
        .map(|l| match l.strip_suffix(": string") {
            Some(head) => format!("{head}: string @min_length(1)\n"),
            None => format!("{l}\n"),
        })
        .collect();
    let edits = source.lines().filter(|l| l.ends_with(": string")).count();
    assert!(edits > 100, "{edits} string fields");
    write(dir.path(), "all.tool", &edited);
    write(dir.path(), "old.tool", &source);
    let check = run(dir.path(), &["lock", "--check", "all.tool"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    let diff = run(dir.path(), &["diff", "old.tool", "all.tool"]);
    assert_eq!(diff.code, 1, "{}", diff.stderr);
    let mut from_lock: Vec<&str> = check.stdout.lines().collect();
    let mut from_sources: Vec<&str> = diff.stdout.lines().collect();
    from_lock.sort();
    from_sources.sort();
    assert_eq!(from_lock, from_sources);
    for line in &from_lock {
        assert!(
            line.ends_with("min_length raised from 0 to 1")
                || line.ends_with("/outputSchema: output type narrowed"),
            "{line}"
        );
    }
    let raised = from_lock
        .iter()
        .filter(|l| l.starts_with("breaking: "))
        .count();
    assert!(raised > 100 && raised <= edits, "{raised} of {edits}");
}
