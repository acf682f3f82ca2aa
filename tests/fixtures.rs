//! Fixture-driven tests: every file in `tests/fixtures/valid` compiles, its JSON Schema is
//! snapshotted and valid against the draft 2020-12 meta-schema; every file in
//! `tests/fixtures/invalid` fails with exactly the error codes its first line names
//! (`// expect: code, code`), and its rendered diagnostics are snapshotted.

use std::path::{Path, PathBuf};

use tooldef::emit::{self, Target};
use tooldef::render::{self, Style};

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "tool"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", root.display());
    files
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .expect("file name")
        .to_string_lossy()
        .into_owned()
}

/// Asserts that a schema is valid draft 2020-12 and that a validator can be built from it
/// (every `$ref` resolves).
pub fn assert_valid_schema(schema: &serde_json::Value, what: &str) {
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{what}: not a valid draft 2020-12 schema: {e}\n{schema:#}");
    }
    if let Err(e) = jsonschema::validator_for(schema) {
        panic!("{what}: the jsonschema crate cannot compile it: {e}\n{schema:#}");
    }
}

#[test]
fn valid_fixtures_compile_to_meta_valid_schemas() {
    for path in fixtures("valid") {
        let bytes = std::fs::read(&path).expect("read fixture");
        let compiled = tooldef::compile_bytes(&bytes)
            .unwrap_or_else(|e| panic!("{} should compile: {e:?}", path.display()));
        let json = emit::tools(
            &compiled.module,
            Target::JsonSchema,
            &emit::Options::default(),
        )
        .unwrap_or_else(|e| panic!("{}: json-schema target failed: {e:?}", path.display()))
        .json;
        for tool in json.as_array().expect("an array of tools") {
            let name = tool["name"].as_str().unwrap_or_default();
            assert_valid_schema(
                &tool["parameters"],
                &format!("{}: {name} parameters", path.display()),
            );
            if let Some(output) = tool.get("output") {
                assert_valid_schema(output, &format!("{}: {name} output", path.display()));
            }
        }
        let source = String::from_utf8_lossy(&bytes);
        let mut snapshot = serde_json::to_string_pretty(&json).expect("serialize");
        if !compiled.warnings.is_empty() {
            snapshot.push_str("\n\n");
            snapshot.push_str(&render::reports(
                &compiled.warnings,
                &stem(&path),
                &source,
                Style::Plain,
            ));
        }
        insta::assert_snapshot!(format!("valid__{}", stem(&path)), snapshot);
    }
}

#[test]
fn invalid_fixtures_fail_with_their_expected_codes() {
    for path in fixtures("invalid") {
        let source = std::fs::read_to_string(&path).expect("read fixture");
        let expected: Vec<&str> = source
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect:"))
            .unwrap_or_else(|| panic!("{} must start with `// expect: codes`", path.display()))
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert!(
            !expected.is_empty(),
            "{}: no expected codes",
            path.display()
        );
        let errors = match tooldef::compile(&source) {
            Ok(_) => panic!(
                "{} compiled, but it must fail with {expected:?}",
                path.display()
            ),
            Err(e) => e,
        };
        let got: Vec<&str> = errors.errors().map(|d| d.code.as_str()).collect();
        assert_eq!(got, expected, "{}: error codes", path.display());
        for d in errors.errors() {
            assert!(
                d.span.end <= source.len(),
                "{}: span past the end",
                path.display()
            );
            assert!(!d.message.is_empty());
        }
        let rendered = render::reports(&errors.diagnostics, &stem(&path), &source, Style::Plain);
        insta::assert_snapshot!(format!("invalid__{}", stem(&path)), rendered);
    }
}

/// A member whose type is unknown stands in as `any` once its error is reported; the union is
/// not also called `any` by a warning, which would name a type nobody wrote.
#[test]
fn a_misspelt_union_member_is_not_called_any() {
    let warned = |source: &str| match tooldef::compile(source) {
        Ok(_) => panic!("{source} must fail"),
        Err(e) => e
            .diagnostics
            .iter()
            .filter(|d| d.code == tooldef::Code::RedundantUnion)
            .count(),
    };
    assert_eq!(warned("tool t { a: string | strng }"), 0);
    assert_eq!(warned("tool t { a: (strng | null) | integer }"), 0);
    assert_eq!(warned("tool t { a: \"x\" | 1e999999 | string }"), 0);
    // A type whose definition did not parse stands in the same way.
    assert_eq!(warned("type A { x: }\ntool t { a: A | string }"), 0);
    // Two misspelt members are not one member repeated.
    assert_eq!(warned("tool t { a: strng | numbr }"), 0);
    // Written `any` is still worth the warning, beside an error or not.
    assert_eq!(warned("tool t { a: any | strng }"), 1);
    assert_eq!(warned("tool t { a: any | string, b: strng }"), 1);
}

