//! The property behind `tooldef::diff`'s verdicts: when it reports no breaking change, every
//! value the old tool's validator accepts, the new tool's validator accepts too (strict mode).
//!
//! Pairs of small `.tool` sources are generated (a random parameter object, and a mutation of it
//! or another random one), with values near both (boundary numbers, short strings, extra keys),
//! and checked against the real validators.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{json, Map, Value};

use tooldef::validate::{Mode, Validator};
use tooldef::ChangeKind;

/// A generated type.
#[derive(Clone, Debug)]
enum T {
    Int {
        min: Option<i64>,
        max: Option<i64>,
        exclusive_min: Option<i64>,
        multiple_of: Option<i64>,
    },
    Num {
        min: Option<f64>,
        max: Option<f64>,
        exclusive_max: Option<f64>,
    },
    Str {
        min: Option<u64>,
        max: Option<u64>,
        pattern: Option<&'static str>,
    },
    Bool,
    Null,
    Any,
    Lits(Vec<Value>),
    Arr {
        items: Box<T>,
        min: Option<u64>,
        max: Option<u64>,
        unique: bool,
    },
    Tuple {
        items: Vec<T>,
        required: usize,
        rest: Rest,
    },
    Obj {
        fields: Vec<(&'static str, T, bool)>,
        rest: Rest,
    },
    Union(Vec<T>),
    Nullable(Box<T>),
    /// A recursive named type: `type R { v: T, next?: R }`.
    Rec(Box<T>),
}

#[derive(Clone, Debug)]
enum Rest {
    Closed,
    Open,
    Of(Box<T>),
}

const NAMES: &[&str] = &["a", "b", "c"];

fn literal_pool() -> Vec<Value> {
    vec![
        json!("a"),
        json!("b"),
        json!("c"),
        json!(1),
        json!(2),
        json!(true),
    ]
}

fn scalar_pool() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(false),
        json!(-2),
        json!(-1),
        json!(0),
        json!(1),
        json!(1.0),
        json!(1.5),
        json!(2),
        json!(2.5),
        json!(3),
        json!(4),
        json!(5),
        json!(6),
        json!(10),
        json!(11),
        json!(""),
        json!("a"),
        json!("ab"),
        json!("abc"),
        json!("b"),
        json!("ba"),
        json!("c"),
        json!("abcdef"),
    ]
}

fn leaf() -> BoxedStrategy<T> {
    prop_oneof![
        (
            prop::option::of(-1i64..=2),
            prop::option::of(2i64..=5),
            prop::option::of(0i64..=1),
            prop::option::of(prop::sample::select(vec![1i64, 2, 3])),
        )
            .prop_map(|(min, max, exclusive_min, multiple_of)| T::Int {
                min,
                max,
                exclusive_min,
                multiple_of
            }),
        (
            prop::option::of(prop::sample::select(vec![-1.5, 0.0, 1.0])),
            prop::option::of(prop::sample::select(vec![1.5, 2.0, 10.0])),
            prop::option::of(prop::sample::select(vec![2.0, 10.0])),
        )
            .prop_map(|(min, max, exclusive_max)| T::Num {
                min,
                max,
                exclusive_max
            }),
        (
            prop::option::of(0u64..=2),
            prop::option::of(2u64..=5),
            prop::option::of(prop::sample::select(vec!["^a", "b"])),
        )
            .prop_map(|(min, max, pattern)| T::Str { min, max, pattern }),
        Just(T::Bool),
        Just(T::Null),
        Just(T::Any),
        prop::sample::subsequence(literal_pool(), 1..=3).prop_map(T::Lits),
    ]
    .boxed()
}

fn rest(inner: BoxedStrategy<T>) -> BoxedStrategy<Rest> {
    prop_oneof![
        3 => Just(Rest::Closed),
        1 => Just(Rest::Open),
        1 => inner.prop_map(|t| Rest::Of(Box::new(t))),
    ]
    .boxed()
}

fn object(inner: BoxedStrategy<T>) -> BoxedStrategy<T> {
    (
        prop::sample::subsequence(NAMES.to_vec(), 0..=3),
        prop::collection::vec((inner.clone(), any::<bool>()), 3),
        rest(inner),
    )
        .prop_map(|(names, types, rest)| T::Obj {
            fields: names
                .into_iter()
                .zip(types)
                .map(|(n, (t, required))| (n, t, required))
                .collect(),
            rest,
        })
        .boxed()
}

