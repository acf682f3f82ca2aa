//! Fixes: the changes a diagnostic offers (an editor's quick fixes). Each "did you mean" that
//! names one certain replacement comes with the fix that writes it, and applying the fix removes
//! the error.

use tooldef::{compile_with, Code, Diagnostic, Fix, MemoryLoader};

/// `source` with `fix` applied.
fn apply(source: &str, fix: &Fix) -> String {
    let mut out = source.to_string();
    out.replace_range(fix.span.start..fix.span.end, &fix.text);
    out
}

/// The diagnostics of `main.tool` (the file given, and `common.tool` beside it).
fn diagnose(main: &str) -> Vec<Diagnostic> {
    let mut loader = MemoryLoader::new();
    loader.insert("main.tool", main);
    loader.insert(
        "common.tool",
        "/// A postal address.\ntype Address {\n  /// The street.\n  street: string\n}\n",
    );
    match compile_with("main.tool", main, &loader) {
        Ok(c) => c.warnings,
        Err(e) => e.diagnostics,
    }
}

#[test]
fn each_certain_suggestion_comes_with_a_fix_that_removes_its_error() {
    let tool = |body: &str| format!("/// T.\ntool t {{\n  /// A.\n{body}\n}}\n");
    let cases = [
        (tool("  a: strng"), "Replace `strng` with `string`", "a: string"),
        (tool("  a: str"), "Replace `str` with `string`", "a: string"),
        (
            "/// T.\n@read_onyl\ntool t {}\n".to_string(),
            "Replace `read_onyl` with `read_only`",
            "@read_only\n",
        ),
        // Another library's word for an argument (Phronomy's `return_empty`).
        (
            "/// T.\n@on_error(return_empty)\ntool t {}\n".to_string(),
            "Replace `return_empty` with `suppress`",
            "@on_error(suppress)",
        ),
        // Phronomy's `on_schema_error` is `@on_invalid`, and its `return_error` is `reply`.
        (
            "/// T.\n@on_schema_error(raise)\ntool t {}\n".to_string(),
            "Replace `on_schema_error` with `on_invalid`",
            "@on_invalid(raise)",
        ),
        (
            "/// T.\n@on_invalid(return_error)\ntool t {}\n".to_string(),
            "Replace `return_error` with `reply`",
            "@on_invalid(reply)",
        ),
        (
            tool("  a: string @min_lenght(1)"),
            "Replace `min_lenght` with `min_length`",
            "@min_length(1)",
        ),
        (
            tool("  a: string @format(uuidd)"),
            "Replace `uuidd` with `uuid`",
            "@format(uuid)",
        ),
        (
            tool("  a: string @format(\"date-tme\")"),
            "Replace `date-tme` with `date-time`",
            "@format(\"date-time\")",
        ),
        (
            "/// T.\n@exactly_one_of(a, bb)\ntool t {\n  /// A.\n  a?: string\n  /// B.\n  b?: string\n}\n"
                .to_string(),
            "Replace `bb` with `b`",
            "@exactly_one_of(a, b)",
        ),
        // A name that is no identifier is written as a string.
        (
            "/// T.\n@exactly_one_of(a, first-nme)\ntool t {\n  /// A.\n  a?: string\n  /// B.\n  \"first-name\"?: string\n}\n"
                .to_string(),
            "Replace `first-nme` with `first-name`",
            "@exactly_one_of(a, \"first-name\")",
        ),
        (
            format!(
                "/// U.\nenum Unit {{\n  /// C.\n  celsius\n  /// F.\n  fahrenheit\n}}\n{}",
                tool("  a?: Unit | null = \"celsuis\"")
            ),
            "Replace `celsuis` with `celsius`",
            "a?: Unit | null = \"celsius\"",
        ),
        (
            tool("  a?: \"red\" | \"green\" | 0 @example(\"gren\")"),
            "Replace `gren` with `green`",
            "@example(\"green\")",
        ),
        (
            "import { Adress } from \"./common.tool\"\n/// T.\ntool t {\n  /// A.\n  a: Address\n}\n"
                .to_string(),
            "Replace `Adress` with `Address`",
            "import { Address }",
        ),
    ];
    for (source, title, after) in cases {
        let diagnostics = diagnose(&source);
        // The fix of the typo (a misspelt import also leaves its use not imported, which gets
        // a fix of its own).
        let fix = diagnostics
            .iter()
            .flat_map(|d| &d.fixes)
            .find(|f| f.title == title)
            .unwrap_or_else(|| panic!("{source}: {diagnostics:#?}"));
        let fixed = apply(&source, fix);
        assert!(fixed.contains(after), "{fixed}");
        let left = diagnose(&fixed);
        assert!(left.iter().all(|d| !d.is_error()), "{fixed}: {left:#?}");
    }
}

