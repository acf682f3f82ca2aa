//! The `fmt` and `import` commands, end to end.

#[path = "../../tests/target_rules/mod.rs"]
mod target_rules;

use std::io::Write;
use std::process::{Command, Stdio};

fn tooldef() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tooldef"))
}

fn run_stdin(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = tooldef()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn fmt_check_lists_files_that_would_change_and_fmt_rewrites_them() {
    let dir = tempfile::tempdir().unwrap();
    let messy = dir.path().join("messy.tool");
    let clean = dir.path().join("clean.tool");
    std::fs::write(&messy, "/// Do it.\ntool   t{a:string // keep me\n}\n").unwrap();
    std::fs::write(&clean, "/// Do it.\ntool t {\n  a: string\n}\n").unwrap();
    let out = tooldef()
        .arg("fmt")
        .arg("--check")
        .arg(&messy)
        .arg(&clean)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("messy.tool"), "{listed}");
    assert!(!listed.contains("clean.tool"), "{listed}");
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "/// Do it.\ntool   t{a:string // keep me\n}\n"
    );

    let out = tooldef()
        .arg("fmt")
        .arg(&messy)
        .arg(&clean)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "/// Do it.\ntool t {\n  a: string // keep me\n}\n"
    );
    let out = tooldef()
        .arg("fmt")
        .arg("--check")
        .arg(&messy)
        .arg(&clean)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}

#[test]
fn fmt_keeps_windows_line_endings_and_a_byte_order_mark() {
    // A checkout with CRLF line endings (git's `autocrlf`) is neither rewritten nor listed by
    // `--check` for its line endings; its layout is still fixed, in its own line endings.
    let dir = tempfile::tempdir().unwrap();
    let windows = dir.path().join("windows.tool");
    let formatted = "\u{feff}/// Do it.\r\ntool t {\r\n  a: string // keep me\r\n}\r\n";
    std::fs::write(&windows, formatted).unwrap();
    let out = tooldef()
        .arg("fmt")
        .arg("--check")
        .arg(&windows)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stdout.is_empty());

    std::fs::write(
        &windows,
        "\u{feff}/// Do it.\r\ntool   t{a:string // keep me\r\n}",
    )
    .unwrap();
    let out = tooldef().arg("fmt").arg(&windows).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(std::fs::read_to_string(&windows).unwrap(), formatted);
}

#[test]
fn fmt_refuses_a_file_that_does_not_parse() {
    let (code, out, err) = run_stdin(&["fmt", "-"], "tool {");
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("syntax"), "{err}");
}

#[test]
fn import_prints_canonical_source_that_compiles() {
    let schema = r#"{"title": "search", "description": "Search.", "type": "object",
        "properties": {"q": {"type": "string", "minLength": 1}, "n": {"minimum": 2}},
        "required": ["q"]}"#;
    let (code, out, err) = run_stdin(&["import", "-", "--from", "json-schema"], schema);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("tool search {"), "{out}");
    assert!(out.contains("q: string @min_length(1)"), "{out}");
    assert!(
        out.contains("n?: string | number @min(2) | boolean | any[] | { ... } | null"),
        "{out}"
    );
    assert!(
        out.trim_end().ends_with("...\n}") || out.contains("  ...\n}"),
        "open: {out}"
    );
    tooldef::compile(&out).unwrap();
    let (code, again, _) = run_stdin(&["fmt", "-"], &out);
    assert_eq!(code, 0);
    assert_eq!(again, out);
}

#[test]
fn import_errors_name_the_keyword_and_pointer() {
    let schema = r#"{"type": "object", "properties": {"a": {"not": {"type": "string"}}}}"#;
    let (code, out, err) = run_stdin(&["import", "-", "--from", "json-schema"], schema);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    // The pointer, the code, the message and the keyword at fault.
    assert_eq!(
        err,
        "error: <stdin>: at /properties/a/not: [import-unsupported] the keyword `not` has no equivalent in the language [not]\n"
    );
    // Text that is not JSON has its code too.
    let (code, out, err) = run_stdin(&["import", "-", "--from", "json-schema"], "{");
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.starts_with("error: <stdin>: at /: [import-not-json] not JSON: "),
        "{err}"
    );
}

#[test]
fn tool_dialects_close_objects_unless_kept_open() {
    let tools = r#"[{"type": "function", "function": {"name": "f", "description": "F.",
        "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}}]"#;
    let (code, closed, err) = run_stdin(&["import", "-", "--from", "openai"], tools);
    assert_eq!(code, 0, "{err}");
    assert!(!closed.contains("..."), "{closed}");
    assert_eq!(err.matches("--keep-open").count(), 1, "{err}");
    assert!(
        err.contains(
            "warning: <stdin>: at /: [import-closed-object] objects that declare properties"
        ),
        "{err}"
    );
    let (code, open, _) = run_stdin(&["import", "-", "--from", "openai", "--keep-open"], tools);
    assert_eq!(code, 0);
    assert!(open.contains("..."), "{open}");
}

