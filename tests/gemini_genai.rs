//! The Gemini output of every example (and of a few sources written for the purpose), in both
//! forms (`gemini`, `gemini-openapi`), validates as google-genai's `Tool` / `FunctionDeclaration`
//! models, and the JSON Schema form uses only the keywords google-genai documents as supported,
//! checked offline by `tests/gemini_genai.py`. Skips with a notice when python3 or google-genai is missing, except
//! when `CI=true`, where that is a failure.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use tooldef::emit::{self, Options, Target};

/// Sources that exercise what Gemini needs rewritten: nullable unions, integer enums, exclusive
/// bounds, literals, open objects; for the JSON Schema form, maps, tuples, recursion and
/// outputs; for the OpenAPI form, what it lowers (maps, extra keys, objects of any keys, `any`).
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
  count: integer @exclusive_min(0) @multiple_of(3)
  maybe?: (string | integer) | null
  flag: true
  mode: "a" | "b" | 3
  extra?: { known: string, ... }
  when?: string @format(date-time)
  days: (integer @min(1))[] @unique
}
/// No parameters.
tool ping {}
"#,
    ),
    (
        "json-schema-form",
        r#"
/// A tree.
type Tree { label: string @pattern("^[a-z]+$"), children?: Tree[] }
/// Plant it.
tool plant -> { id: integer, at: [number, number] } {
  tree: Tree
  labels?: map<string | null>
  pair?: [integer, string?]
  mode?: "a" | 1 | true | null
  anything?: any
  on?: string @format(date) = "2024-01-01"
}
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
}
/// Anything goes.
tool anything { ... }
"#,
    ),
];

fn python_with_genai() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import google.genai"])
        .output()
        .map_err(|e| format!("python3 cannot run: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err("the Python package google-genai is not installed (pip install google-genai)".into())
    }
}

#[test]
fn gemini_output_validates_with_google_genai() {
    if let Err(why) = python_with_genai() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{why}; CI must run the google-genai check");
        }
        eprintln!("skipping the google-genai check: {why}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources: Vec<(String, String)> = EXTRA
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect();
    for entry in std::fs::read_dir(root.join("examples")).expect("examples/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|x| x == "tool") {
            let text = std::fs::read_to_string(&path).expect("example is readable");
            sources.push((path.display().to_string(), text));
        }
    }
    let mut cases = Vec::new();
    for (name, source) in &sources {
        let module = tooldef::compile(source)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .module;
        // Examples Gemini cannot represent are errors, covered by the snapshots; each tool that
        // Gemini can represent is checked on its own.
        for target in [Target::Gemini, Target::GeminiOpenApi] {
            let t = target.as_str();
            for tool in &module.tools {
                if let Ok(e) = emit::tool(&module, tool, target, &Options::default()) {
                    cases.push(json!({"name": format!("{name} ({t}): {}", tool.name), "tools": [{"functionDeclarations": [e.json]}]}));
                }
            }
            if let Ok(e) = emit::tools(&module, target, &Options::default()) {
                cases.push(json!({"name": format!("{name} ({t})"), "tools": e.json}));
            }
        }
    }
    assert!(
        cases.len() >= 3,
        "too few Gemini outputs to check: {}",
        cases.len()
    );
    let mut child = Command::new("python3")
        .arg(root.join("tests/gemini_genai.py"))
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
        "google-genai rejected tooldef's Gemini output:\n{stderr}{stdout}"
    );
    eprintln!("{stdout}");
}
