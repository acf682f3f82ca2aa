//! Properties of the provider targets over generated tools:
//!
//! - every output follows its target's documented rules (`target_rules`);
//! - arguments the validator accepts, as each target would send them (optional fields as `null`
//!   for strict targets), validate against that target's emitted schema with the jsonschema
//!   crate: our schemas never reject what we accept;
//! - for the json-schema target the reverse holds too: on arbitrary (mutated) arguments, the
//!   validator and the emitted schema agree.
//!
//! Tools and arguments are generated together, the arguments valid by construction;
//! [`accepted_by_validator`] is where tooldef's own validator (strict and lax) confirms them.

mod target_rules;

use proptest::prelude::*;
use serde_json::{json, Map, Number, Value};
use tooldef::emit::{self, Options, Target};
use tooldef::model::*;
use tooldef::Span;

fn spanned<T>(v: T) -> Option<Spanned<T>> {
    Some(Spanned::new(v, Span::default()))
}

/// A generated type, with arguments for it: each pair is (the value a client sends without
/// strict mode, the same value as a strict-mode client sends it, optional fields as null).
#[derive(Clone, Debug)]
struct Gen {
    ty: Ty,
    values: Vec<(Value, Value)>,
}

fn gen(ty: Ty, values: Vec<(Value, Value)>) -> Gen {
    Gen { ty, values }
}

fn same(values: Vec<Value>) -> Vec<(Value, Value)> {
    values.into_iter().map(|v| (v.clone(), v)).collect()
}

fn integer() -> impl Strategy<Value = Gen> {
    (
        -40i64..40,
        0i64..6,
        0i64..6,
        any::<[bool; 4]>(),
        prop::sample::select(vec![1i64, 2, 5]),
    )
        .prop_map(|(k, below, above, on, m)| {
            let v = k * m;
            let rules = NumberRules {
                minimum: on[0].then(|| spanned(Number::from(v - below))).flatten(),
                exclusive_minimum: on[1]
                    .then(|| spanned(Number::from(v - below - 1)))
                    .flatten(),
                maximum: on[2].then(|| spanned(Number::from(v + above))).flatten(),
                exclusive_maximum: on[3]
                    .then(|| spanned(Number::from(v + above + 1)))
                    .flatten(),
                multiple_of: (m > 1).then(|| spanned(Number::from(m))).flatten(),
            };
            let values = (v - below..=v + above)
                .filter(|x| x % m == 0)
                .map(Value::from)
                .collect();
            gen(Ty::Integer(rules), same(values))
        })
}

fn number() -> impl Strategy<Value = Gen> {
    (-20i64..20, 1i64..8, any::<[bool; 4]>(), any::<bool>()).prop_map(|(lo, width, on, halves)| {
        let (lo, hi) = (lo as f64, (lo + width) as f64);
        let num = |f: f64| Number::from_f64(f).map(|n| Spanned::new(n, Span::default()));
        let rules = NumberRules {
            minimum: if on[0] { num(lo) } else { None },
            exclusive_minimum: if on[1] { num(lo - 0.5) } else { None },
            maximum: if on[2] { num(hi) } else { None },
            exclusive_maximum: if on[3] { num(hi + 0.5) } else { None },
            multiple_of: if halves { num(0.5) } else { None },
        };
        let values = [lo, lo + 0.5, (lo + hi) / 2.0, hi]
            .into_iter()
            .filter(|f| !halves || (f * 2.0).fract() == 0.0)
            .filter_map(|f| Number::from_f64(f).map(Value::Number))
            .collect();
        gen(Ty::Number(rules), same(values))
    })
}

const FORMATS: &[(Format, &str)] = &[
    (Format::Date, "2024-02-29"),
    (Format::DateTime, "2024-01-31T10:00:00Z"),
    (Format::Time, "10:00:00Z"),
    (Format::Duration, "P3DT4H"),
    (Format::Email, "ada@example.com"),
    (Format::Hostname, "example.com"),
    (Format::Ipv4, "192.168.0.1"),
    (Format::Ipv6, "::1"),
    (Format::Uri, "https://example.com/a?b=c"),
    (Format::Uuid, "123e4567-e89b-12d3-a456-426614174000"),
];

