//! Properties of the validator over random tools and random arguments:
//! 1. strict mode agrees with the `jsonschema` crate on the emitted schema;
//! 2. every output of lax mode passes strict mode;
//! 3. lax mode is idempotent;
//! 4. numeric strings coerce exactly, and `NaN`/`Infinity` never pass;
//! 5. k independent violations give exactly k errors, at the right paths.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use tooldef::model::*;
use tooldef::validate::{Mode, Validator};

#[path = "support/random_tools.rs"]
mod random_tools;
use random_tools::*;

/// Whether `v` holds an integral double beyond ±2^53 (`1e300`).
fn holds_inexact_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.is_f64()
                && n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() > 9_007_199_254_740_992.0)
        }
        Value::Array(items) => items.iter().any(holds_inexact_integer),
        Value::Object(m) => m.values().any(holds_inexact_integer),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Properties 1-3

proptest! {
    #![proptest_config(config(600))]

    /// 1. Strict mode accepts exactly what a draft 2020-12 validator accepts on the emitted
    /// schema; the fast check agrees with both.
    #[test]
    fn strict_agrees_with_jsonschema((spec, args) in tool_and_args()) {
        let (module, tool) = build(&spec);
        let schema = tooldef::emit::parameters(&module, &tool);
        let reference = jsonschema::options().should_validate_formats(true).build(&schema).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let ours = Validator::new(&module, &tool).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let expected = reference.is_valid(&args);
        let result = ours.validate_value(&args, Mode::Strict);
        if holds_inexact_integer(&args) {
            // An integer field refuses an integral double beyond ±2^53 (reading may have
            // rounded it), which JSON Schema calls an integer: strict mode is stricter there,
            // never more lenient.
            prop_assert!(result.is_err() || expected, "schema {}\nargs {}", schema, args);
            return Ok(());
        }
        prop_assert_eq!(result.is_ok(), expected, "schema {}\nargs {}\nours {:?}", schema, args, result.as_ref().err().map(|e| e.message()));
        prop_assert_eq!(ours.is_valid(&args, Mode::Strict), expected);
        // The checker's compile-time check of defaults and examples has the same semantics.
        let root = Ty::Object(Box::new(tool.params.clone()));
        let first = tooldef::validate::first_violation(&module, &root, &args);
        prop_assert_eq!(first.is_none(), expected, "{:?}", first);
        // The text path reads the same value.
        prop_assert_eq!(ours.validate_str(&args.to_string(), Mode::Strict).is_ok(), expected);
        if let Ok(v) = &result {
            // Normalizing (defaults, key order, 1.0 → 1) keeps the arguments valid.
            prop_assert!(reference.is_valid(&v.arguments), "normalized {}", v.arguments);
            prop_assert!(v.coercions.is_empty());
        } else if let Err(e) = &result {
            prop_assert!(!e.errors.is_empty());
        }
    }

    /// 2. and 3. Every output of lax mode passes strict mode (and the reference validator), and
    /// validating it again in lax mode changes nothing and records no coercion. Lax mode accepts
    /// everything strict mode accepts.
    #[test]
    fn lax_output_is_strict_and_idempotent((spec, args) in tool_and_args()) {
        let (module, tool) = build(&spec);
        let ours = Validator::new(&module, &tool).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let strict = ours.validate_value(&args, Mode::Strict);
        let lax = ours.validate_value(&args, Mode::Lax);
        if let Ok(s) = &strict {
            prop_assert_eq!(lax.as_ref().ok(), Some(s), "lax must accept what strict accepts, unchanged");
        }
        if let Ok(out) = lax {
            let again_strict = ours.validate_value(&out.arguments, Mode::Strict);
            prop_assert!(again_strict.is_ok(), "lax output {} fails strict: {:?}", out.arguments, again_strict.err().map(|e| e.message()));
            let schema = tooldef::emit::parameters(&module, &tool);
            let reference = jsonschema::options().should_validate_formats(true).build(&schema).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(reference.is_valid(&out.arguments));
            let again = ours.validate_value(&out.arguments, Mode::Lax).map_err(|e| TestCaseError::fail(e.message()))?;
            prop_assert_eq!(&again.arguments, &out.arguments);
            prop_assert!(again.coercions.is_empty(), "{:?}", again.coercions);
            prop_assert_eq!(ours.is_valid(&args, Mode::Lax), true);
        } else {
            prop_assert_eq!(ours.is_valid(&args, Mode::Lax), false);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Property 4

fn numeric_validator() -> Validator {
    let module = tooldef::compile("/// Numbers.\n@lax\ntool n { i?: integer, x?: number }")
        .expect("compiles")
        .module;
    Validator::for_tool(&module, "n").expect("exists")
}

proptest! {
    #![proptest_config(config(2000))]

    /// 4. For any i64 n: "n", " n ", "+n" (n ≥ 0) and "n.0" coerce to n.
    #[test]
    fn integer_strings_coerce_exactly(n in any::<i64>()) {
        let v = numeric_validator();
        let mut texts = vec![n.to_string(), format!(" {n} "), format!("{n}.0"), format!("\t{n}.000\n")];
        if n >= 0 {
            texts.push(format!("+{n}"));
        }
        for t in texts {
            let args = json!({ "i": t });
            let out = v.validate_value(&args, Mode::Lax).map_err(|e| TestCaseError::fail(e.message()))?;
            prop_assert_eq!(out.arguments["i"].as_i64(), Some(n), "{:?}", t);
            prop_assert_eq!(out.coercions.len(), 1);
            // Strict mode never coerces.
            let strict = v.validate_value(&args, Mode::Strict);
            prop_assert!(strict.is_err());
        }
    }

    /// 4. Any finite f64, printed and read back, coerces to itself; so does its exponent form.
    #[test]
    fn float_strings_coerce_to_themselves(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
        let v = numeric_validator();
        for t in [x.to_string(), format!("{x:e}"), format!(" {x:?} ")] {
            let args = json!({ "x": t });
            let out = v.validate_value(&args, Mode::Lax).map_err(|e| TestCaseError::fail(e.message()))?;
            prop_assert_eq!(out.arguments["x"].as_f64(), Some(x), "{:?}", t);
        }
    }

    /// 4. Non-finite spellings never pass, in either field or mode.
    #[test]
    fn non_finite_strings_never_pass(
        word in prop::sample::select(vec!["NaN", "nan", "Infinity", "-Infinity", "inf", "+inf", "-inf", "infinity", "1e400", "-1e309"]),
        pad in "[ \t]{0,2}",
    ) {
        let v = numeric_validator();
        let t = format!("{pad}{word}{pad}");
        for mode in [Mode::Lax, Mode::Strict] {
            let (x, i) = (json!({ "x": t }), json!({ "i": t }));
            let x = v.validate_value(&x, mode);
            let i = v.validate_value(&i, mode);
            prop_assert!(x.is_err());
            prop_assert!(i.is_err());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Property 5

#[derive(Clone, Copy, Debug)]
enum Kind {
    Str,
    Int,
    Enum,
    Unique,
    Nested,
}

impl Kind {
    fn ty(self) -> &'static str {
        match self {
            Kind::Str => "string @max_length(3)",
            Kind::Int => "integer @min(1) @max(10)",
            Kind::Enum => "\"a\" | \"b\"",
            Kind::Unique => "integer[] @unique",
            Kind::Nested => "{ x: integer }",
        }
    }
    fn valid(self) -> Value {
        match self {
            Kind::Str => json!("ab"),
            Kind::Int => json!(5),
            Kind::Enum => json!("a"),
            Kind::Unique => json!([1, 2]),
            Kind::Nested => json!({"x": 1}),
        }
    }
    /// A violation in the field's value and the path (below the field) it is reported at.
    fn violation(self, how: u8) -> (Value, &'static str) {
        match (self, how % 2) {
            (Kind::Str, 0) => (json!("abcd"), ""),
            (Kind::Str, _) => (json!(true), ""),
            (Kind::Int, 0) => (json!(11), ""),
            (Kind::Int, _) => (json!("x"), ""),
            (Kind::Enum, _) => (json!("c"), ""),
            (Kind::Unique, 0) => (json!([1, 2, 1]), ""),
            (Kind::Unique, _) => (json!([1, "z"]), "/1"),
            (Kind::Nested, 0) => (json!({"x": "1.5"}), "/x"),
            (Kind::Nested, _) => (json!({}), "/x"),
        }
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// 5. k independent violations give exactly k errors, with the right paths.
    #[test]
    fn k_violations_give_k_errors(
        kinds in prop::collection::vec(prop::sample::select(vec![Kind::Str, Kind::Int, Kind::Enum, Kind::Unique, Kind::Nested]), 1..7),
        plan in prop::collection::vec((0u8..4, any::<u8>()), 7),
        unknown in 0usize..3,
        mode in prop::sample::select(vec![Mode::Strict, Mode::Lax]),
    ) {
        let mut source = String::from("/// Many fields.\ntool t {\n");
        for (i, k) in kinds.iter().enumerate() {
            source.push_str(&format!("  f{i}: {}\n", k.ty()));
        }
        source.push('}');
        let module = tooldef::compile(&source).map_err(|e| TestCaseError::fail(format!("{e:?}")))?.module;
        let v = Validator::for_tool(&module, "t").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut args = Map::new();
        let mut expected: Vec<String> = Vec::new();
        for (i, k) in kinds.iter().enumerate() {
            let (action, how) = plan[i];
            match action {
                // Leave it valid.
                0 | 1 => {
                    args.insert(format!("f{i}"), k.valid());
                }
                // Leave it out: one missing field.
                2 => expected.push(format!("/f{i}")),
                // Break it.
                _ => {
                    let (bad, below) = k.violation(how);
                    args.insert(format!("f{i}"), bad);
                    expected.push(format!("/f{i}{below}"));
                }
            }
        }
        for u in 0..unknown {
            args.insert(format!("zz{u}"), json!(u));
            expected.push(format!("/zz{u}"));
        }
        let args = Value::Object(args);
        let result = v.validate_value(&args, mode);
        if expected.is_empty() {
            prop_assert!(result.is_ok());
        } else {
            let err = result.err().ok_or_else(|| TestCaseError::fail(format!("accepted {args}")))?;
            let mut got: Vec<String> = err.errors.iter().map(|e| e.path.clone()).collect();
            got.sort();
            expected.sort();
            prop_assert_eq!(got, expected, "{}", err.message());
            prop_assert_eq!(err.message().matches('\n').count(), err.errors.len() + 1);
        }
    }
}

/// The generators produce both verdicts (and coercions) often enough for the properties to mean
/// something, in 600 draws.
#[test]
fn generators_cover_both_verdicts() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = tool_and_args();
    let (mut valid, mut invalid, mut coerced) = (0, 0, 0);
    for _ in 0..600 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let (spec, args) = tree.current();
        let (module, tool) = build(&spec);
        let Ok(v) = Validator::new(&module, &tool) else {
            continue;
        };
        match v.validate_value(&args, Mode::Lax) {
            Ok(out) if !out.coercions.is_empty() => coerced += 1,
            Ok(_) => valid += 1,
            Err(_) => invalid += 1,
        }
    }
    assert!(valid > 40, "valid {valid}");
    assert!(invalid > 40, "invalid {invalid}");
    assert!(coerced > 10, "coerced {coerced}");
}