#[test]
fn typed_extra_keys_reach_every_target() {
    use tooldef::emit::{self, Options, Target};
    let src = "/// Tag things.\ntool tag {\n  id: string\n  ...: integer\n}\n";
    let m = tooldef::compile(src).unwrap().module;
    let tool = &m.tools[0];
    let schema = emit::parameters(&m, tool);
    assert_eq!(
        schema["additionalProperties"],
        serde_json::json!({"type": "integer"})
    );
    assert_eq!(schema["required"], serde_json::json!(["id"]));
    let ty = tooldef::model::Ty::Object(Box::new(tool.params.clone()));
    assert!(
        tooldef::validate::first_violation(&m, &ty, &serde_json::json!({"id": "a", "n": 1}))
            .is_none()
    );
    assert!(
        tooldef::validate::first_violation(&m, &ty, &serde_json::json!({"id": "a", "n": "x"}))
            .is_some()
    );
    for &target in Target::ALL {
        match emit::tools(&m, target, &Options::default()) {
            Ok(out) => {
                let broken = target_rules::check(target, &out.json);
                assert!(broken.is_empty(), "{}: {broken:?}", target.as_str());
                let s = match target {
                    Target::Mcp => out.json["tools"][0]["inputSchema"].clone(),
                    Target::Anthropic => out.json[0]["input_schema"].clone(),
                    Target::OpenAi => out.json[0]["function"]["parameters"].clone(),
                    Target::JsonSchema => out.json[0]["parameters"].clone(),
                    Target::Gemini => {
                        out.json[0]["functionDeclarations"][0]["parametersJsonSchema"].clone()
                    }
                    // Strict mode and Gemini's schema send the extra keys as entries.
                    Target::OpenAiResponses => {
                        assert!(out.json[0]["parameters"]["properties"]
                            .get(tooldef::validate::EXTRA_KEYS)
                            .is_some());
                        continue;
                    }
                    Target::OpenAiStrict => {
                        assert!(out.json[0]["function"]["parameters"]["properties"]
                            .get(tooldef::validate::EXTRA_KEYS)
                            .is_some());
                        continue;
                    }
                    Target::AnthropicStrict => {
                        assert!(out.json[0]["input_schema"]["properties"]
                            .get(tooldef::validate::EXTRA_KEYS)
                            .is_some());
                        continue;
                    }
                    _ => {
                        assert!(
                            out.json[0]["functionDeclarations"][0]["parameters"]["properties"]
                                .get(tooldef::validate::EXTRA_KEYS)
                                .is_some()
                        );
                        continue;
                    }
                };
                assert_eq!(
                    s["additionalProperties"]["type"],
                    "integer",
                    "{}",
                    target.as_str()
                );
            }
            Err(e) => {
                assert!(
                    matches!(target, Target::OpenAiStrict | Target::GeminiOpenApi),
                    "{}",
                    target.as_str()
                );
                assert!(e
                    .errors()
                    .all(|d| d.code == tooldef::Code::NotRepresentable));
            }
        }
    }
}

#[test]
fn fmt_handles_crlf_comment_only_and_empty_files() {
    let crlf = "// top\r\n\r\n/// Does.\r\ntool t {\r\n  a: string // why\r\n}\r\n";
    // Already formatted: the CRLF line endings are kept.
    assert_eq!(tooldef::format(crlf).unwrap(), crlf);
    assert_eq!(
        tooldef::format(&crlf.replace("\r\n", "\n")).unwrap(),
        "// top\n\n/// Does.\ntool t {\n  a: string // why\n}\n"
    );
    assert_eq!(
        tooldef::format("// only\n// comments\n").unwrap(),
        "// only\n// comments\n"
    );
    assert_eq!(tooldef::format("").unwrap(), "");
    assert_eq!(tooldef::format("\u{FEFF}").unwrap(), "\u{FEFF}");
}

#[test]
fn import_deny_hidden_turns_the_hidden_character_warning_into_exit_code_1() {
    let doc = |description: &str| {
        serde_json::json!({"tools": [{
            "name": "t",
            "description": description,
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
        }]})
        .to_string()
    };
    let poisoned = doc("Do it.\u{E0100}\u{E0101}");
    let clean = doc("Do it.");

    let (code, out, err) = run_stdin(&["import", "--from", "mcp", "-"], &poisoned);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: <stdin>: at /tools/0/description: [forbidden-character] the description contains the invisible or control character U+E0100; it was removed"),
        "{err}"
    );
    assert!(out.contains("/// Do it.\n"), "{out}");

    let (code, out, err) = run_stdin(
        &["import", "--from", "mcp", "--deny-hidden", "-"],
        &poisoned,
    );
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("error: <stdin>: at /tools/0/description: [forbidden-character] description contains the invisible or control character U+E0100"),
        "{err}"
    );
    assert_eq!(out, "");

    let (code, out, err) = run_stdin(&["import", "--from", "mcp", "--deny-hidden", "-"], &clean);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.contains("tool t"), "{out}");
}

#[test]
fn import_goes_on_past_a_tool_it_cannot_express() {
    let tools = r#"[
 {"name": "good", "description": "Good.", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}}},
 {"name": "bad", "description": "Bad.", "input_schema": {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}},
 {"name": "other", "description": "Other.", "input_schema": {"type": "object", "properties": {"b": {"type": "integer"}}}},
 {"name": "good", "description": "Again.", "input_schema": {"type": "object"}}
]"#;
    let (code, out, err) = run_stdin(&["import", "-", "--from", "anthropic"], tools);
    assert_eq!(code, 3, "{err}");
    assert!(
        out.contains("tool good {") && out.contains("tool other {"),
        "{out}"
    );
    assert!(!out.contains("tool bad"), "{out}");
    assert!(
        err.contains("error: <stdin>: at /1/input_schema/properties/a/not: [import-unsupported] the keyword `not` has no equivalent in the language [not]\nrefused: <stdin>: the tool at /1 was not imported\n"),
        "{err}"
    );
    assert!(
        err.contains("error: <stdin>: at /3/name: [duplicate-name] the tool `good` is defined more than once\nrefused: <stdin>: the tool at /3 was not imported\n"),
        "{err}"
    );
    assert!(err.contains("imported 2 tools, refused 2"), "{err}");
    // All or nothing.
    let (code, out, err) = run_stdin(&["import", "-", "--from", "anthropic", "--strict"], tools);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(!err.contains("refused:"), "{err}");
}