fn ty() -> BoxedStrategy<T> {
    leaf()
        .prop_recursive(2, 12, 3, |inner| {
            prop_oneof![
                (
                    inner.clone(),
                    prop::option::of(0u64..=2),
                    prop::option::of(2u64..=3),
                    any::<bool>()
                )
                    .prop_map(|(items, min, max, unique)| T::Arr {
                        items: Box::new(items),
                        min,
                        max,
                        unique
                    }),
                (
                    prop::collection::vec(inner.clone(), 1..=2),
                    0usize..=2,
                    rest(inner.clone())
                )
                    .prop_map(|(items, required, rest)| T::Tuple {
                        required: required.min(items.len()),
                        items,
                        rest
                    }),
                object(inner.clone()),
                prop::collection::vec(inner.clone(), 2..=2).prop_map(T::Union),
                inner.clone().prop_map(|t| T::Nullable(Box::new(t))),
                inner.prop_map(|t| T::Rec(Box::new(t))),
            ]
        })
        .boxed()
}

/// A variation of `t`: bounds redrawn, a field added, dropped or made (non-)required, a type
/// replaced, widened into a union or made nullable, one level down or at the top.
fn mutate(t: T) -> BoxedStrategy<T> {
    let here = prop_oneof![
        2 => leaf(),
        1 => ty(),
        1 => ty().prop_map({ let t = t.clone(); move |u| T::Union(vec![t.clone(), u]) }),
        1 => Just(T::Nullable(Box::new(t.clone()))),
    ]
    .boxed();
    match t {
        T::Obj { fields, rest: r } => {
            let n = fields.len();
            let fields_for_type = fields.clone();
            let r2 = r.clone();
            prop_oneof![
                1 => here,
                // Toggle whether a field is required.
                2 => (0..n.max(1)).prop_map({
                    let (fields, r) = (fields.clone(), r.clone());
                    move |i| {
                        let mut fields = fields.clone();
                        if let Some(f) = fields.get_mut(i) {
                            f.2 = !f.2;
                        }
                        T::Obj { fields, rest: r.clone() }
                    }
                }),
                // Drop a field, or redraw what other keys hold.
                2 => (0..n.max(1), rest(ty())).prop_map({
                    let (fields, r) = (fields.clone(), r.clone());
                    move |(i, new_rest)| {
                        let mut fields = fields.clone();
                        if i < fields.len() {
                            fields.remove(i);
                            T::Obj { fields, rest: r.clone() }
                        } else {
                            T::Obj { fields, rest: new_rest }
                        }
                    }
                }),
                // Add a field.
                2 => (ty(), any::<bool>()).prop_map({
                    let (fields, r) = (fields.clone(), r.clone());
                    move |(t, required)| {
                        let mut fields = fields.clone();
                        if let Some(name) = NAMES.iter().find(|n| !fields.iter().any(|f| f.0 == **n)) {
                            fields.push((name, t, required));
                        }
                        T::Obj { fields, rest: r.clone() }
                    }
                }),
                // Change a field's type, one level down.
                3 => (0..n.max(1)).prop_flat_map(move |i| {
                    let fields = fields_for_type.clone();
                    let r = r2.clone();
                    match fields.get(i).cloned() {
                        Some((_, inner, _)) => mutate(inner)
                            .prop_map(move |u| {
                                let mut fields = fields.clone();
                                fields[i].1 = u;
                                T::Obj { fields, rest: r.clone() }
                            })
                            .boxed(),
                        None => Just(T::Obj { fields, rest: r }).boxed(),
                    }
                }),
            ]
            .boxed()
        }
        T::Arr {
            items,
            min,
            max,
            unique,
        } => prop_oneof![
            here,
            mutate(*items.clone()).prop_map(move |i| T::Arr {
                items: Box::new(i),
                min,
                max,
                unique
            }),
            (
                prop::option::of(0u64..=2),
                prop::option::of(2u64..=3),
                any::<bool>()
            )
                .prop_map(move |(min, max, unique)| T::Arr {
                    items: items.clone(),
                    min,
                    max,
                    unique
                }),
        ]
        .boxed(),
        T::Nullable(inner) => prop_oneof![
            here,
            Just(*inner.clone()),
            mutate(*inner).prop_map(|i| T::Nullable(Box::new(i)))
        ]
        .boxed(),
        T::Union(members) => prop_oneof![here, prop::sample::select(members)].boxed(),
        T::Rec(inner) => {
            prop_oneof![here, mutate(*inner).prop_map(|i| T::Rec(Box::new(i)))].boxed()
        }
        // The same bound made exclusive, or inclusive.
        T::Int {
            min,
            max,
            exclusive_min,
            multiple_of,
        } => prop_oneof![
            here,
            Just(T::Int {
                min: exclusive_min,
                max,
                exclusive_min: min,
                multiple_of
            }),
        ]
        .boxed(),
        T::Num {
            min,
            max,
            exclusive_max,
        } => prop_oneof![
            here,
            Just(T::Num {
                min,
                max: exclusive_max,
                exclusive_max: max
            }),
        ]
        .boxed(),
        _ => here,
    }
}

