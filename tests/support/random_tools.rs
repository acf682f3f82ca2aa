//! Random tools and random arguments for the validator's property tests: a `Spec` is a small
//! description of a type, built into a model (`build`), with strategies for values that fit it
//! (`good`), that probably do not (`bad`), or either (`instance`). Shared by
//! `tests/validate_props.rs` and `src/validate/agreement.rs` (the single pass, a unit test of the
//! crate, which names itself `tooldef` in its tests for these paths).

#![allow(dead_code)]

use proptest::prelude::*;
use proptest::strategy::Union;
use serde_json::{json, Map, Number, Value};

use tooldef::model::*;
use tooldef::Span;

// ---------------------------------------------------------------------------------------------
// Random tools

#[derive(Clone, Debug)]
pub enum Extra {
    Closed,
    Open,
    Map(Box<Spec>),
}

#[derive(Clone, Debug)]
pub enum Spec {
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
        /// Rules across the keys, as the checker allows them (see [`key_rules`]).
        rules: KeyRules,
    },
    /// Positional items, how many are required, what may follow, `@max_items`, `@unique`.
    Tuple {
        items: Vec<Spec>,
        required: usize,
        rest: Extra,
        max: Option<u64>,
        unique: bool,
    },
    Never,
    Nullable(Box<Spec>),
    AnyOf(Vec<Spec>),
    Named(Box<Spec>),
}

/// Patterns that mean the same in the `regex` crate and in ECMA-262 for the strings generated.
pub const PATTERNS: &[&str] = &["^[a-z]+$", "b", "^a", "[0-9]$", "^(ab)+$", "é"];

