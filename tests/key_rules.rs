//! Rules across an object's keys (`@exactly_one_of`, `@at_most_one_of`, `@requires`,
//! `@min_properties`, `@max_properties`): what the checker refuses, what every target emits or
//! folds, and what the validator says in both modes, on values and on text, checked against the
//! jsonschema crate on the emitted schema for every combination of keys.

use serde_json::{json, Map, Value};
use tooldef::emit::{self, Options, Target};
use tooldef::validate::{ErrorCode, Mode, Validator};

const REFUND: &str = r#"
/// Refund a payment.
@exactly_one_of(charge, payment_intent)
@requires(currency: [amount], "reason-code": amount)
tool refund {
  /// The charge to refund.
  charge?: string
  /// The payment intent to refund.
  payment_intent?: string
  /// Amount in cents.
  amount?: integer
  /// Currency of the amount.
  currency?: string
  /// Why.
  "reason-code"?: string
  /// Labels, at most three.
  labels?: map<string> @min_properties(1) @max_properties(3)
  /// How to notify.
  notify?: Notify
}

/// Where a notice goes: an email, a phone, or neither.
@at_most_one_of(email, phone, fax)
type Notify {
  email?: string
  phone?: string
  fax?: string
}
"#;

fn validator(source: &str, tool: &str) -> Validator {
    let compiled = tooldef::compile(source).expect("compiles");
    let t = compiled.module.tool(tool).expect("tool");
    Validator::new(&compiled.module, t).expect("validator")
}

/// The codes and paths of the errors of `args`, or `None` when valid; the same on the value and
/// on the text.
fn errors(v: &Validator, args: &Value, mode: Mode) -> Option<Vec<(ErrorCode, String)>> {
    let list = |r: Result<_, tooldef::validate::Invalid>| {
        r.err().map(|e| {
            e.errors
                .iter()
                .map(|x| (x.code, x.path.clone()))
                .collect::<Vec<_>>()
        })
    };
    let on_value = list(v.validate_value(args, mode).map(|_| ()));
    let on_text = list(v.validate_str(&args.to_string(), mode).map(|_| ()));
    assert_eq!(on_value, on_text, "value and text disagree on {args}");
    assert_eq!(
        v.is_valid(args, mode),
        on_value.is_none(),
        "is_valid on {args}"
    );
    on_value
}

#[test]
fn the_validator_names_the_fields_of_each_broken_rule() {
    let v = validator(REFUND, "refund");
    let cases: Vec<(Value, Vec<(ErrorCode, &str)>)> = vec![
        (json!({"charge": "ch_1"}), vec![]),
        (
            json!({"payment_intent": "pi_1", "amount": 5, "currency": "eur"}),
            vec![],
        ),
        (json!({}), vec![(ErrorCode::MissingOneOf, "")]),
        (
            json!({"charge": "a", "payment_intent": "b"}),
            vec![(ErrorCode::ConflictingKeys, "")],
        ),
        (
            json!({"charge": "a", "currency": "eur"}),
            vec![(ErrorCode::MissingDependent, "/amount")],
        ),
        (
            json!({"charge": "a", "reason-code": "x"}),
            vec![(ErrorCode::MissingDependent, "/amount")],
        ),
        (
            json!({"charge": "a", "labels": {}}),
            vec![(ErrorCode::TooFewKeys, "/labels")],
        ),
        (
            json!({"charge": "a", "labels": {"a": "1", "b": "2", "c": "3", "d": "4"}}),
            vec![(ErrorCode::TooManyKeys, "/labels")],
        ),
        (
            json!({"charge": "a", "notify": {"email": "e", "phone": "p", "fax": "f"}}),
            vec![(ErrorCode::ConflictingKeys, "/notify")],
        ),
        (json!({"charge": "a", "notify": {"fax": "f"}}), vec![]),
        // Every problem at once, the rules beside the other errors.
        (
            json!({"currency": 1, "labels": {}}),
            vec![
                (ErrorCode::WrongType, "/currency"),
                (ErrorCode::TooFewKeys, "/labels"),
                (ErrorCode::MissingOneOf, ""),
                (ErrorCode::MissingDependent, "/amount"),
            ],
        ),
    ];
    for (args, want) in cases {
        let want: Vec<(ErrorCode, String)> =
            want.into_iter().map(|(c, p)| (c, p.to_string())).collect();
        let got = errors(&v, &args, Mode::Strict).unwrap_or_default();
        let mut got_sorted = got.clone();
        got_sorted.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.as_str().cmp(b.0.as_str())));
        let mut want_sorted = want.clone();
        want_sorted.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.as_str().cmp(b.0.as_str())));
        assert_eq!(got_sorted, want_sorted, "{args}");
    }
}