/// The type as `.tool` source.
fn render(t: &T) -> String {
    match t {
        T::Int {
            min,
            max,
            exclusive_min,
            multiple_of,
        } => {
            let mut s = "integer".to_string();
            attr(&mut s, "min", min);
            attr(&mut s, "max", max);
            attr(&mut s, "exclusive_min", exclusive_min);
            attr(&mut s, "multiple_of", multiple_of);
            s
        }
        T::Num {
            min,
            max,
            exclusive_max,
        } => {
            let mut s = "number".to_string();
            attr(&mut s, "min", min);
            attr(&mut s, "max", max);
            attr(&mut s, "exclusive_max", exclusive_max);
            s
        }
        T::Str { min, max, pattern } => {
            let mut s = "string".to_string();
            attr(&mut s, "min_length", min);
            attr(&mut s, "max_length", max);
            attr(&mut s, "pattern", &pattern.map(|p| format!("{p:?}")));
            s
        }
        T::Bool => "boolean".into(),
        T::Null => "null".into(),
        T::Any => "any".into(),
        T::Lits(values) => values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | "),
        T::Arr {
            items,
            min,
            max,
            unique,
        } => {
            let mut s = format!("{}[]", grouped(items));
            attr(&mut s, "min_items", min);
            attr(&mut s, "max_items", max);
            if *unique {
                s.push_str(" @unique");
            }
            s
        }
        T::Tuple {
            items,
            required,
            rest,
        } => {
            let mut parts: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{}{}", render(t), if i < *required { "" } else { "?" }))
                .collect();
            parts.extend(rest_text(rest));
            format!("[{}]", parts.join(", "))
        }
        T::Obj { fields, rest } => format!("{{ {} }}", body(fields, rest)),
        T::Union(members) => members.iter().map(grouped).collect::<Vec<_>>().join(" | "),
        T::Nullable(inner) => format!("{} | null", grouped(inner)),
        T::Rec(inner) => {
            let id = DEFS.with(|d| {
                let mut d = d.borrow_mut();
                d.push(String::new());
                d.len() - 1
            });
            let definition = format!("type R{id} {{ v: {}, next?: R{id} }}\n", render(inner));
            DEFS.with(|d| d.borrow_mut()[id] = definition);
            format!("R{id}")
        }
    }
}