/// A string far from every listed one, or of a type that takes any string beside its list,
/// gets no suggestion and no fix.
#[test]
fn a_string_default_gets_a_suggestion_only_from_a_closed_list() {
    let tool = |field: &str| format!("/// T.\ntool t {{\n  /// A.\n  {field}\n}}\n");
    for field in [
        "a?: \"x\" | \"y\" = \"z\"",
        "a?: \"red\" | \"green\" | string @max_length(2) = \"gren\"",
    ] {
        let source = tool(field);
        let diagnostics = diagnose(&source);
        assert!(diagnostics.iter().any(Diagnostic::is_error), "{source}");
        assert!(
            diagnostics.iter().all(|d| d.fixes.is_empty()),
            "{source}: {diagnostics:#?}"
        );
    }
}

/// Where "did you mean" is not certain (the name it suggests does not apply here), nothing is
/// offered: a fix would trade one error for another.
#[test]
fn a_suggestion_that_does_not_apply_here_comes_without_a_fix() {
    // `@min_length` is a string's, not an integer's.
    let source = "/// T.\ntool t {\n  /// A.\n  a: integer @min_lenght(1)\n}\n";
    let diagnostics = diagnose(source);
    let d = diagnostics
        .iter()
        .find(|d| d.is_error())
        .expect("an unknown constraint");
    assert!(
        d.help.as_deref().is_some_and(|h| h.contains("min_length")),
        "{d:#?}"
    );
    assert!(d.fixes.is_empty(), "{d:#?}");
}

/// The fixes of the invalid fixtures each remove the problem they come with: after the fix, no
/// diagnostic of the same code and severity starts where the fix wrote, the source has fewer
/// of that severity, and no new syntax error.
#[test]
fn the_fixtures_fixes_remove_their_errors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/invalid");
    let mut applied = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        let before = diagnose(&source);
        // Diagnostics of one severity (a warning's fix leaves fewer warnings), or of one code.
        let count = |ds: &[Diagnostic], error: bool, code: Option<Code>| {
            ds.iter()
                .filter(|d| d.is_error() == error && code.is_none_or(|c| d.code == c))
                .count()
        };
        for d in before.iter().filter(|d| d.file.is_none()) {
            for fix in &d.fixes {
                let fixed = apply(&source, fix);
                let after = diagnose(&fixed);
                let still = after.iter().any(|e| {
                    e.code == d.code && e.span.start == fix.span.start && e.severity == d.severity
                });
                let name = format!("{}: {}", path.display(), fix.title);
                assert!(!still, "{name} did not fix it");
                let kind = d.is_error();
                assert!(
                    count(&after, kind, None) < count(&before, kind, None),
                    "{name}: {after:#?}"
                );
                assert!(
                    count(&after, true, Some(Code::Syntax))
                        <= count(&before, true, Some(Code::Syntax)),
                    "{name}: {after:#?}"
                );
                applied += 1;
            }
        }
    }
    assert!(applied >= 2, "{applied} fixes applied");
}

/// A fix in an imported file edits that file: its span is the file's, as the diagnostic's is.
#[test]
fn a_fix_in_an_imported_file_points_into_that_file() {
    let common = "/// A postal address.\ntype Address {\n  /// The street.\n  street: strng\n}\n";
    let main =
        "import { Address } from \"./common.tool\"\n/// T.\ntool t {\n  /// A.\n  a: Address\n}\n";
    let mut loader = MemoryLoader::new();
    loader.insert("main.tool", main);
    loader.insert("common.tool", common);
    let errors = compile_with("main.tool", main, &loader).expect_err("a typo in common.tool");
    let d = errors.errors().next().expect("the unknown type");
    assert_eq!(d.file.as_ref().map(|f| f.name()), Some("common.tool"));
    assert_eq!(&common[d.span.start..d.span.end], "strng");
    let fix = &d.fixes[0];
    assert_eq!(fix.span, d.span);
    let fixed = apply(common, fix);
    loader.insert("common.tool", fixed.as_str());
    assert!(compile_with("main.tool", main, &loader).is_ok(), "{fixed}");
}

