//! The `tooldef` binary, run for real: outputs, exit codes (0 ok, 1 source errors, 2 usage or
//! I/O errors) and machine-readable diagnostics.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn tooldef(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tooldef");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(input);
    child.wait_with_output().expect("wait")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const BROKEN: &str =
    "/// A tool.\ntool t {\n  /// A.\n  a: strng\n  /// B.\n  b: string @min(1)\n}\n";

#[test]
fn compile_prints_every_tool_in_file_order() {
    let out = tooldef(&["compile", "tests/fixtures/valid/objects.tool"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let names: Vec<&str> = json
        .as_array()
        .expect("array")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["objects", "ping"]);
    let keys: Vec<&String> = json[0].as_object().expect("object").keys().collect();
    assert_eq!(keys, ["name", "description", "parameters"]);
}

#[test]
fn compile_one_tool_prints_an_object_with_its_output() {
    let out = tooldef(
        &[
            "compile",
            "examples/weather.tool",
            "--tool",
            "get_weather_by_locality",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(json["name"], "get_weather_by_locality");
    assert_eq!(json["parameters"]["type"], "object");
    assert_eq!(json["output"]["type"], "object");
}

#[test]
fn compile_unknown_tool_is_a_usage_error_with_a_suggestion() {
    let out = tooldef(
        &[
            "compile",
            "examples/weather.tool",
            "--tool",
            "get_weather_by_localty",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("did you mean `get_weather_by_locality`?"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn compile_writes_to_a_file_with_o() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out.json");
    let out = tooldef(
        &[
            "compile",
            "examples/weather.tool",
            "-o",
            path.to_str().expect("utf8"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let text = std::fs::read_to_string(&path).expect("written");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(json[0]["name"], "get_weather_by_locality");
}

#[test]
fn compile_errors_exit_1_with_snippets() {
    let out = tooldef(&["compile", "-"], Some(BROKEN));
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(err.contains("unknown type `strng`"), "{err}");
    assert!(err.contains("<stdin>:4:6"), "{err}");
    assert!(err.contains("did you mean `string`?"), "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "NO_COLOR output has no escape codes"
    );
}

#[test]
fn check_reports_all_errors_and_exits_1() {
    let out = tooldef(&["check", "-"], Some(BROKEN));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("tooldef::unknown-type"), "{err}");
    assert!(err.contains("tooldef::attribute-not-applicable"), "{err}");
    assert!(
        err.contains("checked 1 file: 2 errors, 0 warnings"),
        "{err}"
    );
}

#[test]
fn check_clean_files_exit_0() {
    let out = tooldef(
        &[
            "check",
            "examples/weather.tool",
            "tests/fixtures/valid/scalars.tool",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("checked 2 files: 0 errors, 0 warnings"));
}

#[test]
fn check_json_format_has_every_field() {
    let out = tooldef(&["check", "--format", "json", "-"], Some(BROKEN));
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON on stdout");
    let first = &json[0];
    assert_eq!(first["code"], "unknown-type");
    assert_eq!(first["severity"], "error");
    assert_eq!(first["file"], "<stdin>");
    assert_eq!(first["line"], 4);
    assert_eq!(first["column"], 6);
    assert_eq!(first["end_line"], 4);
    assert_eq!(first["end_column"], 11);
    let start = BROKEN.find("strng").expect("offset");
    assert_eq!(first["span"]["start"], start);
    assert_eq!(first["span"]["end"], start + 5);
    assert_eq!(first["help"], "did you mean `string`?");
    assert!(first["message"]
        .as_str()
        .is_some_and(|m| m.contains("strng")));
    assert!(first["related"].is_array());
    assert_eq!(json[1]["code"], "attribute-not-applicable");
    assert_eq!(json[1]["related"][0]["message"], "this is a string");
}

#[test]
fn check_warnings_do_not_fail() {
    let out = tooldef(&["check", "tests/fixtures/valid/warnings.tool"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("8 warnings"), "{}", stderr(&out));
}

#[test]
fn missing_files_and_bad_flags_exit_2() {
    let out = tooldef(&["check", "does/not/exist.tool"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read does/not/exist.tool"));
    let out = tooldef(
        &["compile", "examples/weather.tool", "--target", "nope"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let out = tooldef(&["check"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn invalid_utf8_on_stdin_is_a_diagnostic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(["check", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"/// t\ntool t { a: \xff }")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json[0]["code"], "invalid-utf8");
    assert_eq!(json[0]["line"], 2);
    assert_eq!(json[0]["column"], 13);
}

#[test]
fn a_closed_stdout_is_not_a_crash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(["compile", "tests/fixtures/invalid/schema_too_deep.tool"])
        .args(["--format", "json"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_ne!(out.status.code(), Some(101), "panicked: {}", stderr(&out));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldef"))
        .args(["compile", "examples/weather.tool"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_ne!(out.status.code(), Some(101), "panicked: {}", stderr(&out));
}

#[test]
fn check_goes_on_past_an_unreadable_file() {
    let out = tooldef(
        &[
            "check",
            "tests/fixtures/invalid/duplicates.tool",
            "no/such.tool",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("cannot read no/such.tool"), "{err}");
    assert!(err.contains("tooldef::duplicate-name"), "{err}");
}

#[test]
fn imports_are_read_relative_to_the_file_and_errors_name_their_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("lib")).expect("mkdir");
    std::fs::write(
        dir.path().join("lib/common.tool"),
        "/// An address.\ntype Address {\n  street: string\n}\n",
    )
    .expect("write");
    let a = dir.path().join("a.tool");
    std::fs::write(
        &a,
        "import { Address } from \"./lib/common.tool\"\n\n/// Ships.\ntool ship { to: Address }\n",
    )
    .expect("write");
    let a = a.to_str().expect("utf-8 path");
    let o = tooldef(&["compile", a, "--target", "openai"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"street\""), "{}", stdout(&o));

    // An error inside the imported file is reported in that file.
    std::fs::write(
        dir.path().join("lib/common.tool"),
        "/// An address.\ntype Address {\n  street: Strng\n}\n",
    )
    .expect("write");
    let o = tooldef(&["check", "--format", "json", a], None);
    assert_eq!(o.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(json[0]["code"], "unknown-type");
    assert!(
        json[0]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("lib/common.tool")),
        "{json}"
    );
    assert_eq!(json[0]["line"], 3);

    // A missing file is an error at the import's path.
    std::fs::remove_file(dir.path().join("lib/common.tool")).expect("rm");
    let o = tooldef(&["check", a], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unresolved-import"), "{}", stderr(&o));
}

/// `../../shared.tool` from `a/b/c/main.tool`, run in `a/b/c` as `main.tool`, is `a/shared.tool`:
/// it used to compile the decoy `a/b/c/shared.tool` instead, and exit 0 (the second `..` took
/// back the first). Named from the top (`a/b/c/main.tool`) or by an absolute path it was right.
#[test]
fn an_import_climbing_out_of_the_working_folder_reads_the_file_it_names() {
    let dir = tempfile::tempdir().expect("temp dir");
    let deep = dir.path().join("a/b/c");
    std::fs::create_dir_all(&deep).expect("mkdir");
    std::fs::write(
        dir.path().join("a/shared.tool"),
        "type Money { cents: integer }\n",
    )
    .expect("write");
    std::fs::write(deep.join("shared.tool"), "type Money { wrong: string }\n").expect("write");
    std::fs::write(
        deep.join("main.tool"),
        "import { Money } from \"../../shared.tool\"\n/// T.\ntool t { m: Money }\n",
    )
    .expect("write");
    let absolute = deep.join("main.tool");
    let absolute = absolute.to_str().expect("utf-8 path");
    let top = dir.path().to_str().expect("utf-8 path");
    for (cwd, root) in [
        (deep.as_path(), "main.tool"),
        (deep.as_path(), "./main.tool"),
        (dir.path(), "a/b/c/main.tool"),
        (dir.path(), absolute),
    ] {
        // The import leaves the folder of the file named, so the project root is named.
        let o = Command::new(env!("CARGO_BIN_EXE_tooldef"))
            .args(["compile", "--root", top, "--target", "openai", root])
            .current_dir(cwd)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("run tooldef");
        assert_eq!(o.status.code(), Some(0), "{root}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.contains("\"cents\"") && !out.contains("\"wrong\""),
            "{root}: {out}"
        );
    }
}

#[test]
fn build_writes_one_document_per_target_and_check_finds_stale_and_missing_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("tools");
    std::fs::create_dir_all(src.join("more")).expect("mkdir");
    std::fs::write(src.join("common.tool"), "type Address { street: string }\n").expect("write");
    std::fs::write(
        src.join("ship.tool"),
        "import { Address } from \"./common.tool\"\n/// Ships.\ntool ship { to: Address }\n",
    )
    .expect("write");
    std::fs::write(src.join("more/ping.tool"), "/// Pings.\ntool ping {}\n").expect("write");
    let out = dir.path().join("out");
    let (src_s, out_s) = (src.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    let build = |extra: &[&str]| {
        let mut args = vec!["build", src_s, "--target", "openai,mcp", "--out-dir", out_s];
        args.extend_from_slice(extra);
        tooldef(&args, None)
    };

    let o = build(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let openai: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("openai.json")).expect("openai.json"))
            .expect("json");
    let names: Vec<&str> = openai
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["ping", "ship"],
        "every file of the folder, recursively"
    );
    let mcp: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("mcp.json")).expect("mcp.json"))
            .expect("json");
    assert_eq!(mcp["tools"].as_array().map(Vec::len), Some(2));

    // Fresh: 0. A changed source: 1, naming both stale documents. A missing one: 1.
    assert_eq!(build(&["--check"]).status.code(), Some(0));
    std::fs::write(
        src.join("more/ping.tool"),
        "/// Pings twice.\ntool ping {}\n",
    )
    .expect("write");
    let o = build(&["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("openai.json: not what the sources give"),
        "{}",
        stderr(&o)
    );
    build(&[]);
    std::fs::remove_file(out.join("mcp.json")).expect("rm");
    let o = build(&["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("mcp.json: missing"), "{}", stderr(&o));
    assert!(!out.join("mcp.json").exists(), "--check writes nothing");

    // A tool defined in two files of the set: an error with both places.
    std::fs::write(
        src.join("more/dup.tool"),
        "/// Ships again.\ntool ship {}\n",
    )
    .expect("write");
    let o = build(&["--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stderr(&o)).expect("json diagnostics");
    assert_eq!(json[0]["code"], "duplicate-name");
    // Files are read in sorted order: `more/dup.tool` first, so `ship.tool` defines it again.
    assert!(
        json[0]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("ship.tool")),
        "{json}"
    );
    let related = &json[0]["related"][0];
    assert!(
        related["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("dup.tool")),
        "{json}"
    );
    assert_eq!(related["line"], 2);
}

/// `compile --tool-choice` prints the request's fields: the tools and the choice in the
/// target's form; a tool the file lacks, or a target without tool choice, is refused.
#[test]
fn compile_prints_a_tool_choice_beside_the_tools() {
    let weather = "examples/weather.tool";
    let o = tooldef(
        &[
            "compile",
            weather,
            "--target",
            "anthropic",
            "--tool-choice",
            "get_weather_by_locality",
            "-q",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(
        json["tool_choice"],
        serde_json::json!({"type": "tool", "name": "get_weather_by_locality"})
    );
    assert_eq!(json["tools"][0]["name"], "get_weather_by_locality");
    let o = tooldef(
        &[
            "compile",
            weather,
            "--target",
            "gemini",
            "--tool-choice",
            "none",
            "-q",
        ],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(json["toolConfig"]["functionCallingConfig"]["mode"], "NONE");
    let o = tooldef(
        &[
            "compile",
            weather,
            "--target",
            "openai",
            "--tool-choice",
            "get_weather",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no tool named `get_weather`"),
        "{}",
        stderr(&o)
    );
    let o = tooldef(
        &[
            "compile",
            weather,
            "--target",
            "mcp",
            "--tool-choice",
            "auto",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

/// `tooldef gen rust` reads a folder as `build` does, writes through `-o` (the same text as on
/// standard output, which names its sources), and exits with 1 for a source with errors.
#[test]
fn gen_rust_writes_the_types_of_a_folder() {
    let out = tooldef(&["gen", "rust", "examples/weather.tool"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("// @generated by `tooldef gen rust` from `examples/weather.tool`."));
    assert!(text.contains("pub trait Tools"), "{text}");

    let dir = std::env::temp_dir().join(format!("tooldef-gen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.tool"), "/// A.\ntool a { x: integer }\n").unwrap();
    std::fs::write(
        dir.join("b.tool"),
        "/// B.\ntool b -> string { y?: boolean = true }\n",
    )
    .unwrap();
    let target = dir.join("out.rs");
    let out = tooldef(
        &[
            "gen",
            "rust",
            dir.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.contains("pub struct AArgs"), "{written}");
    assert!(written.contains("pub y: bool,"), "{written}");
    assert!(written.contains("pub type BOutput = ::std::string::String;"));
    assert!(written.contains("fn b(&self, args: BArgs) -> ::std::result::Result<BOutput,"));

    let out = tooldef(&["gen", "rust", "-"], Some("tool t { a: strng }"));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("unknown-type"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
