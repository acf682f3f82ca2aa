//! The single pass over argument text (read, check, coerce and normalize at once) against the
//! full path (parse, then the run that collects every problem): on random tools and random
//! argument texts, valid and mutated (duplicate keys, escaped keys, odd number spellings, huge
//! numbers, deep nesting, broken text), both give the same verdict, the same normalized
//! arguments (key order included), the same coercions and the same errors, in both modes.
//!
//! The tool and value generators follow `validate_props.rs`.

use proptest::prelude::*;
use proptest::strategy::Union;
use serde_json::{json, Map, Number, Value};

use tooldef::model::*;
use tooldef::validate::{Limits, Mode, Validator};
use tooldef::Span;

// Random tools

#[derive(Clone, Debug)]
enum Extra {
    Closed,
    Open,
    Map(Box<Spec>),
}

#[derive(Clone, Debug)]
enum Spec {
    Any,
    Null,
    Bool,
    Int {
        min: Option<i64>,
        max: Option<i64>,
        xmin: Option<i64>,
        mult: Option<i64>,
    },
    Num {
        min: Option<f64>,
        max: Option<f64>,
        xmax: Option<f64>,
        mult: Option<f64>,
    },
    Str {
        min: Option<u64>,
        max: Option<u64>,
        pattern: Option<&'static str>,
        format: bool,
    },
    Enum(Vec<Value>),
    Const(Value),
    Array {
        items: Box<Spec>,
        min: Option<u64>,
        max: Option<u64>,
        unique: bool,
    },
    Object {
        fields: Vec<(String, bool, Spec, Option<Value>)>,
        extra: Extra,
    },
    Nullable(Box<Spec>),
    AnyOf(Vec<Spec>),
    Named(Box<Spec>),
}

/// Patterns that mean the same in the `regex` crate and in ECMA-262 for the strings generated.
const PATTERNS: &[&str] = &["^[a-z]+$", "b", "^a", "[0-9]$", "^(ab)+$", "é"];

fn scalar_pool() -> Vec<Value> {
    // Enums and literals never hold null: `T | null` makes a nullable type instead.
    vec![
        json!("a"),
        json!("b"),
        json!("c"),
        json!(1),
        json!(2),
        json!(3.5),
        json!(true),
        json!("1"),
    ]
}

fn leaf() -> BoxedStrategy<Spec> {
    let int = (
        proptest::option::of(-5i64..5),
        proptest::option::of(0i64..20),
        proptest::option::weighted(0.2, -5i64..5),
        proptest::option::weighted(0.3, prop::sample::select(vec![2i64, 3, 5])),
    )
        .prop_map(|(min, span, xmin, mult)| Spec::Int {
            min,
            max: span.map(|s| min.unwrap_or(0) + s),
            xmin,
            mult,
        });
    let num = (
        proptest::option::of(-10i64..10),
        proptest::option::of(0i64..40),
        proptest::option::weighted(0.2, 0i64..40),
        proptest::option::weighted(0.3, prop::sample::select(vec![0.5f64, 0.25, 0.1, 2.0])),
    )
        .prop_map(|(min, span, xspan, mult)| {
            let lo = min.map(|m| m as f64 / 2.0);
            Spec::Num {
                min: lo,
                max: span.map(|s| lo.unwrap_or(0.0) + s as f64 / 4.0),
                xmax: xspan.map(|s| lo.unwrap_or(0.0) + s as f64 / 4.0),
                mult,
            }
        });
    let string = (
        proptest::option::of(0u64..3),
        proptest::option::of(0u64..5),
        proptest::option::weighted(0.3, prop::sample::select(PATTERNS.to_vec())),
        proptest::bool::weighted(0.1),
    )
        .prop_map(|(min, span, pattern, format)| Spec::Str {
            min,
            max: span.map(|s| min.unwrap_or(0) + s),
            pattern,
            format,
        });
    let enumeration = prop::sample::subsequence(scalar_pool(), 1..5).prop_map(Spec::Enum);
    let constant = prop::sample::select(scalar_pool()).prop_map(Spec::Const);
    prop_oneof![
        1 => Just(Spec::Any),
        1 => Just(Spec::Null),
        3 => Just(Spec::Bool),
        5 => int,
        5 => num,
        5 => string,
        3 => enumeration,
        1 => constant,
    ]
    .boxed()
}

fn field_names() -> impl Strategy<Value = Vec<String>> {
    prop::sample::subsequence(vec!["a", "b", "c", "d", "e", "f/g", "h~i"], 0..5)
        .prop_map(|v| v.into_iter().map(str::to_string).collect())
}