#[test]
fn messages_say_which_fields_and_what_to_do() {
    let v = validator(REFUND, "refund");
    let message = |args: Value| v.validate_value(&args, Mode::Strict).unwrap_err().message();
    let both = message(json!({"charge": "a", "payment_intent": "b"}));
    assert!(
        both.contains("`charge` and `payment_intent` were both given; give exactly one of `charge` or `payment_intent`"),
        "{both}"
    );
    let none = message(json!({}));
    assert!(
        none.contains("give exactly one of `charge` or `payment_intent`; none was given"),
        "{none}"
    );
    let needs = message(json!({"charge": "a", "currency": "eur"}));
    assert!(
        needs.contains("missing field `amount` of type `integer`, required when `currency` is given: Amount in cents."),
        "{needs}"
    );
    let three = message(json!({"charge": "a", "notify": {"email": "e", "phone": "p", "fax": "f"}}));
    assert!(
        three.contains("`email`, `phone` and `fax` were given together; give at most one of `email`, `phone` or `fax`"),
        "{three}"
    );
    // The signature the message reprints states the rules, in the folded sentences.
    assert!(
        both.contains(r#"(Exactly one of "charge" and "payment_intent" must be given. When "currency" is given, "amount" must be given too. When "reason-code" is given, "amount" must be given too.)"#),
        "{both}"
    );
    assert!(
        both.contains(r#"where Notify = {email?: string, phone?: string, fax?: string} (At most one of "email", "phone" and "fax" may be given.)"#),
        "{both}"
    );
    let many = message(json!({"charge": "a", "labels": {"a": "1", "b": "2", "c": "3", "d": "4"}}));
    assert!(many.contains("must have at most 3 keys, got 4"), "{many}");
}

#[test]
fn lax_mode_reads_a_null_for_an_optional_field_as_absent_in_the_rules() {
    let v = validator(REFUND, "refund");
    // `payment_intent: null` is absent in lax mode, so exactly one is given; strict mode sees a
    // key given with a wrong value, as JSON Schema does.
    let args = json!({"charge": "a", "payment_intent": null});
    assert!(errors(&v, &args, Mode::Lax).is_none());
    assert_eq!(
        errors(&v, &args, Mode::Strict).map(|e| e.into_iter().map(|x| x.0).collect::<Vec<_>>()),
        Some(vec![ErrorCode::WrongType, ErrorCode::ConflictingKeys])
    );
    // A null for the key of `@requires` is absent too: nothing is asked for.
    assert!(errors(&v, &json!({"charge": "a", "currency": null}), Mode::Lax).is_none());
    // A map's values are not optional fields: `null` is a wrong value there in both modes.
    assert!(errors(
        &v,
        &json!({"charge": "a", "labels": {"a": null}}),
        Mode::Lax
    )
    .is_some());
}

/// Every subset of the keys of a few objects with rules: strict mode (on the value, the text,
/// and `is_valid`) agrees with the jsonschema crate on the `json-schema` target's schema.
#[test]
fn every_combination_of_keys_agrees_with_jsonschema() {
    let source = r#"
/// T.
@exactly_one_of(a, b, c)
@at_most_one_of(c, d)
@requires(a: [d, e], e: b)
@min_properties(2)
@max_properties(4)
tool t {
  a?: integer
  b?: integer
  c?: integer
  d?: integer
  e?: integer
  f?: integer
}

/// U.
@at_most_one_of(a, b)
@requires(c: a)
tool u {
  a?: integer
  b?: integer
  c?: integer
  ...
}
"#;
    let compiled = tooldef::compile(source).expect("compiles");
    let mut checked = 0;
    for tool in &compiled.module.tools {
        let v = Validator::new(&compiled.module, tool).expect("validator");
        let schema = emit::parameters(&compiled.module, tool);
        let reference = jsonschema::validator_for(&schema).expect("a valid schema");
        let mut keys: Vec<String> = tool.params.fields.iter().map(|f| f.name.clone()).collect();
        keys.push("other".into());
        let (mut valid, mut invalid) = (0, 0);
        for mask in 0u32..(1 << keys.len()) {
            let args: Map<String, Value> = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(i, k)| (k.clone(), json!(i)))
                .collect();
            let args = Value::Object(args);
            let expected = reference.is_valid(&args);
            let ours = errors(&v, &args, Mode::Strict).is_none();
            assert_eq!(ours, expected, "{} on {args}: schema {schema}", tool.name);
            if expected {
                valid += 1;
            } else {
                invalid += 1;
            }
            checked += 1;
        }
        assert!(
            valid > 0 && invalid > 0,
            "{}: both verdicts occur",
            tool.name
        );
    }
    assert_eq!(checked, (1 << 7) + (1 << 4));
}

#[test]
fn every_target_carries_or_folds_the_rules() {
    let compiled = tooldef::compile(REFUND).expect("compiles");
    for &target in Target::ALL {
        let result = emit::tools(&compiled.module, target, &Options::default());
        // A map is refused by the targets without open keys; the rest is what is checked.
        let Ok(emit::Emitted { json, warnings }) = result else {
            continue;
        };
        let text = json.to_string();
        let folded: Vec<&str> = warnings
            .iter()
            .filter(|d| d.code.as_str() == "folded-constraint")
            .map(|d| d.message.as_str())
            .collect();
        if text.contains("\"oneOf\"") {
            assert!(text.contains("\"dependentRequired\""), "{target:?}: {text}");
            assert!(text.contains("\"maxProperties\":3"), "{target:?}: {text}");
            assert!(
                text.contains(r#""not":{"anyOf""#)
                    || text.contains(r#""oneOf":[{"required":["email"]}"#),
                "{target:?}: {text}"
            );
            assert!(
                folded.iter().all(|m| !m.contains("across fields")),
                "{target:?}"
            );
        } else {
            assert!(
                text.contains(r#"Exactly one of \"charge\" and \"payment_intent\" must be given."#),
                "{target:?}: {text}"
            );
            assert!(
                text.contains(r#"When \"currency\" is given, \"amount\" must be given too."#),
                "{target:?}: {text}"
            );
            assert!(
                text.contains(r#"At most one of \"email\", \"phone\" and \"fax\" may be given."#),
                "{target:?}: {text}"
            );
            assert!(
                folded
                    .iter()
                    .filter(|m| m.contains("across fields"))
                    .count()
                    >= 4,
                "{target:?}: {folded:?}"
            );
        }
    }
}

#[test]
fn the_checker_refuses_rules_that_cannot_hold() {
    let cases: &[(&str, &str)] = &[
        (
            "@exactly_one_of(a, bb)\ntool t { a?: string, b?: string }",
            "`bb` is not a field of this object",
        ),
        (
            "@exactly_one_of(a, a)\ntool t { a?: string, b?: string }",
            "`a` is named twice",
        ),
        (
            "@exactly_one_of(a)\ntool t { a?: string, b?: string }",
            "takes two or more field names",
        ),
        (
            "@exactly_one_of(a, b)\ntool t { a: string, b?: string }",
            "`a` is required, so `@exactly_one_of` cannot hold",
        ),
        (
            "@at_most_one_of(a, b)\ntool t { a?: string = \"x\", b?: string }",
            "`a` has a default, so `@at_most_one_of` cannot hold",
        ),
        (
            "@requires(a: [a])\ntool t { a?: string, b?: string }",
            "`a` cannot ask for itself",
        ),
        (
            "@requires(a, b)\ntool t { a?: string, b?: string }",
            "`@requires` takes `field: [fields]`",
        ),
        (
            "@requires(a: [b])\ntool t { a?: string = \"x\", b?: string }",
            "`a` has a default, so `@requires` would not hold",
        ),
        (
            "@max_properties(1)\ntool t { a: string, b: string }",
            "`@max_properties(1)` is below the 2 required fields",
        ),
        (
            "@min_properties(3)\ntool t { a?: string, b?: string }",
            "asks for more keys than the closed object declares (2)",
        ),
        (
            "@max_properties(3)\ntool t { a?: string = \"x\", b?: string }",
            "defaults filled in after would add to them",
        ),
        (
            "@min_properties(3) @max_properties(2)\ntool t { ... }",
            "`@max_properties(2)` is below `@min_properties(3)`",
        ),
        (
            "tool t { a: string @exactly_one_of(a, b) }",
            "`@exactly_one_of` applies to objects and maps, not to a string",
        ),
        (
            "@exactly_one_of(a, b)\nenum E { a b }\ntool t { e?: E }",
            "unknown attribute `@exactly_one_of` for types and enums",
        ),
    ];
    for (body, want) in cases {
        let source = format!("/// T.\n{body}\n");
        let errors = tooldef::compile(&source).expect_err(body);
        let messages: Vec<String> = errors.errors().map(|d| d.message.clone()).collect();
        assert!(
            messages.iter().any(|m| m.contains(want)),
            "{body}: {messages:?}"
        );
    }
    // Where the rules can hold, they compile: on an inline object, a named one, a map and a
    // tool, with field names written as strings where they are not words.
    let fine = r#"
/// T.
@requires(a: ["b c", "x-y"])
tool t {
  a?: string
  "b c"?: string
  "x-y"?: string
  o?: { p?: string, q?: string } @exactly_one_of(p, q)
  m?: map<integer> @max_properties(10)
}
"#;
    tooldef::compile(fine).expect("compiles");
}

#[test]
fn fmt_keeps_the_rules_as_written() {
    let source = "/// T.\n@requires(a: [b,  \"c d\"],)\n@exactly_one_of(a,b)\ntool t {\n  a?: string\n  b?: string\n  \"c d\"?: string\n  m?: map<string> @max_properties( 3 )\n}\n";
    let formatted = tooldef::format(source).expect("formats");
    assert_eq!(
        formatted,
        "/// T.\n@requires(a: [b, \"c d\"]) @exactly_one_of(a, b)\ntool t {\n  a?: string\n  b?: string\n  \"c d\"?: string\n  m?: map<string> @max_properties(3)\n}\n"
    );
    assert_eq!(tooldef::format(&formatted).expect("formats"), formatted);
}

#[test]
fn imported_key_counts_and_dependent_required_come_back_as_rules() {
    let source = r#"
/// T.
@requires(a: [b, "c d"])
@min_properties(1)
tool t {
  a?: string
  b?: string
  "c d"?: string
  m?: map<integer> @max_properties(5)
}
"#;
    let compiled = tooldef::compile(source).expect("compiles");
    let doc = emit::tools(&compiled.module, Target::Mcp, &Options::default())
        .expect("emits")
        .json;
    let imported = tooldef::import::import_mcp(&doc, &Default::default()).expect("imports");
    let (ours, theirs) = (&compiled.module.tools[0], &imported.module.tools[0]);
    assert_eq!(
        theirs.params.rules, ours.params.rules,
        "{}",
        imported.source
    );
    assert_eq!(theirs.params.fields[3].ty, ours.params.fields[3].ty);
    assert!(
        imported.source.contains(r#"@requires(a: [b, "c d"])"#),
        "{}",
        imported.source
    );
    // A rule over a key the object does not declare has no `.tool` spelling: the checker says
    // so, at the pointer of the rule.
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}},
        "dependentRequired": {"a": ["zz"]}});
    let err = tooldef::import::import_json_schema(&schema, &Default::default()).unwrap_err();
    assert_eq!(err.issues.len(), 1, "{err}");
    assert_eq!(err.issues[0].pointer, "/dependentRequired/a");
    assert_eq!(err.issues[0].code, tooldef::Code::InvalidAttributeArgument);
    assert!(
        err.to_string()
            .contains("`zz` is not a field of this object"),
        "{err}"
    );
}

/// The group rules may be given more than once, each a rule of its own, and print back as
/// they were given (one `@requires` per key, as the model keeps them).
#[test]
fn group_rules_repeat_and_print_back() {
    let source = "/// T.\n@exactly_one_of(a, b) @exactly_one_of(c, d) @requires(a: [c], b: d)\ntool t { a?: string, b?: string, c?: string, d?: string }\n";
    let compiled = tooldef::compile(source).expect("compiles");
    let t = compiled.module.tool("t").expect("tool");
    assert_eq!(t.params.rules.groups.len(), 4);
    let v = Validator::new(&compiled.module, t).expect("validator");
    let codes = |args: Value| {
        errors(&v, &args, Mode::Strict).map(|e| e.into_iter().map(|x| x.0).collect::<Vec<_>>())
    };
    assert_eq!(codes(json!({"a": "1", "c": "2"})), None);
    assert_eq!(
        codes(json!({"a": "1"})),
        Some(vec![ErrorCode::MissingOneOf, ErrorCode::MissingDependent])
    );
    let printed = compiled.module.to_source().expect("prints");
    assert_eq!(
        tooldef::compile(&printed).expect("compiles back").module,
        compiled.module,
        "{printed}"
    );
}

/// The attributes of an item after an alias are the item's, not constraints of the alias's type,
/// when they start their lines (a constraint on the alias's own line stays the alias's).
#[test]
fn an_item_after_an_alias_keeps_its_attributes() {
    let source = "type A = string @min_length(1)\n@exactly_one_of(a, b) @read_only\n/// T.\ntool t { a?: A, b?: string }\n\ntype B = integer[]\n@at_most_one_of(x, y)\ntype C { x?: B, y?: B }\n";
    let compiled = tooldef::compile(source).expect("compiles");
    let m = &compiled.module;
    let t = m.tool("t").expect("tool");
    assert_eq!(t.params.rules.groups.len(), 1);
    assert_eq!(t.hints.read_only, Some(true));
    let a = m.types.iter().find(|n| n.name == "A").expect("A");
    assert!(
        matches!(&a.ty, tooldef::model::Ty::String(r) if r.min_length.as_ref().map(|n| n.value) == Some(1))
    );
    let c = m.types.iter().find(|n| n.name == "C").expect("C");
    assert!(matches!(&c.ty, tooldef::model::Ty::Object(o) if o.rules.groups.len() == 1));
    // And `fmt` keeps them where they are.
    let formatted = tooldef::format(source).expect("formats");
    assert_eq!(
        tooldef::compile(&formatted).expect("compiles").module,
        compiled.module
    );
}

/// A nullable object keeps its rules for objects only: `null` is not judged by them.
#[test]
fn a_nullable_object_with_rules_takes_null_in_the_emitted_schema() {
    let source = r#"
/// T.
tool t {
  /// One of two, or nothing.
  pick?: { a?: integer, b?: integer } @exactly_one_of(a, b) | null
  /// Not both.
  either?: { a?: integer, b?: integer } @at_most_one_of(a, b) | null
}
"#;
    let compiled = tooldef::compile(source).expect("compiles");
    let tool = compiled.module.tool("t").expect("tool");
    let v = Validator::new(&compiled.module, tool).expect("validator");
    let schema = emit::parameters(&compiled.module, tool);
    let reference = jsonschema::validator_for(&schema).expect("a valid schema");
    for (args, valid) in [
        (json!({"pick": null, "either": null}), true),
        (json!({"pick": {"a": 1}, "either": {}}), true),
        (json!({"pick": {}}), false),
        (json!({"either": {"a": 1, "b": 2}}), false),
    ] {
        assert_eq!(
            reference.is_valid(&args),
            valid,
            "jsonschema on {args}: {schema}"
        );
        assert_eq!(
            errors(&v, &args, Mode::Strict).is_none(),
            valid,
            "tooldef on {args}"
        );
    }
}