thread_local! {
    /// The named types the type being rendered uses.
    static DEFS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn grouped(t: &T) -> String {
    match t {
        T::Union(_) | T::Nullable(_) | T::Lits(_) => format!("({})", render(t)),
        _ => render(t),
    }
}

fn attr<V: std::fmt::Display>(s: &mut String, name: &str, v: &Option<V>) {
    if let Some(v) = v {
        s.push_str(&format!(" @{name}({v})"));
    }
}

fn rest_text(rest: &Rest) -> Option<String> {
    match rest {
        Rest::Closed => None,
        Rest::Open => Some("...".into()),
        Rest::Of(t) => Some(format!("...: {}", render(t))),
    }
}

fn body(fields: &[(&str, T, bool)], rest: &Rest) -> String {
    let mut parts: Vec<String> = fields
        .iter()
        .map(|(n, t, required)| format!("{n}{}: {}", if *required { "" } else { "?" }, render(t)))
        .collect();
    parts.extend(rest_text(rest));
    parts.join(", ")
}

/// Values near the type: mostly of its shape, with boundary numbers and short strings, now and
/// then any scalar.
fn values(t: &T) -> BoxedStrategy<Value> {
    let scalar = prop::sample::select(scalar_pool()).boxed();
    let shaped: BoxedStrategy<Value> = match t {
        T::Int { .. } | T::Num { .. } | T::Str { .. } => {
            prop_oneof![3 => prop::sample::select(boundaries(t)), 1 => scalar.clone()].boxed()
        }
        T::Bool | T::Null | T::Any => scalar.clone(),
        T::Lits(v) => prop::sample::select(v.clone()).boxed(),
        T::Arr { items, .. } => prop::collection::vec(values(items), 0..4)
            .prop_map(Value::Array)
            .boxed(),
        T::Tuple { items, rest, .. } => {
            let extra = match rest {
                Rest::Of(t) => values(t),
                _ => scalar.clone(),
            };
            let items: Vec<BoxedStrategy<Value>> = items.iter().map(values).collect();
            (items, 0..=items_len(t), prop::collection::vec(extra, 0..2))
                .prop_map(|(items, keep, extra)| {
                    let mut out: Vec<Value> = items.into_iter().take(keep).collect();
                    out.extend(extra);
                    Value::Array(out)
                })
                .boxed()
        }
        T::Obj { fields, rest } => object_values(fields, rest),
        T::Union(members) => prop::strategy::Union::new(members.iter().map(values)).boxed(),
        T::Nullable(inner) => prop_oneof![Just(Value::Null), values(inner)].boxed(),
        T::Rec(inner) => {
            let node = |next: BoxedStrategy<Value>| {
                (values(inner), prop::option::of(next))
                    .prop_map(|(v, next)| {
                        let mut out = Map::new();
                        out.insert("v".into(), v);
                        if let Some(n) = next {
                            out.insert("next".into(), n);
                        }
                        Value::Object(out)
                    })
                    .boxed()
            };
            node(node(node(Just(json!({})).boxed())))
        }
    };
    prop_oneof![6 => shaped, 1 => scalar].boxed()
}

/// The values at and just past a scalar type's bounds.
fn boundaries(t: &T) -> Vec<Value> {
    match t {
        T::Int {
            min,
            max,
            exclusive_min,
            multiple_of,
        } => {
            let mut out = vec![json!(0), json!(1)];
            for b in [min, max, exclusive_min].into_iter().flatten() {
                out.extend([json!(b - 1), json!(b), json!(b + 1)]);
            }
            out.extend(multiple_of.iter().map(|m| json!(m * 2)));
            out
        }
        T::Num {
            min,
            max,
            exclusive_max,
        } => {
            let mut out = vec![json!(0.5)];
            for b in [min, max, exclusive_max].into_iter().flatten() {
                out.extend([json!(b - 0.5), json!(b), json!(b + 0.5)]);
            }
            out
        }
        T::Str { min, max, .. } => {
            let mut out = vec![json!("ab"), json!("ba")];
            for n in [min, max].into_iter().flatten() {
                for len in [n.saturating_sub(1), *n, n + 1] {
                    out.push(json!("a".repeat(len as usize)));
                    out.push(json!("b".repeat(len as usize)));
                }
            }
            out
        }
        _ => scalar_pool(),
    }
}

fn items_len(t: &T) -> usize {
    match t {
        T::Tuple { items, .. } => items.len(),
        _ => 0,
    }
}

fn object_values(fields: &[(&'static str, T, bool)], rest: &Rest) -> BoxedStrategy<Value> {
    let field_values: Vec<BoxedStrategy<(&'static str, Option<Value>)>> = fields
        .iter()
        .map(|(n, t, required)| {
            let n = *n;
            let present = if *required { 0.95 } else { 0.6 };
            (prop::bool::weighted(present), values(t))
                .prop_map(move |(keep, v)| (n, keep.then_some(v)))
                .boxed()
        })
        .collect();
    let extra = match rest {
        Rest::Of(t) => values(t),
        _ => prop::sample::select(scalar_pool()).boxed(),
    };
    let extra_key = prop::sample::select(vec!["a", "b", "c", "z"]);
    (
        field_values,
        prop::option::weighted(0.3, (extra_key, extra)),
    )
        .prop_map(|(fields, extra)| {
            let mut out = Map::new();
            for (n, v) in fields {
                if let Some(v) = v {
                    out.insert(n.to_string(), v);
                }
            }
            if let Some((k, v)) = extra {
                out.entry(k.to_string()).or_insert(v);
            }
            Value::Object(out)
        })
        .boxed()
}

fn tool_source(params: &T) -> String {
    DEFS.with(|d| d.borrow_mut().clear());
    let tool = match params {
        T::Obj { fields, rest } => format!("/// T.\ntool t {{ {} }}\n", body(fields, rest)),
        other => format!("/// T.\ntool t {{ x: {} }}\n", render(other)),
    };
    let defs = DEFS.with(|d| d.borrow().concat());
    format!("{defs}{tool}")
}

/// An old parameter object, a new one (a mutation of it most of the time), and values near
/// both.
fn case() -> impl Strategy<Value = (T, T, Vec<Value>)> {
    object(ty())
        .prop_flat_map(|old| {
            let new = prop_oneof![4 => mutate(old.clone()), 1 => object(ty())];
            (Just(old), new)
        })
        .prop_flat_map(|(old, new)| {
            let near_old = prop::collection::vec(values(&old), 12);
            let near_new = prop::collection::vec(values(&new), 12);
            (Just(old), Just(new), (near_old, near_new))
        })
        .prop_map(|(old, new, (mut a, b))| {
            a.extend(b);
            (old, new, a)
        })
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2048);
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_global_rejects: 100_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn no_breaking_change_means_every_old_call_stays_valid((old, new, values) in case()) {
        let old_source = tool_source(&old);
        let new_source = tool_source(&new);
        // A generated pair that the checker refuses (an empty range, say) says nothing.
        let (Ok(a), Ok(b)) = (tooldef::compile(&old_source), tooldef::compile(&new_source)) else {
            return Err(TestCaseError::reject("a source does not compile"));
        };
        let changes = tooldef::diff(&a.module, &b.module);
        let old_validator = Validator::new(&a.module, &a.module.tools[0]).unwrap();
        let new_validator = Validator::new(&b.module, &b.module.tools[0]).unwrap();
        if changes.iter().any(|c| c.kind == ChangeKind::Breaking) {
            return Ok(());
        }
        for v in &values {
            if old_validator.validate_value(v, Mode::Strict).is_ok() {
                prop_assert!(
                    new_validator.validate_value(v, Mode::Strict).is_ok(),
                    "diff found no breaking change, but the new tool rejects {v}\nold: {old_source}new: {new_source}changes: {changes:#?}"
                );
            }
        }
    }
}

/// The property is not vacuous: on a narrowing it must see an old call rejected, so a diff
/// that called it compatible would fail.
#[test]
fn the_generated_values_reach_the_boundaries() {
    let narrowed_pairs = [
        ("a: integer @max(5)", "a: integer @max(4)"),
        ("a?: string", "a: string"),
        ("a: string[]", "a: string[] @unique"),
        ("a: number", "a: integer"),
    ];
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    for (old, new) in narrowed_pairs {
        let a = tooldef::compile(&format!("/// T.\ntool t {{ {old} }}"))
            .unwrap()
            .module;
        let b = tooldef::compile(&format!("/// T.\ntool t {{ {new} }}"))
            .unwrap()
            .module;
        let va = Validator::new(&a, &a.tools[0]).unwrap();
        let vb = Validator::new(&b, &b.tools[0]).unwrap();
        let spec = match (old, new) {
            (_, "a: integer @max(4)") => T::Int {
                min: None,
                max: Some(5),
                exclusive_min: None,
                multiple_of: None,
            },
            (_, "a: string") => T::Str {
                min: None,
                max: None,
                pattern: None,
            },
            (_, "a: string[] @unique") => T::Arr {
                items: Box::new(T::Lits(vec![json!("a"), json!("b")])),
                min: None,
                max: None,
                unique: false,
            },
            _ => T::Num {
                min: None,
                max: None,
                exclusive_max: None,
            },
        };
        let required = !old.starts_with("a?");
        let strategy = object_values(&[("a", spec, required)], &Rest::Closed);
        let found = (0..2000).any(|_| {
            let v = strategy.new_tree(&mut runner).unwrap().current();
            va.validate_value(&v, Mode::Strict).is_ok()
                && vb.validate_value(&v, Mode::Strict).is_err()
        });
        assert!(found, "no generated value tells `{old}` from `{new}`");
    }
}