fn default_for(spec: &Spec) -> Option<Value> {
    match spec {
        Spec::Bool => Some(json!(false)),
        Spec::Str {
            min: None,
            max: None,
            pattern: None,
            ..
        } => Some(json!("dflt")),
        Spec::Enum(values) => values.first().cloned(),
        _ => None,
    }
}

fn object(inner: BoxedStrategy<Spec>) -> BoxedStrategy<Spec> {
    let extra = prop_oneof![
        4 => Just(Extra::Closed),
        1 => Just(Extra::Open),
        1 => inner.clone().prop_map(|s| Extra::Map(Box::new(s))),
    ];
    (
        field_names(),
        prop::collection::vec((inner, any::<bool>(), any::<bool>()), 5),
        extra,
    )
        .prop_map(|(names, specs, extra)| {
            let fields = names
                .into_iter()
                .zip(specs)
                .map(|(name, (spec, required, with_default))| {
                    let default = if !required && with_default {
                        default_for(&spec)
                    } else {
                        None
                    };
                    (name, required, spec, default)
                })
                .collect();
            // A map is an object without fields; an empty closed object stays closed.
            Spec::Object { fields, extra }
        })
        .boxed()
}

fn spec() -> BoxedStrategy<Spec> {
    leaf()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                3 => (inner.clone(), proptest::option::of(0u64..2), proptest::option::of(0u64..4), proptest::bool::weighted(0.6))
                    .prop_map(|(items, min, span, unique)| Spec::Array {
                        items: Box::new(items),
                        min,
                        max: span.map(|s| min.unwrap_or(0) + s),
                        unique,
                    }),
                3 => object(inner.clone()),
                // Unique arrays of objects: deep equality with 1 = 1.0 and any key order.
                1 => object(inner.clone()).prop_map(|o| Spec::Array { items: Box::new(o), min: None, max: None, unique: true }),
                // `N | null` where N already allows null makes the emitter write
                // `"type": ["null", "null"]`, which is not a valid schema; see `takes_null`.
                2 => inner.clone().prop_filter_map("nullable of a nullable", |s| {
                    (!takes_null(&s)).then(|| Spec::Nullable(Box::new(s)))
                }),
                // The checker flattens unions: members are never `any`, `null`, nullable or unions.
                1 => prop::collection::vec(
                    inner.clone().prop_filter("union member", |s| !matches!(s, Spec::Any | Spec::Null | Spec::Nullable(_) | Spec::AnyOf(_))),
                    2..4,
                )
                .prop_map(Spec::AnyOf),
                1 => inner.prop_map(|s| Spec::Named(Box::new(s))),
            ]
        })
        .boxed()
}

/// Whether the type already accepts null (also through a named alias).
fn takes_null(s: &Spec) -> bool {
    match s {
        Spec::Any | Spec::Null | Spec::Nullable(_) => true,
        Spec::Named(inner) => takes_null(inner),
        Spec::AnyOf(members) => members.iter().any(takes_null),
        _ => false,
    }
}

fn tool_spec() -> BoxedStrategy<Spec> {
    object(spec())
}

fn num(x: f64) -> Spanned<Number> {
    Spanned::new(
        Number::from_f64(x).unwrap_or_else(|| Number::from(0)),
        Span::default(),
    )
}

fn int(x: i64) -> Spanned<Number> {
    Spanned::new(Number::from(x), Span::default())
}

