//! Lints: warnings a tool can turn off with `@allow(...)`.

use tooldef::{compile, Code};

fn undescribed(source: &str) -> Vec<String> {
    let compiled = compile(source).unwrap_or_else(|e| panic!("{e}"));
    compiled
        .warnings
        .iter()
        .filter(|d| d.code == Code::UndescribedField)
        .map(|d| source[d.span.start..d.span.end].to_string())
        .collect()
}

#[test]
fn a_parameter_without_a_description_is_warned_about() {
    let source = "/// Find things.\ntool find {\n  /// What to look for.\n  query: string\n  limit?: integer = 10\n  filter?: { kind: string }\n}\n\ntype Nested { bare: string }\n";
    // Each bare parameter of the tool, at its name; nested fields and named types are not linted.
    assert_eq!(undescribed(source), ["limit", "filter"]);
    let compiled = compile(source).expect("compiles");
    let d = compiled
        .warnings
        .iter()
        .find(|d| d.code == Code::UndescribedField)
        .expect("warned");
    assert!(
        d.message.contains("`limit` of tool `find`"),
        "{}",
        d.message
    );
    assert!(!d.is_error());
}

#[test]
fn allow_turns_the_lint_off_for_its_tool_only() {
    let source =
        "/// A.\n@allow(undescribed-field)\ntool a { x: string }\n\n/// B.\ntool b { y: string }\n";
    assert_eq!(undescribed(source), ["y"]);
}

#[test]
fn allow_takes_only_lint_names() {
    for bad in [
        "/// A.\n@allow(bogus)\ntool a { /// X.\n x: string }\n",
        "/// A.\n@allow\ntool a { /// X.\n x: string }\n",
        "/// A.\n@allow(lint: undescribed-field)\ntool a { /// X.\n x: string }\n",
    ] {
        let errors = compile(bad).expect_err(bad);
        assert!(
            errors
                .diagnostics
                .iter()
                .any(|d| d.code == Code::InvalidAttributeArgument),
            "{bad}: {errors}"
        );
    }
}
