//! `tooldef gen typescript`, checked by the TypeScript compiler (`tsc --strict --noEmit`, from
//! `tests/typescript`, installed with `npm ci` there): the declarations of every example, every
//! valid fixture, a file of hostile names and a fixed set of random tools; and every call
//! tooldef accepted for the random tools, normalized, written as a literal of the generated
//! argument type, which `tsc` checks (excess keys included).

use std::path::Path;
use std::process::Command;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use tooldef::codegen;
use tooldef::validate::{Mode, Validator};
use tooldef::Toolset;

#[path = "support/random_tools.rs"]
mod random_tools;

/// Names that TypeScript reserves or that need quoting as keys.
const HOSTILE: &str = r#"
/// Shadows a global type.
type Array { value: integer }
/// Named as the generated interface.
type Tools { x: boolean }

/// A tool with hostile fields.
tool class -> Array {
  type: string
  "été": boolean
  "a-b": number
  "1st": string
  "*/": string
  crate?: Tools
  maybe?: integer | null
  pair: [string, integer?, ...: boolean]
}
"#;

/// How many random tools, and how many calls of each, the compiler reads.
const RANDOM_TOOLS: usize = 60;
const CALLS_PER_TOOL: usize = 12;

/// The `.tool` files of a folder of the repository, sorted.
fn tool_files(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tool"))
        .collect();
    out.sort();
    out
}

#[test]
fn generated_typescript_compiles_and_accepts_every_normalized_call() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tsc = root.join("tests/typescript/node_modules/typescript/bin/tsc");
    if !tsc.exists() {
        // CI installs it (`.ci/run`); elsewhere the test says how and passes.
        assert!(
            std::env::var_os("CI").is_none(),
            "no TypeScript compiler: run `npm ci` in tests/typescript"
        );
        eprintln!("skipped: run `npm ci` in tests/typescript to check the TypeScript output");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("codegen-typescript");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    let mut write = |name: &str, code: &str| {
        let path = dir.join(format!("{name}.ts"));
        std::fs::write(&path, code).unwrap();
        files.push(path);
    };
    let mut sources = tool_files("examples");
    sources.extend(tool_files("tests/fixtures/valid"));
    for (i, path) in sources.iter().enumerate() {
        let toolset = Toolset::from_files([path]).unwrap();
        write(
            &format!("file{i}"),
            &codegen::typescript(&toolset, &path.display().to_string()),
        );
    }
    let hostile = Toolset::from_source(HOSTILE).unwrap();
    let code = codegen::typescript(&hostile, "hostile.tool");
    for needle in [
        "export interface Array2 {",
        "export interface Tools2 {",
        "\"a-b\": number;",
        "pair: [string, (number)?, ...Array<boolean>];",
        "class(args: ClassArgs): Array2 | Promise<Array2>;",
    ] {
        assert!(code.contains(needle), "no `{needle}` in\n{code}");
    }
    write("hostile", &code);

    let mut runner = TestRunner::deterministic();
    let specs = random_tools::tool_spec();
    let mut calls = 0;
    for i in 0..RANDOM_TOOLS {
        let spec = specs.new_tree(&mut runner).unwrap().current();
        let (module, tool) = random_tools::build(&spec);
        let validator = Validator::new(&module, &tool).unwrap();
        let mut code = codegen::typescript_module(&module, &[&tool], "a random tool");
        let args = random_tools::good(&spec);
        for j in 0..CALLS_PER_TOOL {
            let value = args.new_tree(&mut runner).unwrap().current();
            if let Ok(ok) = validator.validate_value(&value, Mode::Strict) {
                code.push_str(&format!(
                    "\nexport const call{j}: TArgs = {};\n",
                    ok.arguments
                ));
                calls += 1;
            }
        }
        write(&format!("random{i}"), &code);
    }
    let out = Command::new("node")
        .arg(&tsc)
        .args([
            "--strict", "--noEmit", "--target", "es2022", "--module", "es2022",
        ])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(calls > RANDOM_TOOLS, "too few calls: {calls}");
    eprintln!("typescript: {} files, {calls} calls", files.len());
}