fn string() -> impl Strategy<Value = Gen> {
    prop_oneof![
        // Lengths, with or without a pattern.
        (
            0u64..4,
            0u64..6,
            any::<bool>(),
            any::<bool>(),
            "[a-zé😀 ]{0,12}"
        )
            .prop_map(|(min, extra, bounded, patterned, text)| {
                // `^[a-z]+$` needs at least one character.
                let min = if patterned { min.max(1) } else { min };
                let rules = StringRules {
                    min_length: (min > 0).then(|| spanned(min)).flatten(),
                    max_length: bounded.then(|| spanned(min + extra)).flatten(),
                    pattern: patterned.then(|| spanned("^[a-z]+$".to_string())).flatten(),
                    format: None,
                };
                let fill = if patterned {
                    "abcdefghij".to_string()
                } else {
                    text + "xyzwvutsrq"
                };
                let value: String = fill
                    .chars()
                    .take(usize::try_from(min).unwrap_or(0))
                    .collect();
                gen(Ty::String(rules), same(vec![Value::String(value)]))
            }),
        // A format, with a value in it.
        prop::sample::select(FORMATS).prop_map(|(f, v)| {
            let rules = StringRules {
                format: spanned(f),
                ..StringRules::default()
            };
            gen(Ty::String(rules), same(vec![json!(v)]))
        }),
    ]
}

fn enumeration() -> impl Strategy<Value = Gen> {
    (
        prop::collection::btree_set(0i64..6, 1..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(ints, strings, documented)| {
            let members: Vec<EnumMember> = ints
                .into_iter()
                .map(|i| EnumMember {
                    value: if strings {
                        json!(format!("v{i}"))
                    } else {
                        json!(i)
                    },
                    description: documented.then(|| format!("value {i}")),
                })
                .collect();
            let values = members.iter().map(|m| m.value.clone()).collect();
            gen(Ty::Enum(members), same(values))
        })
}

fn leaf() -> impl Strategy<Value = Gen> {
    prop_oneof![
        Just(gen(Ty::Boolean, same(vec![json!(true), json!(false)]))),
        integer(),
        number(),
        string(),
        enumeration(),
        prop::sample::select(vec![json!("on"), json!(3), json!(true)])
            .prop_map(|v| gen(Ty::Const(v.clone()), same(vec![v]))),
    ]
}

const NAMES: &[&str] = &["a", "b", "city", "first_name", "n2"];

fn object(fields: Vec<(Gen, bool, bool)>, open: bool) -> Gen {
    let mut model_fields = Vec::new();
    let mut plain = Map::new();
    let mut strict = Map::new();
    let mut alt_plain = Map::new();
    let mut alt_strict = Map::new();
    for (i, (g, required, present)) in fields.into_iter().enumerate() {
        let name = NAMES[i % NAMES.len()].to_string();
        let name = if i >= NAMES.len() {
            format!("{name}{i}")
        } else {
            name
        };
        let first = g.values.first().cloned();
        let last = g.values.last().cloned();
        if let (Some((p, s)), Some((lp, ls))) = (first, last) {
            if required || present {
                plain.insert(name.clone(), p);
                strict.insert(name.clone(), s);
            } else {
                strict.insert(name.clone(), Value::Null);
            }
            if required {
                alt_plain.insert(name.clone(), lp);
                alt_strict.insert(name.clone(), ls);
            } else {
                alt_strict.insert(name.clone(), Value::Null);
            }
        }
        model_fields.push(Field {
            name,
            description: None,
            required,
            ty: g.ty,
            default: None,
            examples: Vec::new(),
            deprecated: false,
            span: Span::default(),
        });
    }
    if open {
        plain.insert("other_key".into(), json!([1, "x"]));
    }
    let additional = if open {
        Additional::Open
    } else {
        Additional::Closed
    };
    let ty = Ty::Object(Box::new(ObjectTy {
        fields: model_fields,
        additional,
        rules: KeyRules::default(),
    }));
    let values = vec![
        (Value::Object(plain), Value::Object(strict)),
        (Value::Object(alt_plain), Value::Object(alt_strict)),
    ];
    gen(ty, values)
}

fn ty() -> impl Strategy<Value = Gen> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            // Arrays, sometimes unique.
            (inner.clone(), 0u64..3, any::<bool>()).prop_map(|(g, max_extra, unique)| {
                let items: Vec<(Value, Value)> = g.values.clone();
                let mut plain = Vec::new();
                let mut strict = Vec::new();
                for (p, s) in items
                    .iter()
                    .take(usize::try_from(max_extra).unwrap_or(0) + 1)
                {
                    let equal = |list: &[Value], x: &Value| {
                        list.iter().any(|y| tooldef::validate::json_equal(x, y))
                    };
                    if unique && (equal(&plain, p) || equal(&strict, s)) {
                        continue;
                    }
                    plain.push(p.clone());
                    strict.push(s.clone());
                }
                let a = ArrayTy {
                    items: g.ty,
                    min_items: None,
                    max_items: spanned(max_extra + 1),
                    unique: unique.then(|| spanned(true)).flatten(),
                };
                gen(
                    Ty::Array(Box::new(a)),
                    vec![
                        (Value::Array(plain), Value::Array(strict)),
                        (json!([]), json!([])),
                    ],
                )
            }),
            // Objects with required and optional fields.
            (
                prop::collection::vec((inner.clone(), any::<bool>(), any::<bool>()), 1..4),
                prop::bool::weighted(0.15)
            )
                .prop_map(|(fields, open)| object(fields, open)),
            // Maps.
            inner.clone().prop_map(|g| {
                let values = g
                    .values
                    .iter()
                    .map(|(p, s)| (json!({"k1": p, "k 2": p}), json!({"k1": s, "k 2": s})))
                    .collect();
                let o = ObjectTy {
                    fields: Vec::new(),
                    additional: Additional::Schema(g.ty),
                    rules: KeyRules::default(),
                };
                gen(Ty::Object(Box::new(o)), values)
            }),
            // Nullable.
            inner.clone().prop_map(|g| {
                let mut values = g.values.clone();
                values.push((Value::Null, Value::Null));
                gen(Ty::Nullable(Box::new(g.ty)), values)
            }),
            // Unions of two types.
            (inner.clone(), inner).prop_map(|(a, b)| {
                let mut values = a.values.clone();
                values.extend(b.values.clone());
                gen(Ty::AnyOf(vec![a.ty, b.ty]), values)
            }),
        ]
    })
}