fn to_ty(s: &Spec, types: &mut Vec<NamedType>) -> Ty {
    match s {
        Spec::Any => Ty::Any,
        Spec::Null => Ty::Null,
        Spec::Bool => Ty::Boolean,
        Spec::Int {
            min,
            max,
            xmin,
            mult,
        } => Ty::Integer(NumberRules {
            minimum: min.map(int),
            maximum: max.map(int),
            exclusive_minimum: xmin.map(int),
            exclusive_maximum: None,
            multiple_of: mult.map(int),
        }),
        Spec::Num {
            min,
            max,
            xmax,
            mult,
        } => Ty::Number(NumberRules {
            minimum: min.map(num),
            maximum: max.map(num),
            exclusive_minimum: None,
            exclusive_maximum: xmax.map(num),
            multiple_of: mult.map(num),
        }),
        Spec::Str {
            min,
            max,
            pattern,
            format,
        } => Ty::String(StringRules {
            min_length: min.map(|v| Spanned::new(v, Span::default())),
            max_length: max.map(|v| Spanned::new(v, Span::default())),
            pattern: pattern.map(|p| Spanned::new(p.to_string(), Span::default())),
            format: format.then(|| Spanned::new(Format::Date, Span::default())),
        }),
        Spec::Enum(values) => Ty::Enum(
            values
                .iter()
                .map(|v| EnumMember {
                    value: v.clone(),
                    description: None,
                })
                .collect(),
        ),
        Spec::Const(v) => Ty::Const(v.clone()),
        Spec::Array {
            items,
            min,
            max,
            unique,
        } => Ty::Array(Box::new(ArrayTy {
            items: to_ty(items, types),
            min_items: min.map(|v| Spanned::new(v, Span::default())),
            max_items: max.map(|v| Spanned::new(v, Span::default())),
            unique: unique.then(|| Spanned::new(true, Span::default())),
        })),
        Spec::Object { fields, extra } => Ty::Object(Box::new(object_ty(fields, extra, types))),
        Spec::Nullable(inner) => Ty::Nullable(Box::new(to_ty(inner, types))),
        Spec::AnyOf(members) => Ty::AnyOf(members.iter().map(|m| to_ty(m, types)).collect()),
        Spec::Named(inner) => {
            let ty = to_ty(inner, types);
            types.push(NamedType {
                name: format!("T{}", types.len()),
                kind: if matches!(ty, Ty::Object(_)) {
                    NamedKind::Object
                } else {
                    NamedKind::Alias
                },
                description: None,
                ty,
                recursive: false,
                deprecated: false,
                span: Span::default(),
            });
            Ty::Ref(TypeId(types.len() - 1))
        }
    }
}

fn object_ty(
    fields: &[(String, bool, Spec, Option<Value>)],
    extra: &Extra,
    types: &mut Vec<NamedType>,
) -> ObjectTy {
    ObjectTy {
        fields: fields
            .iter()
            .map(|(name, required, spec, default)| Field {
                name: name.clone(),
                description: Some(format!("The {name}.")),
                required: *required,
                ty: to_ty(spec, types),
                default: default.clone(),
                examples: Vec::new(),
                deprecated: false,
                span: Span::default(),
            })
            .collect(),
        additional: match extra {
            Extra::Closed => Additional::Closed,
            Extra::Open => Additional::Open,
            Extra::Map(s) => Additional::Schema(to_ty(s, types)),
        },
    }
}

fn build(root: &Spec) -> (Module, Tool) {
    let mut types = Vec::new();
    let params = match root {
        Spec::Object { fields, extra } => object_ty(fields, extra, &mut types),
        _ => ObjectTy {
            fields: Vec::new(),
            additional: Additional::Closed,
        },
    };
    let tool = Tool::new("t", "A random tool.", params);
    let module = Module {
        tools: vec![tool.clone()],
        types,
    };
    (module, tool)
}

// ---------------------------------------------------------------------------------------------
// Random arguments: mostly fitting, sometimes mutated anywhere

fn any_scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::Bool),
        (-50i64..50).prop_map(|i| json!(i)),
        (-100i64..100).prop_map(|i| json!(i as f64 / 4.0)),
        "[a-c1 ]{0,3}".prop_map(Value::String),
        Just(json!([])),
        Just(json!({})),
    ]
    .boxed()
}

fn instance(s: &Spec) -> BoxedStrategy<Value> {
    prop_oneof![6 => good(s), 1 => bad(s)].boxed()
}

