//! Lossless lowering, as a property: a call in the source's shape, lowered by hand into the shape
//! a target shows the tool in, is accepted by the validator of that target's reading and comes
//! back as exactly what the source's validator returns for the call. Two shapes:
//!
//! - Gemini's OpenAPI form ([`Reading::Lowered`]): maps, and open objects without fields (as
//!   maps of `any`), as `{key, value}` entries; typed extra keys as entries under
//!   `_extra_keys`; `any` as JSON text; a tuple as an object with one key per position given
//!   (`"0"`, `"1"`, …) and the items after the positions in the array `_rest`; a value of a
//!   literal or enum that holds a value that is not a string as its JSON spelling (`1` as
//!   `"1"`, unless two values are spelled alike); everything else as it is.
//! - OpenAI strict mode ([`Reading::NullForAbsent`]): every key sent, `null` for an optional
//!   field left out (where its type has no `null`); the extra keys of every object that has
//!   them, open ones too, as entries (in place of an object without fields, else under
//!   `_extra_keys`); `any` as JSON text; a tuple as in Gemini's form, with every key sent
//!   (`null` for a position left out and for `_rest` without items).
//! - Anthropic strict mode ([`Reading::Closed`]): as OpenAI strict mode for what it lowers
//!   (the extra keys of every object that has them as entries, `any` as JSON text), but a field
//!   or tuple position left out is not sent, as in Gemini's form; values of literals and enums
//!   as they are.
//!
//! The lowering here is written from the documented shapes (docs/targets.md), not from the
//! library's code.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use tooldef::validate::{Mode, Reading, Validator};

#[path = "support/random_tools.rs"]
mod random_tools;
use random_tools::*;

/// The shape a call is lowered into.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    /// Gemini's OpenAPI form.
    Gemini,
    /// OpenAI strict mode.
    Strict,
    /// Anthropic strict mode.
    Closed,
}

impl Shape {
    fn reading(self) -> Reading {
        match self {
            Shape::Gemini => Reading::Lowered,
            Shape::Strict => Reading::NullForAbsent,
            Shape::Closed => Reading::Closed,
        }
    }

    /// The value type of the extra keys `extra` this shape sends as entries, if it does:
    /// typed extra keys always; open ones as `any` in strict mode, and in Gemini's form when
    /// the object has no fields.
    fn entries_of(self, extra: &Extra, fields: bool) -> Option<Spec> {
        match (extra, self) {
            (Extra::Map(s), _) => Some((**s).clone()),
            (Extra::Open, Shape::Strict | Shape::Closed) => Some(Spec::Any),
            (Extra::Open, Shape::Gemini) if !fields => Some(Spec::Any),
            _ => None,
        }
    }
}

/// The entries of the keys of `map`, their values lowered as `spec`.
fn entries<'a>(
    shape: Shape,
    map: impl Iterator<Item = (&'a String, &'a Value)>,
    spec: &Spec,
) -> Option<Vec<Value>> {
    map.map(|(k, v)| Some(json!({"key": k, "value": lower(shape, spec, v)?})))
        .collect()
}

/// How Gemini's form spells the values of a literal or enum of `values`, when it does: each as
/// its JSON text (a string as itself), where one value is neither a string nor `null`, none is
/// an array or object, and no two are spelled alike.
fn spellings(values: &[Value]) -> Option<Vec<(Value, Value)>> {
    if values.iter().all(|v| v.is_string() || v.is_null())
        || values.iter().any(|v| v.is_array() || v.is_object())
    {
        return None;
    }
    let spelled: Vec<(Value, Value)> = values
        .iter()
        .map(|v| {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (v.clone(), Value::String(s))
        })
        .collect();
    let mut seen: Vec<&Value> = spelled.iter().map(|(_, s)| s).collect();
    seen.sort_by_key(|s| s.to_string());
    seen.dedup();
    (seen.len() == spelled.len()).then_some(spelled)
}

/// The values of a literal or enum spec, when it is one.
fn literal_values(spec: &Spec) -> Option<Vec<Value>> {
    match spec {
        Spec::Enum(values) => Some(values.clone()),
        Spec::Const(v) => Some(vec![v.clone()]),
        _ => None,
    }
}

