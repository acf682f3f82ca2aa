//! Validation of JSON values against model types, with JSON Schema draft 2020-12 semantics.
//!
//! The checker uses this to verify `= default` and `@example(...)` values at compile time.

use serde_json::Value;

use crate::model::*;

/// JSON equality as JSON Schema defines it: numbers compare by value (1 equals 1.0), objects
/// ignore key order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn number_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Whether a number is an integer in the JSON Schema sense (zero fractional part).
pub fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The first way `value` breaks `ty`, in words, or `None` when it fits.
pub fn first_violation(module: &Module, ty: &Ty, value: &Value) -> Option<String> {
    let mut path = String::new();
    violation(module, ty, value, &mut path).map(|m| {
        if path.is_empty() {
            m
        } else {
            format!("at {path}: {m}")
        }
    })
}

fn violation(module: &Module, ty: &Ty, value: &Value, path: &mut String) -> Option<String> {
    let expected = |what: &str| Some(format!("expected {what}, got {}", describe(value)));
    match ty {
        Ty::Any => None,
        Ty::Null => (!value.is_null()).then(|| format!("expected null, got {}", describe(value))),
        Ty::Boolean => {
            (!value.is_boolean()).then(|| format!("expected a boolean, got {}", describe(value)))
        }
        Ty::Integer(rules) => match value {
            Value::Number(n) if is_integer(n) => number_rules(rules, n),
            _ => expected("an integer"),
        },
        Ty::Number(rules) => match value {
            Value::Number(n) => number_rules(rules, n),
            _ => expected("a number"),
        },
        Ty::String(rules) => match value {
            Value::String(s) => string_rules(rules, s),
            _ => expected("a string"),
        },
        Ty::Const(c) => {
            (!json_equal(c, value)).then(|| format!("expected {c}, got {}", describe(value)))
        }
        Ty::Enum(members) => {
            if members.iter().any(|m| json_equal(&m.value, value)) {
                None
            } else {
                let values: Vec<String> = members.iter().map(|m| m.value.to_string()).collect();
                Some(format!(
                    "expected one of {}, got {}",
                    values.join(", "),
                    describe(value)
                ))
            }
        }
        Ty::Array(a) => {
            let Value::Array(items) = value else {
                return expected("an array");
            };
            let len = items.len() as u64;
            if let Some(min) = &a.min_items {
                if len < min.value {
                    return Some(format!("expected at least {} items, got {len}", min.value));
                }
            }
            if let Some(max) = &a.max_items {
                if len > max.value {
                    return Some(format!("expected at most {} items, got {len}", max.value));
                }
            }
            if a.unique.as_ref().is_some_and(|u| u.value) {
                for (i, x) in items.iter().enumerate() {
                    if items[..i].iter().any(|y| json_equal(x, y)) {
                        return Some(format!("items must be unique, but {x} repeats"));
                    }
                }
            }
            items.iter().enumerate().find_map(|(i, item)| {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                let r = violation(module, &a.items, item, path);
                if r.is_none() {
                    path.truncate(len);
                }
                r
            })
        }
        Ty::Object(o) => {
            let Value::Object(map) = value else {
                return expected("an object");
            };
            for f in &o.fields {
                match map.get(&f.name) {
                    Some(v) => {
                        let len = path.len();
                        path.push('/');
                        path.push_str(&f.name.replace('~', "~0").replace('/', "~1"));
                        if let Some(r) = violation(module, &f.ty, v, path) {
                            return Some(r);
                        }
                        path.truncate(len);
                    }
                    None if f.required => {
                        return Some(format!("missing required field `{}`", f.name))
                    }
                    None => {}
                }
            }
            for (k, v) in map {
                if o.field(k).is_some() {
                    continue;
                }
                match &o.additional {
                    Additional::Closed => return Some(format!("unknown field `{k}`")),
                    Additional::Open => {}
                    Additional::Schema(t) => {
                        let len = path.len();
                        path.push('/');
                        path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                        if let Some(r) = violation(module, t, v, path) {
                            return Some(r);
                        }
                        path.truncate(len);
                    }
                }
            }
            None
        }
        Ty::Ref(id) => violation(module, &module.get(*id).ty, value, path),
        Ty::Nullable(inner) => {
            if value.is_null() {
                None
            } else {
                violation(module, inner, value, path)
            }
        }
        Ty::AnyOf(members) => {
            let mut first = None;
            for m in members {
                let mut p = path.clone();
                match violation(module, m, value, &mut p) {
                    None => return None,
                    Some(r) => {
                        first.get_or_insert(r);
                    }
                }
            }
            first.map(|r| format!("matches no member of the union ({r})"))
        }
    }
}

fn number_rules(r: &NumberRules, n: &serde_json::Number) -> Option<String> {
    let x = n.as_f64()?;
    let bound = |b: &Option<Spanned<serde_json::Number>>| b.as_ref().and_then(|b| b.value.as_f64());
    if let Some(min) = bound(&r.minimum) {
        if x < min {
            return Some(format!("expected at least {min}, got {n}"));
        }
    }
    if let Some(max) = bound(&r.maximum) {
        if x > max {
            return Some(format!("expected at most {max}, got {n}"));
        }
    }
    if let Some(min) = bound(&r.exclusive_minimum) {
        if x <= min {
            return Some(format!("expected more than {min}, got {n}"));
        }
    }
    if let Some(max) = bound(&r.exclusive_maximum) {
        if x >= max {
            return Some(format!("expected less than {max}, got {n}"));
        }
    }
    if let Some(m) = bound(&r.multiple_of) {
        let q = x / m;
        if !q.is_finite() || q.fract() != 0.0 {
            return Some(format!("expected a multiple of {m}, got {n}"));
        }
    }
    None
}

fn string_rules(r: &StringRules, s: &str) -> Option<String> {
    let len = s.chars().count() as u64;
    if let Some(min) = &r.min_length {
        if len < min.value {
            return Some(format!(
                "expected at least {} characters, got {len}",
                min.value
            ));
        }
    }
    if let Some(max) = &r.max_length {
        if len > max.value {
            return Some(format!(
                "expected at most {} characters, got {len}",
                max.value
            ));
        }
    }
    if let Some(p) = &r.pattern {
        if let Ok(re) = regex::Regex::new(&p.value) {
            if !re.is_match(s) {
                return Some(format!(
                    "expected a string matching /{}/, got {s:?}",
                    p.value
                ));
            }
        }
    }
    None
}

fn describe(value: &Value) -> String {
    let text = value.to_string();
    let short: String = text.chars().take(40).collect();
    let shown = if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    };
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    format!("{kind} {shown}")
}