fn good(s: &Spec) -> BoxedStrategy<Value> {
    match s {
        Spec::Any => any_scalar(),
        Spec::Null => Just(json!(null)).boxed(),
        Spec::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Spec::Int { min, max, mult, .. } => {
            let lo = min.unwrap_or(-20);
            let hi = max.unwrap_or(lo + 40).max(lo);
            let m = mult.unwrap_or(1);
            (lo / m - 1..=hi / m + 1, any::<bool>())
                .prop_map(move |(k, float)| {
                    if float {
                        json!((k * m) as f64)
                    } else {
                        json!(k * m)
                    }
                })
                .boxed()
        }
        Spec::Num { min, max, mult, .. } => {
            let lo = min.unwrap_or(-10.0);
            let hi = max.unwrap_or(lo + 10.0).max(lo);
            let step = mult.unwrap_or(0.25);
            let n = ((hi - lo) / step).floor() as i64;
            let first = (lo / step).ceil() as i64;
            (first - 1..=first + n + 1, any::<bool>())
                .prop_map(move |(k, as_int)| {
                    let x = k as f64 * step;
                    if as_int && x.fract() == 0.0 {
                        json!(x as i64)
                    } else {
                        json!(x)
                    }
                })
                .boxed()
        }
        Spec::Str {
            min, max, pattern, ..
        } => {
            let lo = min.unwrap_or(0) as usize;
            let hi = max.map_or(lo + 4, |m| m as usize).max(lo);
            let alphabet = match pattern {
                Some("^[a-z]+$") => "[a-z]",
                Some("^(ab)+$") => "[ab]",
                _ => "[a-c0-9é😀 ]",
            };
            prop::string::string_regex(&format!("{alphabet}{{{lo},{hi}}}"))
                .map(|s| s.prop_map(Value::String).boxed())
                .unwrap_or_else(|_| Just(json!("")).boxed())
        }
        Spec::Enum(values) => prop::sample::select(values.clone()).boxed(),
        Spec::Const(v) => Just(v.clone()).boxed(),
        Spec::Array {
            items,
            min,
            max,
            unique,
        } => {
            let lo = min.unwrap_or(0) as usize;
            let hi = max.map_or(lo + 3, |m| m as usize).max(lo);
            let unique = *unique;
            (prop::collection::vec(instance(items), lo..=hi), 0u8..4)
                .prop_map(move |(mut a, twin)| {
                    // Now and then a twin of the first item, equal only in JSON Schema's sense.
                    if unique && twin == 0 {
                        if let Some(first) = a.first() {
                            let t = as_floats(first);
                            a.push(t);
                        }
                    }
                    Value::Array(a)
                })
                .boxed()
        }
        Spec::Object { fields, extra } => {
            let parts: Vec<BoxedStrategy<Option<(String, Value)>>> = fields
                .iter()
                .map(|(name, required, spec, _)| {
                    let name = name.clone();
                    let value = instance(spec);
                    if *required {
                        value.prop_map(move |v| Some((name.clone(), v))).boxed()
                    } else {
                        proptest::option::of(value.prop_map(move |v| (name.clone(), v))).boxed()
                    }
                })
                .collect();
            let extra_entry: BoxedStrategy<Option<(String, Value)>> = match extra {
                Extra::Closed => Just(None).boxed(),
                Extra::Open => {
                    proptest::option::of(any_scalar().prop_map(|v| ("zz".to_string(), v))).boxed()
                }
                Extra::Map(s) => {
                    proptest::option::of(instance(s).prop_map(|v| ("zz".to_string(), v))).boxed()
                }
            };
            (parts, extra_entry)
                .prop_map(|(parts, extra)| {
                    let mut map = Map::new();
                    for (k, v) in parts.into_iter().flatten().chain(extra) {
                        map.insert(k, v);
                    }
                    Value::Object(map)
                })
                .boxed()
        }
        Spec::Nullable(inner) => prop_oneof![1 => Just(json!(null)), 3 => instance(inner)].boxed(),
        Spec::AnyOf(members) => Union::new(members.iter().map(instance)).boxed(),
        Spec::Named(inner) => instance(inner),
    }
}