/// A type defined in another file of the build but not imported: the fix imports it, into an
/// import of that file when there is one, else as an import of its own before the first item.
#[test]
fn a_type_not_imported_gets_the_import_as_its_fix() {
    let common = "/// A postal address.\ntype Address {\n  /// The street.\n  street: string\n}\n\
        /// A country.\nenum Country {\n  /// France.\n  fr\n}\n";
    let cases = [
        (
            // `Country` is known to the build through `o.tool`, which imports it.
            "import { Address } from \"./common.tool\"\nimport { O } from \"./o.tool\"\n\
             // A header.\n/// T.\ntool t {\n  /// A.\n  a: Address\n  /// C.\n  c: Country\n}\n",
            "Import `Country` from `./common.tool`",
            "import { Address, Country } from \"./common.tool\"\n",
        ),
        (
            "import { O } from \"./o.tool\"\n/// T.\ntool t {\n  /// C.\n  c: Country\n}\n",
            "Import `Country` from `./common.tool`",
            "import { Country } from \"./common.tool\"\nimport { O } from",
        ),
        // A file whose lines end in CRLF gets its new import ended so.
        (
            "import { O } from \"./o.tool\"\r\n/// T.\r\ntool t {\r\n  /// C.\r\n  c: Country\r\n}\r\n",
            "Import `Country` from `./common.tool`",
            "import { Country } from \"./common.tool\"\r\nimport { O } from",
        ),
    ];
    let o = "import { Address, Country } from \"./common.tool\"\n/// O.\ntype O {\n  /// A.\n  a: Address\n  /// C.\n  c: Country\n}\n";
    for (main, title, after) in cases {
        let mut loader = MemoryLoader::new();
        loader.insert("main.tool", main);
        loader.insert("common.tool", common);
        loader.insert("o.tool", o);
        let errors = compile_with("main.tool", main, &loader).expect_err("not imported");
        let d = errors
            .errors()
            .find(|d| !d.fixes.is_empty())
            .unwrap_or_else(|| panic!("{errors:#?}"));
        assert_eq!(d.fixes[0].title, title);
        let fixed = apply(main, &d.fixes[0]);
        assert!(fixed.contains(after), "{fixed}");
        loader.insert("main.tool", fixed.as_str());
        let compiled = compile_with("main.tool", &fixed, &loader);
        assert!(compiled.is_ok(), "{fixed}: {compiled:#?}");
    }
}

/// An unused import's fix removes the name with the comma that joins it, or the whole import
/// (and its line) when it is the only name; the result compiles without a warning.
#[test]
fn an_unused_import_is_removed_by_its_fix() {
    let common = "/// A postal address.\ntype Address {\n  /// The street.\n  street: string\n}\n\
        /// A country.\nenum Country {\n  /// France.\n  fr\n}\n";
    let tool = |uses: &str| format!("/// T.\ntool t {{\n  /// A.\n  a: {uses}\n}}\n");
    let cases = [
        (
            format!(
                "import {{ Address, Country }} from \"./common.tool\"\n{}",
                tool("Address")
            ),
            format!(
                "import {{ Address }} from \"./common.tool\"\n{}",
                tool("Address")
            ),
        ),
        (
            format!(
                "import {{ Address, Country }} from \"./common.tool\"\n{}",
                tool("Country")
            ),
            format!(
                "import {{ Country }} from \"./common.tool\"\n{}",
                tool("Country")
            ),
        ),
        (
            format!(
                "import {{ Country }} from \"./common.tool\"\r\n{}",
                tool("string")
            ),
            tool("string"),
        ),
    ];
    for (main, want) in cases {
        let mut loader = MemoryLoader::new();
        loader.insert("main.tool", main.as_str());
        loader.insert("common.tool", common);
        let warnings = compile_with("main.tool", &main, &loader)
            .expect("compiles")
            .warnings;
        assert_eq!(warnings.len(), 1, "{warnings:#?}");
        let fix = &warnings[0].fixes[0];
        assert!(
            fix.title.starts_with("Remove the import of `"),
            "{}",
            fix.title
        );
        let fixed = apply(&main, fix);
        assert_eq!(fixed, want);
        loader.insert("main.tool", fixed.as_str());
        let again = compile_with("main.tool", &fixed, &loader).expect("compiles");
        assert!(again.warnings.is_empty(), "{fixed}: {:#?}", again.warnings);
    }
}

/// Phronomy's `@on_schema_error` is named for what it is in tooldef.
#[test]
fn another_librarys_attribute_says_where_it_lives_here() {
    let d = diagnose("/// T.\n@on_schema_error(raise)\ntool t {}\n");
    let help = d[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("on_invalid"), "{help}");
}
