//! Lossless lowering, as a property: a call in the source's shape, lowered by hand into the shape
//! Gemini's OpenAPI form is shown (maps as `{key, value}` entries, typed extra keys as entries
//! under `_extra_keys`, `any` as JSON text), is accepted by the validator of that reading and
//! comes back as exactly what the source's validator returns for the call.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use tooldef::validate::{Mode, Reading, Validator};

#[path = "support/random_tools.rs"]
mod random_tools;
use random_tools::*;

/// The entries of the keys of `map`, their values lowered as `spec`.
fn entries<'a>(
    map: impl Iterator<Item = (&'a String, &'a Value)>,
    spec: &Spec,
) -> Option<Vec<Value>> {
    map.map(|(k, v)| Some(json!({"key": k, "value": lower(spec, v)?})))
        .collect()
}

/// `value` (valid for `spec`) in the lowered shape; `None` where the shape depends on which
/// member of a union took the value, or for a tuple (which the target refuses).
fn lower(spec: &Spec, value: &Value) -> Option<Value> {
    Some(match (spec, value) {
        (Spec::Any, v) => Value::String(v.to_string()),
        (Spec::Named(inner), v) => lower(inner, v)?,
        (Spec::Nullable(_), Value::Null) => Value::Null,
        (Spec::Nullable(inner), v) => lower(inner, v)?,
        (Spec::AnyOf(members), v) => {
            if members.iter().any(lowers) {
                return None;
            }
            v.clone()
        }
        (Spec::Tuple { .. }, _) => return None,
        (Spec::Array { items, .. }, Value::Array(a)) => {
            Value::Array(a.iter().map(|i| lower(items, i)).collect::<Option<_>>()?)
        }
        (Spec::Object { fields, extra, .. }, Value::Object(m)) => {
            let declared = |k: &str| fields.iter().any(|f| f.0 == k);
            let mut out = Map::new();
            for (name, _, s, _) in fields {
                if let Some(v) = m.get(name) {
                    out.insert(name.clone(), lower(s, v)?);
                }
            }
            let extras = m.iter().filter(|(k, _)| !declared(k));
            match extra {
                Extra::Map(s) if fields.is_empty() => {
                    return Some(Value::Array(entries(extras, s)?));
                }
                Extra::Map(s) => {
                    let e = entries(extras, s)?;
                    if !e.is_empty() {
                        out.insert("_extra_keys".into(), Value::Array(e));
                    }
                }
                Extra::Open | Extra::Closed => {
                    for (k, v) in extras {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(out)
        }
        (_, v) => v.clone(),
    })
}

/// Whether the lowered shape of `spec` differs from its own.
fn lowers(spec: &Spec) -> bool {
    match spec {
        Spec::Any => true,
        Spec::Named(inner) | Spec::Nullable(inner) => lowers(inner),
        Spec::AnyOf(members) => members.iter().any(lowers),
        Spec::Array { items, .. } => lowers(items),
        Spec::Tuple { .. } => true,
        Spec::Object { fields, extra, .. } => {
            matches!(extra, Extra::Map(_)) || fields.iter().any(|f| lowers(&f.2))
        }
        _ => false,
    }
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn lowered_calls_come_back_in_the_source_shape((spec, args) in tool_and_args()) {
        let (module, tool) = build(&spec);
        let Ok(source) = Validator::new(&module, &tool) else { return Ok(()) };
        let Ok(valid) = source.validate_value(&args, Mode::Strict) else { return Ok(()) };
        let Some(lowered) = lower_params(&spec, &args) else { return Ok(()) };
        let target = Validator::with_reading(&module, &tool, Reading::Lowered)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back = target.validate_value(&lowered, Mode::Strict);
        prop_assert!(back.is_ok(), "lowered {}\nfrom {}\n{:?}", lowered, args, back.as_ref().err().map(|e| e.message()));
        let back = back.unwrap();
        prop_assert_eq!(&*back.arguments, &*valid.arguments, "lowered {}", lowered);
    }
}

/// The parameters lowered: they stay an object even when they are only a map (its entries go
/// under `_extra_keys`).
fn lower_params(spec: &Spec, value: &Value) -> Option<Value> {
    match (spec, value) {
        (
            Spec::Object {
                fields,
                extra: Extra::Map(s),
                ..
            },
            Value::Object(m),
        ) if fields.is_empty() => {
            let e = entries(m.iter(), s)?;
            let mut out = Map::new();
            if !e.is_empty() {
                out.insert("_extra_keys".into(), Value::Array(e));
            }
            Some(Value::Object(out))
        }
        _ => lower(spec, value),
    }
}

/// The property means something: many generated calls are valid and hold something to lower.
#[test]
fn generated_calls_often_hold_something_to_lower() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = tool_and_args();
    let mut checked = 0;
    for _ in 0..3000 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let (spec, args) = tree.current();
        let (module, tool) = build(&spec);
        let Ok(source) = Validator::new(&module, &tool) else {
            continue;
        };
        let valid = source.validate_value(&args, Mode::Strict).is_ok();
        if valid && lowers(&spec) && lower_params(&spec, &args).is_some_and(|l| l != args) {
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} of 3000 calls were lowered");
}