/// A tool over generated parameters, with arguments for it.
fn tool() -> impl Strategy<Value = (Module, Vec<(Value, Value)>)> {
    (
        prop::collection::vec((ty(), any::<bool>(), any::<bool>()), 0..5),
        any::<bool>(),
    )
        .prop_map(|(fields, hinted)| {
            let params = object(fields, false);
            let Ty::Object(o) = params.ty else {
                unreachable!("object() builds an object")
            };
            let tool = Tool {
                hints: Hints {
                    read_only: hinted.then_some(true),
                    ..Hints::default()
                },
                ..Tool::new("generated_tool", "A generated tool.", *o)
            };
            (
                Module {
                    tools: vec![tool],
                    types: Vec::new(),
                },
                params.values,
            )
        })
}

/// Whether tooldef's own validator accepts the arguments in `mode`; in lax mode, its normalized
/// output must pass strict mode too.
fn accepted_by_validator(module: &Module, tool: &Tool, args: &Value, mode: Mode) -> bool {
    let Ok(validator) = tooldef::validate::Validator::new(module, tool) else {
        return false;
    };
    match validator.validate_value(args, mode) {
        Ok(done) => validator
            .validate_value(&done.arguments, Mode::Strict)
            .is_ok(),
        Err(_) => false,
    }
}

/// The parameter schema inside a target's output for one tool.
fn schema_of(target: Target, out: &Value) -> Option<Value> {
    Some(match target {
        Target::JsonSchema => out[0]["parameters"].clone(),
        Target::OpenAi | Target::OpenAiStrict => out[0]["function"]["parameters"].clone(),
        Target::OpenAiResponses => out[0]["parameters"].clone(),
        Target::Anthropic | Target::AnthropicStrict => out[0]["input_schema"].clone(),
        Target::Mcp => out["tools"][0]["inputSchema"].clone(),
        Target::Gemini => out[0]["functionDeclarations"][0]
            .get("parametersJsonSchema")?
            .clone(),
        Target::GeminiOpenApi => {
            gemini_to_json_schema(out[0]["functionDeclarations"][0].get("parameters")?)
        }
    })
}