/// `value` (valid for `spec`) in the lowered shape; `None` where the shape depends on which
/// member of a union took the value, and in strict mode for an optional field or tuple position
/// left out whose type takes `null` (strict mode sends every key, and `null` there is a value,
/// not "absent").
fn lower(shape: Shape, spec: &Spec, value: &Value) -> Option<Value> {
    Some(match (spec, value) {
        (Spec::Any, v) => Value::String(v.to_string()),
        (Spec::Named(inner), v) => lower(shape, inner, v)?,
        (Spec::Nullable(_), Value::Null) => Value::Null,
        (Spec::Nullable(inner), v) => lower(shape, inner, v)?,
        (Spec::AnyOf(members), v) => {
            if members.iter().any(|m| lowers(shape, m)) {
                return None;
            }
            v.clone()
        }
        (Spec::Tuple { items, rest, .. }, Value::Array(a)) => {
            let mut out = Map::new();
            for (i, item) in items.iter().enumerate() {
                match a.get(i) {
                    Some(v) => {
                        out.insert(i.to_string(), lower(shape, item, v)?);
                    }
                    None if shape == Shape::Strict => {
                        if takes_null(item) {
                            return None;
                        }
                        out.insert(i.to_string(), Value::Null);
                    }
                    None => {}
                }
            }
            let rest_spec = match rest {
                Extra::Closed => None,
                Extra::Open => Some(Spec::Any),
                Extra::Map(s) => Some((**s).clone()),
            };
            if let Some(rest_spec) = rest_spec {
                let after: Vec<Value> = a
                    .iter()
                    .skip(items.len())
                    .map(|v| lower(shape, &rest_spec, v))
                    .collect::<Option<_>>()?;
                match shape {
                    Shape::Gemini | Shape::Closed if after.is_empty() => {}
                    Shape::Strict if after.is_empty() => {
                        out.insert("_rest".into(), Value::Null);
                    }
                    _ => {
                        out.insert("_rest".into(), Value::Array(after));
                    }
                }
            }
            Value::Object(out)
        }
        (Spec::Enum(_) | Spec::Const(_), v) if shape == Shape::Gemini => {
            match literal_values(spec).as_deref().and_then(spellings) {
                Some(spelled) => spelled.into_iter().find(|(x, _)| x == v)?.1,
                None => v.clone(),
            }
        }
        (Spec::Array { items, .. }, Value::Array(a)) => Value::Array(
            a.iter()
                .map(|i| lower(shape, items, i))
                .collect::<Option<_>>()?,
        ),
        (Spec::Object { fields, extra, .. }, Value::Object(m)) => {
            let entry_spec = shape.entries_of(extra, !fields.is_empty());
            let extras = m.iter().filter(|(k, _)| !fields.iter().any(|f| f.0 == **k));
            if let (Some(s), true) = (&entry_spec, fields.is_empty()) {
                return Some(Value::Array(entries(shape, extras, s)?));
            }
            lower_fields(shape, fields, entry_spec.as_ref(), m)?
        }
        (_, v) => v.clone(),
    })
}

