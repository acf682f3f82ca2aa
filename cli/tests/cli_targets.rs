//! `tooldef compile --target T`: the output shapes, warnings on standard error, `--quiet`, and
//! exit code 1 when a target cannot represent the file.

use std::process::Command;

use serde_json::Value;

fn tooldef(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_target_prints_its_shape() {
    for (target, check) in [
        ("openai", "/0/function/parameters/type"),
        ("openai-strict", "/0/function/strict"),
        ("openai-responses", "/0/strict"),
        ("anthropic", "/0/input_schema/type"),
        ("anthropic-strict", "/0/strict"),
        (
            "gemini",
            "/0/functionDeclarations/0/parametersJsonSchema/type",
        ),
        (
            "gemini-openapi",
            "/0/functionDeclarations/0/parameters/type",
        ),
        ("mcp", "/tools/0/inputSchema/type"),
        ("json-schema", "/0/parameters/$schema"),
    ] {
        let (code, stdout, stderr) =
            tooldef(&["compile", "examples/calendar.tool", "--target", target]);
        assert_eq!(code, 0, "{target}: {stderr}");
        let json: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
        assert!(
            json.pointer(check).is_some(),
            "{target}: no {check} in {stdout}"
        );
    }
}

#[test]
fn folded_constraints_warn_unless_quiet() {
    let (code, _, stderr) = tooldef(&["compile", "examples/calendar.tool", "--target", "gemini"]);
    assert_eq!(code, 0);
    assert!(stderr.contains("folded-constraint"), "{stderr}");
    assert!(
        stderr.contains("calendar.tool:"),
        "warnings name the source location: {stderr}"
    );
    let (code, stdout, stderr) = tooldef(&[
        "compile",
        "examples/calendar.tool",
        "--target",
        "gemini",
        "--quiet",
    ]);
    assert_eq!(code, 0);
    assert!(stderr.is_empty(), "--quiet prints nothing: {stderr}");
    assert!(stdout.contains("functionDeclarations"));
}

#[test]
fn a_target_that_cannot_represent_the_file_exits_1() {
    let (code, stdout, stderr) = tooldef(&[
        "compile",
        "examples/tasks.tool",
        "--target",
        "gemini-openapi",
        "--quiet",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("not-representable") && stderr.contains("Task"),
        "{stderr}"
    );
    // The same file compiles for targets that have `$ref`.
    let (code, _, stderr) = tooldef(&[
        "compile",
        "examples/tasks.tool",
        "--target",
        "openai-strict",
        "-q",
    ]);
    assert_eq!(code, 0, "{stderr}");
    // One tool of a file can be compiled when another cannot.
    let (code, stdout, _) = tooldef(&[
        "compile",
        "examples/tasks.tool",
        "--target",
        "gemini-openapi",
        "--tool",
        "complete_task",
        "-q",
    ]);
    assert_eq!(code, 0);
    let json: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    assert_eq!(json["name"], "complete_task");
}

#[test]
fn build_checks_the_per_request_limits_of_anthropic_strict() {
    let out_dir =
        std::env::temp_dir().join(format!("tooldef-astrict-build-{}", std::process::id()));
    let out = out_dir.display().to_string();
    // issue_tracker's tools have 33 optional parameters together; Anthropic allows 24.
    let (code, _, stderr) = tooldef(&[
        "build",
        "examples/issue_tracker.tool",
        "--target",
        "anthropic-strict",
        "--out-dir",
        &out,
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("target-limit")
            && stderr.contains("have 33 optional parameters; the limit per request is 24"),
        "{stderr}"
    );
    assert!(!out_dir.join("anthropic-strict.json").exists());
    let (code, _, stderr) = tooldef(&[
        "build",
        "examples/weather.tool",
        "--target",
        "anthropic-strict",
        "--out-dir",
        &out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let written = std::fs::read_to_string(out_dir.join("anthropic-strict.json")).expect("written");
    let json: Value = serde_json::from_str(&written).expect("JSON");
    assert_eq!(json[0]["strict"], true);
    let _ = std::fs::remove_dir_all(&out_dir);
}