/// Constraints on a type in error are not judged against the `any` that stands in for it: the
/// type's own error is the one reported, with unknown and repeated constraints.
#[test]
fn constraints_on_a_misspelt_type_are_not_judged_against_any() {
    let codes = |source: &str| match tooldef::compile(source) {
        Ok(_) => panic!("{source} must fail"),
        Err(e) => e
            .errors()
            .map(|d| d.code.as_str().to_string())
            .collect::<Vec<_>>(),
    };
    let tool = |field: &str| format!("/// A tool.\ntool t {{\n  /// A field.\n  {field}\n}}");
    assert_eq!(codes(&tool("a: strng @min_length(3)")), ["unknown-type"]);
    assert_eq!(codes(&tool("a: (strng | null) @min(1)")), ["unknown-type"]);
    assert_eq!(
        codes(&tool("a: strng @min_lenght(3)")),
        ["unknown-type", "unknown-attribute"]
    );
    assert_eq!(
        codes(&tool("a: strng @min_length(3) @min_length(4)")),
        ["unknown-type", "duplicate-attribute"]
    );
    // A type that is known is judged as before.
    assert_eq!(
        codes(&tool("a: integer @min_length(3)")),
        ["attribute-not-applicable"]
    );
}

#[test]
fn every_error_code_has_a_fixture() {
    let mut covered = std::collections::HashSet::new();
    for path in fixtures("invalid") {
        let source = std::fs::read_to_string(&path).expect("read fixture");
        if let Err(e) = tooldef::compile(&source) {
            covered.extend(e.errors().map(|d| d.code));
        }
    }
    // Codes exercised elsewhere: invalid UTF-8 and nesting limits in tests/hostile.rs, the
    // patterns' memory limit in tests/hostile_limits.rs (reaching it takes seconds); the
    // redundant-union and undescribed-field warnings in tests/fixtures/valid/warnings.tool (and
    // the lint's own tests in tests/lints.rs); the per-target codes in tests/targets.rs.
    let elsewhere = [
        tooldef::Code::InvalidUtf8,
        tooldef::Code::NestingTooDeep,
        tooldef::Code::PatternsTooLarge,
        tooldef::Code::RedundantUnion,
        tooldef::Code::UndescribedField,
        tooldef::Code::NotRepresentable,
        tooldef::Code::TargetLimit,
        tooldef::Code::FoldedConstraint,
        tooldef::Code::LoweredConstruct,
        // Imports take several files: tests/modules.rs.
        tooldef::Code::UnresolvedImport,
        tooldef::Code::ImportCycle,
        tooldef::Code::UnusedImport,
        // `tooldef import` reads JSON, not `.tool` source: tests/import_codes.rs.
        tooldef::Code::ImportNotJson,
        tooldef::Code::ImportDuplicateKey,
        tooldef::Code::ImportWrongFormat,
        tooldef::Code::ImportNotASchema,
        tooldef::Code::ImportInvalidKeyword,
        tooldef::Code::ImportInvalidTool,
        tooldef::Code::ImportUnsupported,
        tooldef::Code::ImportUnresolvedRef,
        tooldef::Code::ImportUnsatisfiable,
        tooldef::Code::ImportDropped,
        tooldef::Code::ImportClosedObject,
        tooldef::Code::ImportInterpreted,
    ];
    for code in tooldef::Code::ALL {
        assert!(
            covered.contains(code) || elsewhere.contains(code),
            "no invalid fixture produces `{code}`"
        );
    }
}

#[test]
fn every_code_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let docs: String = ["language.md", "targets.md"]
        .iter()
        .map(|f| std::fs::read_to_string(root.join(f)).expect("read docs"))
        .collect();
    for code in tooldef::Code::ALL {
        assert!(
            docs.contains(&format!("`{code}`")),
            "`{code}` is described in neither docs/language.md nor docs/targets.md"
        );
    }
}

#[test]
fn examples_compile_to_meta_valid_schemas() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut count = 0;
    for entry in std::fs::read_dir(&root).expect("examples/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|x| x != "tool") {
            continue;
        }
        count += 1;
        let source = std::fs::read_to_string(&path).expect("read example");
        let compiled = tooldef::compile(&source)
            .unwrap_or_else(|e| panic!("{} should compile: {e:?}", path.display()));
        assert!(
            compiled.warnings.is_empty(),
            "{} has warnings: {:?}",
            path.display(),
            compiled.warnings
        );
        for tool in &compiled.module.tools {
            let params = emit::parameters(&compiled.module, tool);
            assert_valid_schema(&params, &format!("{}: {}", path.display(), tool.name));
            if let Some(output) = emit::output(&compiled.module, tool) {
                assert_valid_schema(
                    &output,
                    &format!("{}: {} output", path.display(), tool.name),
                );
            }
        }
    }
    assert!(count > 0, "no examples found");
}