/// Reads a Gemini schema as the JSON Schema it stands for: lower-case types, `nullable` as a
/// `null` alternative, `example` as an annotation.
fn gemini_to_json_schema(s: &Value) -> Value {
    let Value::Object(m) = s else {
        return s.clone();
    };
    let mut out = Map::new();
    for (k, v) in m {
        let v = match k.as_str() {
            "type" => json!(v.as_str().unwrap_or_default().to_ascii_lowercase()),
            "properties" => Value::Object(
                v.as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, p)| (k.clone(), gemini_to_json_schema(p)))
                    .collect(),
            ),
            "items" => gemini_to_json_schema(v),
            "anyOf" => Value::Array(
                v.as_array()
                    .into_iter()
                    .flatten()
                    .map(gemini_to_json_schema)
                    .collect(),
            ),
            "nullable" | "example" => continue,
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    if m.get("nullable") == Some(&Value::Bool(true)) {
        return json!({"anyOf": [Value::Object(out), {"type": "null"}]});
    }
    Value::Object(out)
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("emitted schema does not compile: {e}\n{schema}"))
}

/// Replaces the `k`-th node (pre-order) of a value with `with`.
fn mutate(v: &mut Value, k: &mut usize, with: &Value) -> bool {
    if *k == 0 {
        *v = with.clone();
        return true;
    }
    *k -= 1;
    match v {
        Value::Array(items) => items.iter_mut().any(|x| mutate(x, k, with)),
        Value::Object(m) => m.values_mut().any(|x| mutate(x, k, with)),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn outputs_follow_their_rules_and_accept_valid_arguments((module, args) in tool()) {
        let tool = &module.tools[0];
        for (plain, _) in &args {
            prop_assert!(accepted_by_validator(&module, tool, plain, Mode::Lax), "lax validator rejects generated args {plain}");
            prop_assert!(accepted_by_validator(&module, tool, plain, Mode::Strict), "strict validator rejects generated args {plain}");
        }
        for &target in Target::ALL {
            let Ok(e) = emit::tools(&module, target, &Options::default()) else { continue };
            let problems = target_rules::check(target, &e.json);
            prop_assert!(problems.is_empty(), "{}: {problems:#?}\n{}", target.as_str(), e.json);
            let Some(schema) = schema_of(target, &e.json) else {
                prop_assert!(tool.params.fields.is_empty());
                continue;
            };
            let strict = match target {
                Target::OpenAiStrict => true,
                Target::OpenAiResponses => e.json[0]["strict"] == true,
                _ => false,
            };
            // Lowered constructs travel in another shape than these arguments: their round
            // trip is tests/target_reading.rs's.
            if e.warnings.iter().any(|w| w.code == tooldef::Code::LoweredConstruct) {
                continue;
            }
            let v = validator(&schema);
            for (plain, strict_args) in &args {
                let sent = if strict { strict_args } else { plain };
                let errors: Vec<String> = v.iter_errors(sent).map(|e| e.to_string()).collect();
                prop_assert!(errors.is_empty(), "{} rejects {sent}: {errors:?}\nschema: {schema}", target.as_str());
            }
        }
    }

    #[test]
    fn validator_and_json_schema_agree_on_any_arguments(
        (module, args) in tool(),
        k in 0usize..12,
        with in prop::sample::select(vec![json!(null), json!(0), json!(-7), json!(2.5), json!("x"), json!(true), json!([]), json!({}), json!({"zz": 1})]),
    ) {
        let tool = &module.tools[0];
        let e = emit::tools(&module, Target::JsonSchema, &Options::default()).expect("json-schema always compiles");
        let schema = e.json[0]["parameters"].clone();
        let v = jsonschema::options().with_draft(jsonschema::Draft::Draft202012).should_validate_formats(true).build(&schema).expect("schema compiles");
        for (plain, _) in &args {
            let mut mutated = plain.clone();
            let mut at = k;
            mutate(&mut mutated, &mut at, &with);
            let ours = accepted_by_validator(&module, tool, &mutated, Mode::Strict);
            prop_assert_eq!(ours, v.is_valid(&mutated), "disagree on {} for {}", mutated, schema);
        }
    }
}
