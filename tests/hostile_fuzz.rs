//! Regression tests for what the fuzz targets (`fuzz/`) found, each with its minimized input.

use serde_json::Value;
use tooldef::validate::{Mode, Validator};

/// The fuzz target `validate`: the text path and the value path must give the same verdict and
/// the same errors for the same arguments, in both modes.
fn paths_agree(source: &str, text: &str) {
    let module = tooldef::compile(source).expect("compiles").module;
    let v = Validator::new(&module, &module.tools[0]).expect("validator");
    let value: Value = serde_json::from_str(text).expect("JSON");
    for mode in [Mode::Strict, Mode::Lax] {
        let by_text = v.validate_str(text, mode);
        let by_value = v.validate_value(&value, mode);
        let codes = |r: &Result<_, tooldef::validate::Invalid>| match r {
            Ok(_) => Vec::new(),
            Err(e) => e
                .errors
                .iter()
                .map(|e| (e.path.clone(), e.code.as_str()))
                .collect::<Vec<_>>(),
        };
        assert_eq!(
            codes(&by_text),
            codes(&by_value),
            "{mode:?}: the text and value paths disagree on {text}"
        );
        assert_eq!(
            by_text.is_ok(),
            v.is_valid(text, mode),
            "{mode:?}: is_valid"
        );
    }
}

/// Found by the fuzz target `validate` (its input is the text below after a first byte 0,
/// which picks this tool). `998888888888888888.5` reads as the double
/// 998888888888888832, which is integral; `@multiple_of(3)` gives that double (shortest decimal
/// 998888888888888900, a multiple of 3) and the integer it equals (not a multiple) different
/// verdicts in `number::is_multiple_of`. In the fuzz build (release, optimized) lax mode's text
/// path reported only `/code` and its value path `/code` and `/日本`; this debug test build
/// agrees on both paths, so the case is kept here as a guard and the divergence is open.
#[test]
fn multiple_of_on_a_large_integral_double_agrees_across_paths() {
    paths_agree(
        "/// T.\ntool t { n: integer @multiple_of(3) }",
        r#"{"n": 998888888888888888.5}"#,
    );
    paths_agree(
        r#"
/// A level.
enum Level { low medium 3 }
/// The first of a chain.
type A1 = A2
/// The second.
type A2 = A3
/// The last.
type A3 = integer @min(-5) @max(5)
/// Scalars and their bounds.
tool scalars {
  code: string @pattern("\\d{3}-\\w+") @min_length(4) @max_length(12)
  "prénom"?: string @min_length(1)
  "日本"?: integer @exclusive_min(0) @multiple_of(3)
  ratio?: number @min(0.5) @exclusive_max(2.5)
  when?: string @format(date-time)
  level?: Level = "low"
  chained?: A1
  flag?: boolean = false
}
"#,
        r#"{"code": "2a-b13c", "prénom": "Zoé", "日本": 998888888888888888.5, "when": 3333333888888888885}"#,
    );
}
