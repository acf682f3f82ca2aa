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
/// which picks this tool). `222004167105843297.79219` reads as the double 222004167105843296,
/// which is integral. `number::is_multiple_of` read a double by its shortest decimal
/// (2.220041671058433e17, a multiple of 3) where the integer it equals is not one, and lax
/// mode's text path, which normalizes the double to that integer first, disagreed with the
/// value path. An integral double is now the integer it equals; and for an `integer` field a
/// double beyond ±2^53 is refused (reading may have rounded it), on both paths alike.
#[test]
fn multiple_of_on_a_large_integral_double_agrees_across_paths() {
    paths_agree(
        "/// T.\ntool t { n: integer @multiple_of(3) }",
        r#"{"n": 998888888888888888.5}"#,
    );
    paths_agree(
        "/// T.\ntool t { n?: number @multiple_of(3), m?: integer @multiple_of(3) }",
        r#"{"n": 222004167105843297.79219, "m": 222004167105843297.79219}"#,
    );
    paths_agree(
        SCALARS,
        r#"{"code": "2a-b13c", "prénom": "Zoé", "日本": 998888888888888888.5, "when": 3333333888888888885}"#,
    );
    paths_agree(
        SCALARS,
        r#"{"cod%": ";1231-abc", "prén;om": "Zoé", "日本": 222004167105843297.79219, "ratio": 1.5,  "chained": -5}"#,
    );
}

/// The tool `scalars` of the fuzz target `validate`.
const SCALARS: &str = r#"
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
"#;

/// An integer beyond what the reader keeps exactly is refused with words that say why, never
/// passed on rounded (`99999999999999999999` reads as the double 1e20).
#[test]
fn an_integer_that_reading_rounded_is_refused() {
    let module = tooldef::compile("/// T.\ntool t { n: integer }")
        .expect("compiles")
        .module;
    let v = Validator::new(&module, &module.tools[0]).expect("validator");
    for mode in [Mode::Strict, Mode::Lax] {
        for text in [
            r#"{"n": 99999999999999999999}"#,
            r#"{"n": 1e20}"#,
            r#"{"n": 998888888888888888.5}"#,
        ] {
            let e = v.validate_str(text, mode).expect_err(text);
            assert_eq!(e.errors.len(), 1, "{text}");
            assert_eq!(e.errors[0].path, "/n");
            assert_eq!(e.errors[0].code.as_str(), "wrong-type");
            assert!(
                e.errors[0].message().contains("cannot be kept exactly"),
                "{}",
                e.errors[0].message()
            );
        }
        // What the reader keeps exactly stays exact, to the last digit.
        for (text, exact) in [
            (r#"{"n": 18446744073709551615}"#, "18446744073709551615"),
            (r#"{"n": -9223372036854775808}"#, "-9223372036854775808"),
            (r#"{"n": 9007199254740992.0}"#, "9007199254740992"),
        ] {
            let out = v.validate_str(text, mode).expect(text);
            assert_eq!(out.arguments["n"].to_string(), exact);
        }
        // Lax mode reads a numeric string beyond 64 bits as refused, not rounded.
        if mode == Mode::Lax {
            let e = v
                .validate_str(r#"{"n": "99999999999999999999"}"#, mode)
                .expect_err("out of range");
            assert_eq!(e.errors[0].code.as_str(), "not-coercible");
        }
    }
}

/// The generate fuzzer's finding: a union nested in a union with `null`
/// (`boolean | (null | number | {})`) kept its inner union, so the model printed with
/// parentheses and compiled back to the flat union: printing was not a fixpoint.
#[test]
fn a_nullable_union_inside_a_union_is_flattened() {
    for source in [
        "/// T.\ntool t {\n  f?: boolean | (null | number @exclusive_min(-1.5) | {})\n}\n",
        "/// T.\ntool t {\n  f?: (string | null) | (integer | boolean | null)\n}\n",
    ] {
        let module = tooldef::compile(source).unwrap().module;
        let printed = module.to_source().unwrap();
        assert!(
            !printed.contains("| (") && !printed.contains(": ("),
            "{printed}"
        );
        let again = tooldef::compile(&printed).unwrap().module;
        assert_eq!(again, module, "{printed}");
        assert_eq!(again.to_source().unwrap(), printed);
    }
}

/// The generate fuzzer's second finding: a union of literals that repeat one value
/// (`([] | []) | string`) became a one-member enum, which prints as the literal `[]` and reads
/// back as a literal, so the printed model emitted `const` where the first emitted `enum`.
#[test]
fn literals_that_repeat_one_value_are_that_literal() {
    let source = "/// T.\ntool t {\n  f?: ([] | []) | string | null\n  g: \"a\" | \"a\"\n}\n";
    let module = tooldef::compile(source).unwrap().module;
    let printed = module.to_source().unwrap();
    let again = tooldef::compile(&printed).unwrap().module;
    assert_eq!(again, module, "{printed}");
    let json = |m: &tooldef::Module| tooldef::emit::parameters(m, &m.tools[0]);
    assert_eq!(json(&again), json(&module));
    assert_eq!(json(&module)["properties"]["g"]["const"], "a");
}

/// The generate fuzzer's third finding: an alias whose union of repeated object members comes
/// out as one object had no spelling (an alias of an object with fields), so the model could not
/// be printed.
#[test]
fn an_alias_that_comes_out_as_an_object_prints() {
    let source = "/// T.\ntype T0 = { f?: never, ...: any } | { f?: never, ...: any }\n\n/// T.\ntool t {\n  a: T0\n}\n";
    let module = tooldef::compile(source).unwrap().module;
    let printed = module.to_source().expect("the model prints");
    let again = tooldef::compile(&printed).unwrap().module;
    assert_eq!(again, module, "{printed}");
    assert_eq!(again.to_source().unwrap(), printed);
}
