//! The `anthropic-strict` output of every example (and of a few sources written for the
//! purpose) validates as the anthropic SDK's `ToolParam`, round-trips through it unchanged, and
//! passes the SDK's `transform_schema`, checked offline by `tests/anthropic_sdk.py`. Skips with
//! a notice when python3 or the anthropic package is missing, except when `CI=true`, where that
//! is a failure.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use tooldef::emit::{self, Options, Target};

/// Sources that exercise what strict mode rewrites: bounds, lengths, item counts, formats,
/// patterns, defaults, nullable unions, literals, and what it lowers (maps, extra keys, open
/// objects, `any`, tuples).
const EXTRA: &[(&str, &str)] = &[
    (
        "rewrites",
        r#"
/// Level.
enum Level { /// low
  1 /// high
  2 }
/// Do it.
tool do_it {
  level: Level
  ratio?: number @exclusive_min(0) @exclusive_max(1)
  count?: integer @exclusive_min(0) @multiple_of(3) = 3
  maybe?: (string | integer) | null
  flag: true
  mode: "a" | "b" | 3
  when?: string @format(date-time)
  site?: string @format(uri) @pattern("^https://")
  word?: string @pattern("\\bx\\b")
  days: (integer @min(1))[] @unique @min_items(2) @max_items(9)
}
/// No parameters.
tool ping {}
"#,
    ),
    (
        "lowered",
        r#"
/// Send a request.
tool send {
  headers?: { ... }
  rows: { ... }[]
  counts: map<integer>
  meta?: { known: string, ...: boolean }
  payload?: any
  pair?: [integer, string?]
}
/// Anything goes.
tool anything { ... }
"#,
    ),
];

fn python_with_anthropic() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import anthropic, pydantic"])
        .output()
        .map_err(|e| format!("python3 cannot run: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err("the Python package anthropic is not installed (pip install anthropic)".into())
    }
}

#[test]
fn anthropic_strict_output_validates_as_the_sdks_tool_param() {
    if let Err(why) = python_with_anthropic() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{why}; CI must run the anthropic SDK check");
        }
        eprintln!("skipping the anthropic SDK check: {why}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources: Vec<(String, String)> = EXTRA
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect();
    let mut examples = 0;
    for entry in std::fs::read_dir(root.join("examples")).expect("examples/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|x| x == "tool") {
            let text = std::fs::read_to_string(&path).expect("example is readable");
            sources.push((path.display().to_string(), text));
            examples += 1;
        }
    }
    let mut cases = Vec::new();
    let mut tools_checked = 0;
    for (name, source) in &sources {
        let module = tooldef::compile(source)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .module;
        // A file strict mode refuses (a recursive type, a per-request limit) is covered by the
        // snapshots; each tool it can represent is checked on its own.
        for tool in &module.tools {
            if let Ok(e) = emit::tool(&module, tool, Target::AnthropicStrict, &Options::default()) {
                tools_checked += 1;
                cases.push(json!({"name": format!("{name}: {}", tool.name), "tools": [e.json]}));
            }
        }
        if let Ok(e) = emit::tools(&module, Target::AnthropicStrict, &Options::default()) {
            cases.push(json!({"name": name, "tools": e.json}));
        }
    }
    assert!(
        tools_checked >= examples,
        "too few anthropic-strict tools to check: {tools_checked}"
    );
    let mut child = Command::new("python3")
        .arg(root.join("tests/anthropic_sdk.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let input = serde_json::to_vec(&Value::Array(cases)).expect("JSON serializes");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&input)
        .expect("python3 reads the cases");
    let out = child.wait_with_output().expect("python3 finishes");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the anthropic SDK rejected tooldef's anthropic-strict output:\n{stderr}{stdout}"
    );
    eprintln!("{stdout}");
}
