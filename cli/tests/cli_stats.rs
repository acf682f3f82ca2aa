//! `tooldef stats`: the token counts are tiktoken-rs's `o200k_base` count of what `compile`
//! emits for the tool, the JSON rows have their documented shape, and `--budget` exits with 1
//! naming every tool over it.

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

const FILES: &[&str] = &["examples/calendar.tool", "examples/tasks.tool"];
const TARGETS: &str = "openai,openai-strict,anthropic,gemini,mcp,json-schema";

fn rows(extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["stats"];
    args.extend(FILES);
    args.extend(["--format", "json"]);
    args.extend(extra);
    let (code, stdout, stderr) = tooldef(&args);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    json.as_array().expect("an array of rows").clone()
}

/// What `compile --tool` prints for the tool, as the compact JSON a request carries.
fn compiled(tool: &str, target: &str) -> String {
    for file in FILES {
        let (code, stdout, _) = tooldef(&[
            "compile", file, "--target", target, "--tool", tool, "--quiet",
        ]);
        if code == 0 {
            let v: Value = serde_json::from_str(&stdout).expect("compile prints JSON");
            return v.to_string();
        }
    }
    panic!("no file compiles `{tool}` for {target}");
}

#[test]
fn token_counts_are_the_o200k_count_of_the_emitted_json() {
    let bpe = tiktoken_rs::o200k_base().expect("the encoding is bundled");
    let all = rows(&["--target", TARGETS]);
    assert!(all.len() >= 10, "too few rows: {}", all.len());
    for row in &all {
        let tool = row["tool"].as_str().expect("a tool name");
        let target = row["target"].as_str().expect("a target");
        let json = compiled(tool, target);
        let tokens = bpe.encode_ordinary(&json).len();
        assert_eq!(row["tokens"], tokens, "{tool} in {target}");
        assert_eq!(row["bytes"], json.len(), "{tool} in {target}");
        let baseline = bpe.encode_ordinary(&compiled(tool, "json-schema")).len();
        assert_eq!(row["baseline_tokens"], baseline, "{tool} in {target}");
    }
}

#[test]
fn json_rows_have_their_shape_and_say_which_counts_are_exact() {
    let all = rows(&["--target", TARGETS]);
    // calendar has 2 tools and tasks 3, and each compiles for every one of these targets.
    assert_eq!(all.len(), 5 * 6);
    for row in &all {
        let m = row.as_object().expect("a row is an object");
        for key in ["tool", "target", "bytes", "tokens", "exact"] {
            assert!(m.contains_key(key), "no `{key}` in {row}");
        }
        assert!(row["bytes"].as_u64().is_some_and(|b| b > 0), "{row}");
        assert!(row["tokens"].as_u64().is_some_and(|t| t > 0), "{row}");
        let target = row["target"].as_str().unwrap();
        let exact = target.starts_with("openai");
        assert_eq!(row["exact"], exact, "{row}");
        assert!(
            row["description_tokens"].as_u64() < row["tokens"].as_u64(),
            "{row}"
        );
        if target == "json-schema" {
            assert_eq!(row["growth"], 1.0, "{row}");
        }
    }
    // Without --target: the default set, four targets per tool.
    let defaults = rows(&[]);
    let targets: Vec<&str> = defaults[..4]
        .iter()
        .map(|r| r["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["openai", "anthropic", "gemini", "mcp"]);
    assert_eq!(defaults.len(), 5 * 4);
}

#[test]
fn budget_exits_1_naming_every_tool_over_it() {
    let all = rows(&["--target", "openai"]);
    let tokens = |r: &Value| r["tokens"].as_u64().unwrap();
    let largest = all.iter().map(tokens).max().unwrap();
    let smallest = all.iter().map(tokens).min().unwrap();

    let mut args = vec!["stats"];
    args.extend(FILES);
    let above = (largest).to_string();
    let (code, _, stderr) =
        tooldef(&[&args[..], &["--target", "openai", "--budget", &above]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("over budget"), "{stderr}");

    let below = (smallest).to_string();
    let (code, _, stderr) =
        tooldef(&[&args[..], &["--target", "openai", "--budget", &below]].concat());
    assert_eq!(code, 1, "{stderr}");
    for r in all.iter().filter(|r| tokens(r) > smallest) {
        let name = r["tool"].as_str().unwrap();
        assert!(
            stderr.contains(&format!("`{name}`")),
            "{name} not named: {stderr}"
        );
    }
    let named = stderr
        .lines()
        .filter(|l| l.starts_with("over budget"))
        .count();
    assert_eq!(named, all.iter().filter(|r| tokens(r) > smallest).count());
}

#[test]
fn the_table_marks_estimates() {
    let (code, stdout, stderr) = tooldef(&["stats", "examples/weather.tool"]);
    assert_eq!(code, 0, "{stderr}");
    let openai = stdout
        .lines()
        .find(|l| l.contains(" openai "))
        .expect("an openai row");
    let gemini = stdout
        .lines()
        .find(|l| l.contains(" gemini "))
        .expect("a gemini row");
    assert!(!openai.contains('~'), "{openai}");
    assert!(gemini.contains('~'), "{gemini}");
    assert!(stdout.contains("o200k_base"), "{stdout}");
}

#[test]
fn anthropic_strict_counts_the_limits_of_one_request() {
    let (code, stdout, stderr) = tooldef(&[
        "stats",
        "examples/weather.tool",
        "--target",
        "anthropic-strict",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(
            "anthropic-strict, per request (the tools above sent together): 1 of 20 strict tools, 8 of 24 optional parameters, 1 of 16 parameters with union types."
        ),
        "{stdout}"
    );
    // issue_tracker's tools have 33 optional parameters together.
    let (code, _, stderr) = tooldef(&[
        "stats",
        "examples/issue_tracker.tool",
        "--target",
        "anthropic-strict",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("over a limit: the tools sent together for anthropic-strict have 33 optional parameters; the limit per request is 24"),
        "{stderr}"
    );
    // Without anthropic-strict, no such count.
    let (code, stdout, _) = tooldef(&["stats", "examples/issue_tracker.tool"]);
    assert_eq!(code, 0);
    assert!(!stdout.contains("per request"));
}