pub fn scalar_pool() -> Vec<Value> {
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

pub fn leaf() -> BoxedStrategy<Spec> {
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
    // Literal arrays, nested, with 1 and 1.0 and booleans that JSON Schema keeps apart from 0/1.
    let array_constant = prop::sample::select(vec![
        json!([]),
        json!([1, "a"]),
        json!([false]),
        json!([[1.0], {"k": true}]),
    ])
    .prop_map(Spec::Const);
    prop_oneof![
        1 => Just(Spec::Any),
        1 => Just(Spec::Null),
        3 => Just(Spec::Bool),
        5 => int,
        5 => num,
        5 => string,
        3 => enumeration,
        1 => constant,
        1 => array_constant,
    ]
    .boxed()
}

/// Field names of every length class the key lookup treats apart (up to 3 bytes, 4 to 7, 8 to 16,
/// longer), names that share a prefix or a suffix, pointer escapes and a non-ASCII name.
pub fn field_names() -> impl Strategy<Value = Vec<String>> {
    let names = vec![
        "a",
        "b",
        "c",
        "d",
        "e",
        "f/g",
        "h~i",
        "city",
        "naïve",
        "temperature_unit",
        "temperature_units",
        "include_forecast_days",
        "include_forecast_hours",
    ];
    prop::sample::subsequence(names, 0..5).prop_map(|v| v.into_iter().map(str::to_string).collect())
}

pub fn default_for(spec: &Spec) -> Option<Value> {
    match spec {
        Spec::Bool => Some(json!(false)),
        Spec::Str {
            min: None,
            max: None,
            pattern: None,
            format,
        } => Some(if *format {
            json!("2000-01-01")
        } else {
            json!("dflt")
        }),
        Spec::Enum(values) => values.first().cloned(),
        _ => None,
    }
}

pub fn object(inner: BoxedStrategy<Spec>) -> BoxedStrategy<Spec> {
    let extra = prop_oneof![
        4 => Just(Extra::Closed),
        1 => Just(Extra::Open),
        1 => inner.clone().prop_map(|s| Extra::Map(Box::new(s))),
    ];
    (
        field_names(),
        prop::collection::vec((inner, any::<bool>(), any::<bool>()), 5),
        extra,
        proptest::bool::weighted(0.15),
        any::<[u8; 3]>(),
    )
        .prop_map(|(names, specs, extra, never, seed)| {
            let mut fields: Vec<_> = names
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
            // `never` only as an optional field: a required one makes every call invalid.
            if never {
                fields.push(("nv".to_string(), false, Spec::Never, None));
            }
            // A map is an object without fields; an empty closed object stays closed.
            let rules = key_rules(&fields, seed);
            Spec::Object {
                fields,
                extra,
                rules,
            }
        })
        .boxed()
}

/// Rules across the keys of an object of `fields`, chosen by `seed`, within what the checker
/// allows: the fields of `@exactly_one_of` and `@at_most_one_of` are optional without a default,
/// a `@requires` key has no default, and `@max_properties` only where no field has a default.
pub fn key_rules(fields: &[(String, bool, Spec, Option<Value>)], seed: [u8; 3]) -> KeyRules {
    let free: Vec<String> = fields
        .iter()
        .filter(|(_, required, _, default)| !required && default.is_none())
        .map(|f| f.0.clone())
        .collect();
    let names: Vec<String> = fields.iter().map(|f| f.0.clone()).collect();
    let take = |from: &[String], n: usize| from.iter().take(n).cloned().collect::<Vec<_>>();
    let mut rules = KeyRules::default();
    let group = match seed[0] % 16 {
        1 if free.len() >= 2 => Some(KeyGroup::ExactlyOneOf(take(
            &free,
            2 + (seed[2] % 2) as usize,
        ))),
        2 if free.len() >= 2 => Some(KeyGroup::AtMostOneOf(take(
            &free,
            2 + (seed[2] % 2) as usize,
        ))),
        3 if !free.is_empty() && names.len() >= 2 => {
            let key = free[0].clone();
            let needs = names
                .iter()
                .filter(|n| **n != key)
                .take(1 + (seed[2] % 2) as usize)
                .cloned()
                .collect();
            Some(KeyGroup::Requires { key, needs })
        }
        _ => None,
    };
    rules
        .groups
        .extend(group.map(|g| Spanned::new(g, Span::default())));
    let required = fields.iter().filter(|f| f.1).count() as u64;
    let defaults = fields.iter().any(|f| f.3.is_some());
    let bound = u64::from(seed[2] % 3);
    match seed[1] % 16 {
        1 => rules.min_properties = Some(Spanned::new(required + bound, Span::default())),
        2 if !defaults => {
            rules.max_properties = Some(Spanned::new(required + bound, Span::default()))
        }
        3 if !defaults => {
            rules.min_properties = Some(Spanned::new(required, Span::default()));
            rules.max_properties = Some(Spanned::new(required + bound, Span::default()));
        }
        _ => {}
    }
    rules
}

pub fn spec() -> BoxedStrategy<Spec> {
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
                2 => (
                    prop::collection::vec(inner.clone(), 0..4),
                    0usize..4,
                    prop_oneof![2 => Just(Extra::Closed), 1 => Just(Extra::Open), 1 => inner.clone().prop_map(|s| Extra::Map(Box::new(s)))],
                    proptest::option::weighted(0.3, 0u64..3),
                    proptest::bool::weighted(0.3),
                )
                    .prop_map(|(items, required, rest, max, unique)| {
                        let required = required.min(items.len());
                        Spec::Tuple { items, required, rest, max: max.map(|m| m + required as u64), unique }
                    }),
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
pub fn takes_null(s: &Spec) -> bool {
    match s {
        Spec::Any | Spec::Null | Spec::Nullable(_) => true,
        Spec::Named(inner) => takes_null(inner),
        Spec::AnyOf(members) => members.iter().any(takes_null),
        _ => false,
    }
}

pub fn tool_spec() -> BoxedStrategy<Spec> {
    object(spec())
}

pub fn num(x: f64) -> Spanned<Number> {
    Spanned::new(
        Number::from_f64(x).unwrap_or_else(|| Number::from(0)),
        Span::default(),
    )
}

pub fn int(x: i64) -> Spanned<Number> {
    Spanned::new(Number::from(x), Span::default())
}

pub fn to_ty(s: &Spec, types: &mut Vec<NamedType>) -> Ty {
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
        Spec::Object {
            fields,
            extra,
            rules,
        } => Ty::Object(Box::new(object_ty(fields, extra, rules, types))),
        Spec::Tuple {
            items,
            required,
            rest,
            max,
            unique,
        } => Ty::Tuple(Box::new(TupleTy {
            items: items.iter().map(|i| to_ty(i, types)).collect(),
            required: *required,
            rest: match rest {
                Extra::Closed => Additional::Closed,
                Extra::Open => Additional::Open,
                Extra::Map(s) => Additional::Schema(to_ty(s, types)),
            },
            min_items: None,
            max_items: max.map(|v| Spanned::new(v, Span::default())),
            unique: unique.then(|| Spanned::new(true, Span::default())),
        })),
        Spec::Never => Ty::Never,
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

pub fn object_ty(
    fields: &[(String, bool, Spec, Option<Value>)],
    extra: &Extra,
    rules: &KeyRules,
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
        rules: rules.clone(),
    }
}

pub fn build(root: &Spec) -> (Module, Tool) {
    let mut types = Vec::new();
    let params = match root {
        Spec::Object {
            fields,
            extra,
            rules,
        } => object_ty(fields, extra, rules, &mut types),
        _ => ObjectTy {
            fields: Vec::new(),
            additional: Additional::Closed,
            rules: KeyRules::default(),
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

pub fn any_scalar() -> BoxedStrategy<Value> {
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

pub fn instance(s: &Spec) -> BoxedStrategy<Value> {
    prop_oneof![6 => good(s), 1 => bad(s)].boxed()
}

pub fn good(s: &Spec) -> BoxedStrategy<Value> {
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
            min,
            max,
            pattern,
            format,
        } => {
            let lo = min.unwrap_or(0) as usize;
            let hi = max.map_or(lo + 4, |m| m as usize).max(lo);
            let alphabet = match pattern {
                Some("^[a-z]+$") => "[a-z]",
                Some("^(ab)+$") => "[ab]",
                _ => "[a-c0-9é😀 ]",
            };
            let text = prop::string::string_regex(&format!("{alphabet}{{{lo},{hi}}}"))
                .map(|s| s.prop_map(Value::String).boxed())
                .unwrap_or_else(|_| Just(json!("")).boxed());
            if *format {
                // Dates, some of them impossible (February 30th), beside the plain strings.
                let date = (1999u32..2001, 1u32..13, 1u32..32)
                    .prop_map(|(y, m, d)| json!(format!("{y}-{m:02}-{d:02}")));
                prop_oneof![text, date].boxed()
            } else {
                text
            }
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
        Spec::Object { fields, extra, .. } => {
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
        Spec::Tuple {
            items,
            required,
            rest,
            max,
            ..
        } => {
            let positional: Vec<BoxedStrategy<Value>> = items.iter().map(instance).collect();
            let extra: BoxedStrategy<Vec<Value>> = match rest {
                Extra::Closed => Just(Vec::new()).boxed(),
                Extra::Open => prop::collection::vec(any_scalar(), 0..3).boxed(),
                Extra::Map(r) => prop::collection::vec(instance(r), 0..3).boxed(),
            };
            let (required, len, max) = (*required, items.len(), *max);
            (positional, required..=len, extra)
                .prop_map(move |(mut values, keep, extra)| {
                    values.truncate(keep);
                    if keep == len {
                        values.extend(extra);
                    }
                    if let Some(m) = max {
                        values.truncate(usize::try_from(m).unwrap_or(usize::MAX).max(required));
                    }
                    Value::Array(values)
                })
                .boxed()
        }
        Spec::Never => any_scalar(),
        Spec::Nullable(inner) => prop_oneof![1 => Just(json!(null)), 3 => instance(inner)].boxed(),
        Spec::AnyOf(members) => Union::new(members.iter().map(instance)).boxed(),
        Spec::Named(inner) => instance(inner),
    }
}

/// A value that is probably wrong for `s`: the wrong type, out of range, a string where lax mode
/// may coerce, a missing or unknown key, a duplicate item, a value outside the enum.
pub fn bad(s: &Spec) -> BoxedStrategy<Value> {
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
        Spec::Tuple { .. } => {
            let base = good(s);
            (base, 0u8..3)
                .prop_map(|(v, how)| match v {
                    Value::Array(mut a) => {
                        match how {
                            0 => {
                                a.pop();
                            }
                            1 => a.push(json!("extra")),
                            _ => {
                                if let Some(first) = a.first() {
                                    let twin = as_floats(first);
                                    a.push(twin);
                                }
                            }
                        }
                        Value::Array(a)
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
pub fn as_floats(v: &Value) -> Value {
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

pub fn tool_and_args() -> impl Strategy<Value = (Spec, Value)> {
    tool_spec().prop_flat_map(|s| {
        let args = instance(&s);
        (Just(s), args)
    })
}

/// `cases` unless `PROPTEST_CASES` says otherwise.
pub fn config(cases: u32) -> ProptestConfig {
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