/// A value that is probably wrong for `s`: the wrong type, out of range, a string where lax mode
/// may coerce, a missing or unknown key, a duplicate item, a value outside the enum.
fn bad(s: &Spec) -> BoxedStrategy<Value> {
    let wrong = any_scalar();
    let specific: BoxedStrategy<Value> = match s {
        Spec::Int { min, max, .. } => {
            let below = min.unwrap_or(0) - 1;
            let above = max.unwrap_or(100) + 1;
            prop_oneof![
                Just(json!(below)),
                Just(json!(above)),
                Just(json!(2.5)),
                (-30i64..30).prop_map(|i| json!(i.to_string())),
                (-30i64..30).prop_map(|i| json!(format!(" {i}.0 "))),
                Just(json!("1.5")),
            ]
            .boxed()
        }
        Spec::Num { .. } => prop_oneof![
            (-80i64..80).prop_map(|i| json!((i as f64 / 4.0).to_string())),
            Just(json!("NaN")),
            Just(json!("Infinity")),
            Just(json!("1e400")),
            Just(json!(1e300)),
        ]
        .boxed(),
        Spec::Bool => prop_oneof![
            Just(json!("true")),
            Just(json!(" false")),
            Just(json!("yes")),
            Just(json!(0))
        ]
        .boxed(),
        Spec::Str { .. } => prop_oneof![
            (-30i64..30).prop_map(|i| json!(i)),
            Just(json!(2.5)),
            Just(json!("abcdefghijkl")),
            Just(json!(false)),
        ]
        .boxed(),
        Spec::Enum(_) | Spec::Const(_) => prop_oneof![
            Just(json!("zzz")),
            Just(json!("2")),
            Just(json!(1.0)),
            Just(json!("true")),
            Just(json!(4))
        ]
        .boxed(),
        Spec::Array { items, .. } => {
            let dup = good(s)
                .prop_map(|v| match v {
                    Value::Array(mut a) => {
                        if let Some(first) = a.first() {
                            // Equal in JSON Schema's sense, not in representation: 1 → 1.0.
                            let twin = as_floats(first);
                            a.push(twin);
                        }
                        Value::Array(a)
                    }
                    other => other,
                })
                .boxed();
            prop_oneof![dup, good(items), Just(json!("[1]"))].boxed()
        }
        Spec::Object { fields, .. } => {
            let names: Vec<String> = fields.iter().map(|f| f.0.clone()).collect();
            let base = good(s);
            let n = names.len();
            (base, 0..n.max(1), 0u8..3)
                .prop_map(move |(v, i, how)| match v {
                    Value::Object(mut m) => {
                        match how {
                            0 => {
                                if let Some(name) = names.get(i) {
                                    m.shift_remove(name);
                                }
                            }
                            1 => {
                                m.insert("unknown_key".into(), json!(1));
                            }
                            _ => {
                                if let Some(name) = names.get(i) {
                                    m.insert(name.clone(), Value::Null);
                                }
                            }
                        }
                        Value::Object(m)
                    }
                    other => other,
                })
                .boxed()
        }
        Spec::Nullable(inner) | Spec::Named(inner) => bad(inner),
        _ => wrong.clone(),
    };
    prop_oneof![1 => wrong, 3 => specific].boxed()
}

/// The same value with integral numbers written the other way (1 ↔ 1.0) and keys reversed:
/// equal under JSON Schema, different in representation.
fn as_floats(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => n.as_f64().map_or(v.clone(), |f| json!(f)),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => json!(f as i64),
            _ => v.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(as_floats).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .rev()
                .map(|(k, x)| (k.clone(), as_floats(x)))
                .collect(),
        ),
        _ => v.clone(),
    }
}

fn tool_and_args() -> impl Strategy<Value = (Spec, Value)> {
    tool_spec().prop_flat_map(|s| {
        let args = instance(&s);
        (Just(s), args)
    })
}

/// `cases` unless `PROPTEST_CASES` says otherwise.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Argument text, written from a value with random changes

/// A small deterministic generator (xorshift), so that one `u64` from proptest picks every
/// change to a text.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides.max(1)
    }

    /// True about once in `n` times.
    fn one_in(&mut self, n: u64) -> bool {
        self.roll(n) == 0
    }
}

fn write_str(s: &str, escape_all: bool, out: &mut String) {
    if !escape_all {
        out.push_str(&Value::String(s.to_string()).to_string());
        return;
    }
    out.push('"');
    for u in s.encode_utf16() {
        out.push_str(&format!("\\u{u:04x}"));
    }
    out.push('"');
}