/// An object that stays one: its fields lowered (in strict mode every one sent), then its extra
/// keys, as entries under `_extra_keys` when `entry_spec` says so, else as they are.
fn lower_fields(
    shape: Shape,
    fields: &[(String, bool, Spec, Option<Value>)],
    entry_spec: Option<&Spec>,
    m: &Map<String, Value>,
) -> Option<Value> {
    let mut out = Map::new();
    for (name, _, s, _) in fields {
        match m.get(name) {
            Some(v) => {
                out.insert(name.clone(), lower(shape, s, v)?);
            }
            None if shape == Shape::Strict => {
                if takes_null(s) {
                    return None;
                }
                out.insert(name.clone(), Value::Null);
            }
            None => {}
        }
    }
    let extras = m.iter().filter(|(k, _)| !fields.iter().any(|f| f.0 == **k));
    match entry_spec {
        Some(s) => {
            let e = entries(shape, extras, s)?;
            match shape {
                Shape::Gemini | Shape::Closed if e.is_empty() => {}
                // Strict mode sends the property, `null` when there are no extra keys.
                Shape::Strict if e.is_empty() => {
                    out.insert("_extra_keys".into(), Value::Null);
                }
                _ => {
                    out.insert("_extra_keys".into(), Value::Array(e));
                }
            }
        }
        None => {
            for (k, v) in extras {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Some(Value::Object(out))
}

/// Whether the lowered shape of `spec` differs from its own (for some value).
fn lowers(shape: Shape, spec: &Spec) -> bool {
    match spec {
        Spec::Any => true,
        Spec::Named(inner) | Spec::Nullable(inner) => lowers(shape, inner),
        Spec::AnyOf(members) => members.iter().any(|m| lowers(shape, m)),
        Spec::Array { items, .. } => lowers(shape, items),
        Spec::Tuple { .. } => true,
        Spec::Enum(_) | Spec::Const(_) => {
            shape == Shape::Gemini
                && literal_values(spec)
                    .as_deref()
                    .and_then(spellings)
                    .is_some()
        }
        Spec::Object { fields, extra, .. } => {
            shape.entries_of(extra, !fields.is_empty()).is_some()
                || (shape == Shape::Strict && fields.iter().any(|f| !f.1))
                || fields.iter().any(|f| lowers(shape, &f.2))
        }
        _ => false,
    }
}

/// The parameters lowered: they stay an object even when they have no fields (the entries of
/// their extra keys go under `_extra_keys`).
fn lower_params(shape: Shape, spec: &Spec, value: &Value) -> Option<Value> {
    match (spec, value) {
        (Spec::Object { fields, extra, .. }, Value::Object(m)) => {
            let entry_spec = shape.entries_of(extra, !fields.is_empty());
            lower_fields(shape, fields, entry_spec.as_ref(), m)
        }
        _ => lower(shape, spec, value),
    }
}

/// The property for one shape: `Ok(true)` when the call was checked, `Ok(false)` when it was
/// not (the tool does not compile, the call is invalid, or it has no lowered shape).
fn comes_back(shape: Shape, spec: &Spec, args: &Value) -> Result<bool, TestCaseError> {
    let (module, tool) = build(spec);
    let Ok(source) = Validator::new(&module, &tool) else {
        return Ok(false);
    };
    let Ok(valid) = source.validate_value(args, Mode::Strict) else {
        return Ok(false);
    };
    let Some(lowered) = lower_params(shape, spec, args) else {
        return Ok(false);
    };
    let target = Validator::with_reading(&module, &tool, shape.reading())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back = target.validate_value(&lowered, Mode::Strict);
    prop_assert!(
        back.is_ok(),
        "{shape:?}: lowered {}\nfrom {}\n{:?}",
        lowered,
        args,
        back.as_ref().err().map(|e| e.message())
    );
    let back = back.unwrap();
    prop_assert_eq!(
        &*back.arguments,
        &*valid.arguments,
        "{:?}: lowered {}",
        shape,
        lowered
    );
    Ok(true)
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn lowered_calls_come_back_in_the_source_shape((spec, args) in tools_and_args()) {
        comes_back(Shape::Gemini, &spec, &args)?;
    }

    #[test]
    fn strict_calls_come_back_in_the_source_shape((spec, args) in tools_and_args()) {
        comes_back(Shape::Strict, &spec, &args)?;
    }

    #[test]
    fn anthropic_strict_calls_come_back_in_the_source_shape((spec, args) in tools_and_args()) {
        comes_back(Shape::Closed, &spec, &args)?;
    }
}

/// Whether `value` (valid for `spec`) holds a value of an open object without fields below its
/// root (the parameters are counted apart).
fn holds_open_without_fields(spec: &Spec, value: &Value) -> bool {
    match (spec, value) {
        (Spec::Named(inner) | Spec::Nullable(inner), v) => holds_open_without_fields(inner, v),
        (Spec::AnyOf(members), v) => members.iter().any(|m| holds_open_without_fields(m, v)),
        (Spec::Array { items, .. }, Value::Array(a)) => {
            a.iter().any(|i| holds_open_without_fields(items, i))
        }
        (Spec::Object { fields, extra, .. }, Value::Object(m)) => {
            fields.iter().any(|f| {
                m.get(&f.0).is_some_and(|v| {
                matches!(&f.2, Spec::Object { fields, extra: Extra::Open, .. } if fields.is_empty())
                    || holds_open_without_fields(&f.2, v)
            })
            }) || matches!(extra, Extra::Map(s) if m.values().any(|v| holds_open_without_fields(s, v)))
        }
        _ => false,
    }
}

/// Whether `value` (valid for `spec`) holds a tuple's value (`tuple`) or a value of a literal or
/// enum that Gemini's form spells (`!tuple`).
fn holds_reshaped_value(spec: &Spec, value: &Value, tuple: bool) -> bool {
    let within = |s: &Spec, v: &Value| holds_reshaped_value(s, v, tuple);
    match (spec, value) {
        (Spec::Tuple { .. }, _) if tuple => true,
        (Spec::Enum(_) | Spec::Const(_), _) if !tuple => literal_values(spec)
            .as_deref()
            .and_then(spellings)
            .is_some(),
        (Spec::Named(inner) | Spec::Nullable(inner), v) => within(inner, v),
        (Spec::AnyOf(members), v) => members.iter().any(|m| within(m, v)),
        (Spec::Array { items, .. }, Value::Array(a)) => a.iter().any(|i| within(items, i)),
        (Spec::Tuple { items, .. }, Value::Array(a)) => {
            items.iter().zip(a).any(|(s, v)| within(s, v))
        }
        (Spec::Object { fields, extra, .. }, Value::Object(m)) => {
            fields
                .iter()
                .any(|f| m.get(&f.0).is_some_and(|v| within(&f.2, v)))
                || matches!(extra, Extra::Map(s) if m.values().any(|v| within(s, v)))
        }
        _ => false,
    }
}

/// The tools of the properties: [`tool_and_args`], and as often tools whose fields hold open
/// objects without fields (`{ ... }`, alone or in an array), which it seldom makes.
fn tools_and_args() -> impl Strategy<Value = (Spec, Value)> {
    let open = || Spec::Object {
        fields: Vec::new(),
        extra: Extra::Open,
        rules: Default::default(),
    };
    let field = prop_oneof![
        4 => spec(),
        1 => Just(open()),
        1 => Just(Spec::Array { items: Box::new(open()), min: None, max: None, unique: false }),
        1 => Just(Spec::Nullable(Box::new(open()))),
    ]
    .boxed();
    let with_open = object(field).prop_flat_map(|s| {
        let args = instance(&s);
        (Just(s), args)
    });
    // Parameters that are an open object without fields: any keys, sent under `_extra_keys`.
    let open_params = Just(open()).prop_flat_map(|s| {
        let args = instance(&s);
        (Just(s), args)
    });
    prop_oneof![6 => tool_and_args(), 6 => with_open, 1 => open_params]
}

/// The properties mean something: of the calls the proptest configuration generates, many are
/// valid and hold something to lower, in each shape, open objects without fields among them.
#[test]
fn generated_calls_often_hold_something_to_lower() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = tools_and_args();
    let (mut valid, mut checked_gemini, mut checked_strict) = (0, 0, 0);
    let (mut gemini, mut strict, mut open) = (0, 0, 0);
    let (mut tuples_gemini, mut tuples_strict, mut spelled) = (0, 0, 0);
    let (mut closed, mut tuples_closed) = (0, 0);
    for _ in 0..3000 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let (spec, args) = tree.current();
        let (module, tool) = build(&spec);
        let Ok(source) = Validator::new(&module, &tool) else {
            continue;
        };
        if source.validate_value(&args, Mode::Strict).is_err() {
            continue;
        }
        valid += 1;
        checked_gemini += usize::from(lower_params(Shape::Gemini, &spec, &args).is_some());
        checked_strict += usize::from(lower_params(Shape::Strict, &spec, &args).is_some());
        let changed = |shape| lower_params(shape, &spec, &args).filter(|l| *l != args);
        if changed(Shape::Gemini).is_some() {
            gemini += 1;
            open += usize::from(holds_open_without_fields(&spec, &args));
            tuples_gemini += usize::from(holds_reshaped_value(&spec, &args, true));
            spelled += usize::from(holds_reshaped_value(&spec, &args, false));
        }
        if changed(Shape::Strict).is_some() {
            strict += 1;
            tuples_strict += usize::from(holds_reshaped_value(&spec, &args, true));
        }
        if changed(Shape::Closed).is_some() {
            closed += 1;
            tuples_closed += usize::from(holds_reshaped_value(&spec, &args, true));
        }
    }
    eprintln!(
        "of 3000 generated calls, {valid} valid; with a lowered shape: {checked_gemini} for \
         Gemini's OpenAPI form ({gemini} different from the call, {open} holding an open object \
         without fields, {tuples_gemini} a tuple, {spelled} a spelled literal), {checked_strict} \
         for strict mode ({strict} different, {tuples_strict} holding a tuple); {closed} \
         different for Anthropic strict mode ({tuples_closed} holding a tuple)"
    );
    assert!(
        closed > 100 && tuples_closed > 40,
        "only {closed} of 3000 calls were lowered for Anthropic strict mode, {tuples_closed} with a tuple"
    );
    assert!(
        tuples_gemini > 40 && tuples_strict > 40,
        "only {tuples_gemini} (Gemini) and {tuples_strict} (strict) of 3000 calls lowered a tuple"
    );
    assert!(
        spelled > 40,
        "only {spelled} of 3000 calls spelled a literal for Gemini"
    );
    assert!(
        gemini > 40,
        "only {gemini} of 3000 calls were lowered for Gemini"
    );
    assert!(
        open > 100,
        "only {open} of 3000 calls lowered an open object without fields"
    );
    assert!(
        strict > 400,
        "only {strict} of 3000 calls were lowered for strict mode"
    );
}