/// Writes `v` as JSON, changing it now and then when `mutate` (one change in about `rate`
/// places): the same value spelled differently, or a different text.
fn write(v: &Value, d: &mut Dice, mutate: bool, rate: u64, out: &mut String) {
    if mutate && d.one_in(rate) {
        match d.roll(8) {
            // Deeper than the default limit, or just deep.
            0 => {
                let n = [5, 127, 128, 129, 300][d.roll(5) as usize];
                out.push_str(&"[".repeat(n));
                out.push_str(&"]".repeat(n));
                return;
            }
            1 => {
                out.push_str(" \n\t");
            }
            2 => {
                out.push_str(
                    [
                        "18446744073709551616",
                        "-9223372036854775809",
                        "-0",
                        "-0.0",
                        "1e400",
                        "123456789012345678901234567890",
                        "1E2",
                        "\"\\ud800\"",
                        "\"\\u00e9\\n\"",
                        "\"12\"",
                        "\" 3.0 \"",
                        "\"true\"",
                        "null",
                    ][d.roll(13) as usize],
                );
                return;
            }
            _ => {}
        }
    }
    match v {
        Value::Number(n) if mutate && d.one_in(rate) => {
            // The same number written another way: `2` as `2.0`, `2e0` or `20e-1`.
            match (n.as_i64(), d.roll(3)) {
                (Some(i), 0) => out.push_str(&format!("{i}.0")),
                (Some(i), 1) => out.push_str(&format!("{i}e0")),
                (Some(i), _) => out.push_str(&format!("{}e-1", i * 10)),
                (None, _) => out.push_str(&n.to_string()),
            }
        }
        Value::String(s) => write_str(s, mutate && d.one_in(rate), out),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(x, d, mutate, rate, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            let escape = mutate && d.one_in(rate);
            let mut first = true;
            let mut entry = |k: &str, x: &Value, d: &mut Dice, out: &mut String| {
                if !std::mem::replace(&mut first, false) {
                    out.push(',');
                }
                write_str(k, escape, out);
                out.push(':');
                write(x, d, mutate, rate, out);
            };
            // Keys in another order than declared.
            if mutate && d.one_in(3) {
                for (k, x) in m.iter().rev() {
                    entry(k, x, d, out);
                }
            } else {
                for (k, x) in m {
                    entry(k, x, d, out);
                }
            }
            // A key sent twice: the same value again, or another one.
            if mutate && d.one_in(rate) {
                if let Some((k, x)) = m.iter().next() {
                    if d.one_in(2) {
                        entry(k, x, d, out);
                    } else {
                        entry(k, &json!(null), d, out);
                    }
                }
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The text of `args`: unchanged, or changed in a few places, and now and then cut short or
/// followed by something.
fn text_of(args: &Value, dice: u64, mutate: bool) -> String {
    let mut d = Dice(dice | 1);
    let mut out = String::new();
    write(args, &mut d, mutate, 6, &mut out);
    if mutate {
        match d.roll(12) {
            0 => {
                let mut cut = d.roll(out.len() as u64 + 1) as usize;
                while !out.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.truncate(cut);
            }
            1 => out.push_str(" {}"),
            2 => out.push_str(" \n"),
            _ => {}
        }
    }
    out
}

fn tool_args_text() -> impl Strategy<Value = (Spec, Value, String)> {
    (tool_and_args(), any::<u64>(), proptest::bool::weighted(0.5)).prop_map(
        |((spec, args), dice, mutate)| {
            let text = text_of(&args, dice, mutate);
            (spec, args, text)
        },
    )
}

/// The single pass (`validate_str`, `is_valid`) and the full path (`validate_full`) agree on
/// `text` in both modes: verdict, arguments (key order included), coercions and errors.
fn agree(v: &Validator, text: &str) -> Result<(), TestCaseError> {
    for mode in [Mode::Strict, Mode::Lax] {
        let fast = v.validate_str(text, mode);
        let full = v.validate_full(text, mode);
        prop_assert_eq!(&fast, &full, "{:?} on {}", mode, text);
        if let (Ok(a), Ok(b)) = (&fast, &full) {
            prop_assert_eq!(
                serde_json::to_string(&a.arguments)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?,
                serde_json::to_string(&b.arguments)
                    .map_err(|e| TestCaseError::fail(e.to_string()))?,
                "key order, {:?} on {}",
                mode,
                text
            );
        }
        prop_assert_eq!(
            v.is_valid(text, mode),
            full.is_ok(),
            "is_valid {:?} on {}",
            mode,
            text
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn single_pass_agrees_with_the_full_path((spec, _args, text) in tool_args_text()) {
        let (module, tool) = build(&spec);
        let v = Validator::new(&module, &tool).map_err(|e| TestCaseError::fail(e.to_string()))?;
        agree(&v, &text)?;
        // Tight limits: nesting cut at three levels, and the default mode changed.
        let tight = Validator::new(&module, &tool)
            .map_err(|e| TestCaseError::fail(e.to_string()))?
            .with_limits(Limits { max_bytes: Limits::DEFAULT_MAX_BYTES, max_depth: 3 })
            .with_default_mode(Mode::Lax);
        agree(&tight, &text)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed cases

fn weather() -> Validator {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/weather.tool"),
    )
    .unwrap_or_default();
    let module = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("weather.tool compiles: {e:?}"))
        .module;
    Validator::for_tool(&module, "get_weather_by_locality")
        .unwrap_or_else(|e| panic!("the weather tool compiles: {e}"))
}

fn numbers() -> Validator {
    let source = r#"
        /// Numbers.
        tool t {
          i?: integer
          n?: number
          s?: string
          b?: boolean
          big?: integer @min(18446744073709551615)
          l?: integer[] @unique
          e?: 1 | 2 | "x"
          m?: map<integer>
        }
    "#;
    let module = tooldef::compile(source)
        .unwrap_or_else(|e| panic!("the numbers tool compiles: {e:?}"))
        .module;
    Validator::for_tool(&module, "t").unwrap_or_else(|e| panic!("{e}"))
}

fn check(v: &Validator, text: &str) {
    if let Err(e) = agree(v, text) {
        panic!("{e}");
    }
}

#[test]
fn valid_text_is_normalized_in_declaration_order() {
    let v = weather();
    let text = r#"{"days": 3.0, "country": "FR", "at": null, "city": "Paris", "labels": {"b": "x", "a": "y"}}"#;
    check(&v, text);
    let out = v
        .validate_str(text, Mode::Strict)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        serde_json::to_string(&out.arguments).unwrap_or_default(),
        r#"{"city":"Paris","country":"FR","unit":"celsius","days":3,"format":"markdown","at":null,"labels":{"b":"x","a":"y"}}"#
    );
}

#[test]
fn lax_coercions_come_in_the_order_of_the_full_run() {
    let v = weather();
    // Sent last, declared first: the full run lists `city` before `days` and `at`.
    let text = r#"{"at": {"lon": "2.35", "lat": "48.85"}, "days": "3", "country": "FR", "state": null, "city": 75}"#;
    check(&v, text);
    let out = v
        .validate_str(text, Mode::Lax)
        .unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = out.coercions.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, ["/city", "/state", "/days", "/at/lat", "/at/lon"]);
    assert_eq!(out.arguments["at"], json!({"lat": 48.85, "lon": 2.35}));
    assert!(v.validate_str(text, Mode::Strict).is_err());
}

#[test]
fn numbers_keep_their_meaning() {
    let v = numbers();
    for text in [
        r#"{"i": -0}"#,
        r#"{"n": -0}"#,
        r#"{"n": -0.0, "i": 2e0}"#,
        r#"{"i": 18446744073709551615}"#,
        r#"{"i": 18446744073709551616}"#,
        r#"{"n": 123456789012345678901234567890}"#,
        r#"{"big": 18446744073709551615}"#,
        r#"{"big": 18446744073709551616}"#,
        r#"{"big": 1e19}"#,
        r#"{"i": -9223372036854775809}"#,
        r#"{"n": 1e400}"#,
        r#"{"s": 1e300}"#,
        r#"{"s": -0}"#,
        r#"{"i": "-0"}"#,
        r#"{"l": [1, 1.0]}"#,
        r#"{"l": [1, "1"]}"#,
        r#"{"l": [1, 2.0, "3"]}"#,
        r#"{"e": 1.0}"#,
        r#"{"e": "2"}"#,
        r#"{"m": {"a": "1", "b": 2.0, "a\u0000": 3}}"#,
    ] {
        check(&v, text);
    }
    let out = v
        .validate_str(r#"{"i": 18446744073709551616, "n": -0}"#, Mode::Strict)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.arguments["i"], json!(18446744073709551616.0));
    assert_eq!(
        serde_json::to_string(&out.arguments).unwrap_or_default(),
        r#"{"i":1.8446744073709552e+19,"n":-0.0}"#
    );
}

#[test]
fn hostile_text_gets_the_same_verdict() {
    let v = weather();
    let deep = format!(
        r#"{{"city": "x", "country": "y", "labels": {{"a": {}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let long = format!(r#"{{"city": "{}", "country": "y"}}"#, "é".repeat(200_000));
    for text in [
        r#"{"city": "a", "country": "b", "city": "a"}"#,
        r#"{"city": "a", "country": "b", "labels": {"k": "1", "k": "2"}}"#,
        r#"{"city": "a", "country": "b", "labels": {"k": "1", "\u006b": "2"}}"#,
        r#"{"\u0063ity": "a", "country": "b"}"#,
        r#"{"city": "\ud800", "country": "b"}"#,
        r#"{"city": "\ud83d\ude00", "country": "b"}"#,
        r#"{"city": "a", "country": "b"} x"#,
        r#"{"city": "a", "country": "b""#,
        r#"{"city": "a", "country": "b", "at": {"lat": 1, "lon": 2, "lat": 1}}"#,
        "",
        "null",
        "[]",
        deep.as_str(),
        long.as_str(),
    ] {
        check(&v, text);
    }
}

#[test]
fn wide_objects_in_any_key_order() {
    // 150 fields (beyond the inline field sets), every third one defaulted, every fifth one
    // required; keys sent in reverse, shuffled, with gaps.
    let mut source = String::from("/// Wide.\ntool wide {\n");
    for i in 0..150_usize {
        let field = match (i.is_multiple_of(5), i.is_multiple_of(3)) {
            (true, _) => format!("  f{i}: integer\n"),
            (false, true) => format!("  f{i}?: integer = {i}\n"),
            (false, false) => format!("  f{i}?: string\n"),
        };
        source.push_str(&field);
    }
    source.push_str("}\n");
    let module = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("the wide tool compiles: {e:?}"))
        .module;
    let v = Validator::for_tool(&module, "wide").unwrap_or_else(|e| panic!("{e}"));
    let entry = |i: usize| {
        if i.is_multiple_of(5) || i.is_multiple_of(3) {
            format!("\"f{i}\": {}", i * 2)
        } else {
            format!("\"f{i}\": \"s{i}\"")
        }
    };
    let required: Vec<usize> = (0..150_usize).filter(|&i| i.is_multiple_of(5)).collect();
    let orders: Vec<Vec<usize>> = vec![
        (0..150_usize).rev().collect(),
        (0..150_usize)
            .filter(|&i| i.is_multiple_of(2) || i.is_multiple_of(5))
            .collect(),
        (0..150_usize)
            .map(|i| (i * 7) % 150)
            .filter(|&i| i % 4 != 1 || i.is_multiple_of(5))
            .collect(),
        required.clone(),
        required.iter().rev().copied().collect(),
    ];
    for order in orders {
        let body: Vec<String> = order.iter().map(|&i| entry(i)).collect();
        let text = format!("{{{}}}", body.join(", "));
        check(&v, &text);
        assert!(v.validate_str(&text, Mode::Strict).is_ok(), "{text}");
        // Strings for integers and nulls for optional fields: lax coercions in key order.
        let lax: Vec<String> = order
            .iter()
            .map(|&i| match i.is_multiple_of(5) {
                true => format!("\"f{i}\": \"{i}\""),
                false if i.is_multiple_of(2) => format!("\"f{i}\": null"),
                false => entry(i),
            })
            .collect();
        check(&v, &format!("{{{}}}", lax.join(", ")));
    }
    let missing: Vec<String> = (1..150).map(entry).collect();
    check(&v, &format!("{{{}}}", missing.join(", ")));
}

#[test]
fn tuples_never_and_literal_arrays_agree_on_both_paths() {
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/valid/tuples.tool"),
    )
    .unwrap_or_default();
    let module = tooldef::compile(&source)
        .unwrap_or_else(|e| panic!("tuples.tool compiles: {e:?}"))
        .module;
    let v = Validator::for_tool(&module, "shapes").unwrap_or_else(|e| panic!("{e}"));
    let texts = [
        r#"{"point": [1, 2]}"#,
        r#"{"point": [1, "2"]}"#,
        r#"{"point": [1, 2, 3]}"#,
        r#"{"point": [1]}"#,
        r#"{"point": [1, 2], "range": [1, 2, "a", "b"]}"#,
        r#"{"point": [1, 2], "range": [1, 2, "a", "a"]}"#,
        r#"{"point": [1, 2], "range": ["1"]}"#,
        r#"{"point": [1, 2], "open": ["a", 1, null, {}]}"#,
        r#"{"point": [1, 2], "open": ["a", 1, null, {}, 5]}"#,
        r#"{"point": [1, 2], "pair": [1, "a", [true, null]]}"#,
        r#"{"point": [1, 2], "pair": [1.0, "a", [true, null]]}"#,
        r#"{"point": [1, 2], "pair": [1, "a", [1, null]]}"#,
        r#"{"point": [1, 2], "flag": {"off": []}}"#,
        r#"{"point": [1, 2], "legacy": 1}"#,
        r#"{"point": [1, 2], "legacy": null}"#,
        r#"{"point": [1, 2], "many": ["a", 1, true]}"#,
        r#"{"point": [1, 2], "many": ["a"]}"#,
        r#"{"point": [1, 2], "min_inside": []}"#,
    ];
    for text in texts {
        for mode in [Mode::Strict, Mode::Lax] {
            assert_eq!(
                v.validate_str(text, mode),
                v.validate_full(text, mode),
                "{mode:?} {text}"
            );
            assert_eq!(
                v.is_valid(text, mode),
                v.validate_full(text, mode).is_ok(),
                "{text}"
            );
        }
    }
    // The verdicts themselves.
    assert!(v.is_valid(r#"{"point": [1, 2]}"#, Mode::Strict));
    assert!(!v.is_valid(r#"{"point": [1, 2, 3]}"#, Mode::Strict));
    assert!(v.is_valid(r#"{"point": [1, "2"]}"#, Mode::Lax));
    assert!(!v.is_valid(r#"{"point": [1, 2], "legacy": 1}"#, Mode::Lax));
}
