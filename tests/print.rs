//! Printer and formatter tests.

#[test]
fn examples_round_trip_through_the_model_printer() {
    for entry in std::fs::read_dir("examples").unwrap() {
        let path = entry.unwrap().path();
        let source = std::fs::read_to_string(&path).unwrap();
        let m = tooldef::compile(&source).unwrap().module;
        let printed = m.to_source().unwrap();
        let again = tooldef::compile(&printed)
            .unwrap_or_else(|e| panic!("{}: {e:?}\n{printed}", path.display()))
            .module;
        assert_eq!(again, m, "{}:\n{printed}", path.display());
        let formatted = tooldef::format(&source).unwrap();
        if path.ends_with("weather.tool") {
            println!("{formatted}");
        }
        assert_eq!(
            tooldef::format(&formatted).unwrap(),
            formatted,
            "{}",
            path.display()
        );
        assert_eq!(tooldef::compile(&formatted).unwrap().module, m);
    }
}

// ---------------------------------------------------------------------------------------------
// Properties over generated models

use indexmap::IndexMap;
use proptest::prelude::*;
use serde_json::{json, Number, Value};
use tooldef::model::*;
use tooldef::Span;

fn sp<T>(v: T) -> Option<Spanned<T>> {
    Some(Spanned::new(v, Span::default()))
}

/// A description as doc comments hold it: trimmed lines, no blank text.
fn description() -> impl Strategy<Value = String> {
    prop::collection::vec("[A-Za-z0-9\"\\\\{}@|/ .,:;`'(){}-]{0,20}[A-Za-z.]", 1..3)
        .prop_map(|lines| {
            lines
                .iter()
                .map(|l| l.trim_end().to_string())
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_string()
        })
        .prop_filter("not blank", |s| !s.is_empty())
}

fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_][a-z0-9_]{0,6}",
        Just("first-name".to_string()),
        Just("a b".to_string()),
        Just("ünï\\\"q".to_string()),
        Just("type".to_string()),
        Just("123".to_string()),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z\"\\\\ ]{0,5}".prop_map(Value::String),
        (-1000i64..1000).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        (-100i32..100).prop_map(|x| json!(f64::from(x) / 4.0 + 0.5)),
    ]
}

fn number_rules(integer: bool) -> impl Strategy<Value = NumberRules> {
    (any::<[bool; 5]>(), -50i64..50, 0i64..20).prop_map(move |(on, lo, span)| {
        let n = |x: i64| {
            if integer {
                Number::from(x)
            } else {
                Number::from_f64(x as f64 + 0.25).unwrap_or(Number::from(x))
            }
        };
        NumberRules {
            minimum: on[0].then(|| sp(n(lo))).flatten(),
            maximum: on[1].then(|| sp(n(lo + span))).flatten(),
            exclusive_minimum: on[2].then(|| sp(n(lo - 1))).flatten(),
            exclusive_maximum: on[3].then(|| sp(n(lo + span + 1))).flatten(),
            multiple_of: on[4].then(|| sp(Number::from(span + 1))).flatten(),
        }
    })
}

fn leaf() -> impl Strategy<Value = Ty> {
    prop_oneof![
        Just(Ty::Any),
        Just(Ty::Boolean),
        number_rules(true).prop_map(Ty::Integer),
        number_rules(false).prop_map(Ty::Number),
        (
            prop::option::of(0u64..5),
            prop::option::of(5u64..9),
            prop::option::of(prop::sample::select(vec![
                "^[a-z]+$",
                "\\d{3}",
                "a\"b\\\\c",
                "x|y"
            ])),
            prop::option::of(prop::sample::select(Format::ALL.to_vec())),
        )
            .prop_map(|(min, max, pattern, format)| Ty::String(StringRules {
                min_length: min.and_then(sp),
                max_length: max.and_then(sp),
                pattern: pattern.and_then(|p| sp(p.to_string())),
                format: format.and_then(sp),
            })),
        scalar().prop_map(Ty::Const),
        Just(Ty::Never),
        prop::collection::vec(scalar(), 0..3).prop_map(|v| Ty::Const(Value::Array(v))),
        prop::collection::vec(scalar(), 2..5).prop_filter_map("distinct", |vs| {
            let mut out: Vec<Value> = Vec::new();
            for v in vs {
                if !out.iter().any(|x| tooldef::validate::json_equal(x, &v)) {
                    out.push(v);
                }
            }
            (out.len() >= 2).then(|| {
                Ty::Enum(
                    out.into_iter()
                        .map(|value| EnumMember {
                            value,
                            description: None,
                        })
                        .collect(),
                )
            })
        }),
    ]
}

fn field(ty: Ty, name: String, required: bool, doc: Option<String>, flags: [bool; 3]) -> Field {
    // Defaults and examples only where a value is known to fit.
    let plain_string = matches!(&ty, Ty::String(r) if *r == StringRules::default());
    let candidate = json!("x");
    let default =
        (!required && flags[0] && (plain_string || ty == Ty::Any)).then(|| candidate.clone());
    let examples = if flags[1] && matches!(ty, Ty::Boolean | Ty::Any) {
        vec![json!(true)]
    } else {
        Vec::new()
    };
    Field {
        name,
        description: doc,
        required,
        ty,
        default,
        examples,
        deprecated: flags[2],
        span: Span::default(),
    }
}

fn object(inner: BoxedStrategy<Ty>) -> impl Strategy<Value = ObjectTy> {
    (
        prop::collection::vec(
            (
                inner.clone(),
                field_name(),
                any::<bool>(),
                prop::option::of(description()),
                any::<[bool; 3]>(),
            ),
            0..4,
        ),
        0u8..3,
        inner,
        0u8..4,
    )
        .prop_map(|(fields, open, rest, rule)| {
            let mut out: Vec<Field> = Vec::new();
            for (ty, name, required, doc, flags) in fields {
                if out.iter().all(|f| f.name != name) {
                    out.push(field(ty, name, required, doc, flags));
                }
            }
            let rules = key_rules(&out, rule);
            ObjectTy {
                fields: out,
                additional: match open {
                    0 => Additional::Closed,
                    1 => Additional::Open,
                    _ => Additional::Schema(rest),
                },
                rules,
            }
        })
}

/// Rules across the keys of `fields`, of kind `rule`, where the checker allows them (optional
/// fields without defaults; `@requires` keyed by one).
fn key_rules(fields: &[Field], rule: u8) -> KeyRules {
    let free: Vec<String> = fields
        .iter()
        .filter(|f| !f.required && f.default.is_none())
        .map(|f| f.name.clone())
        .collect();
    let at = Span::default();
    let mut rules = KeyRules::default();
    match (rule, free.as_slice()) {
        (1, [a, b, ..]) => rules.groups.push(Spanned::new(
            KeyGroup::ExactlyOneOf(vec![a.clone(), b.clone()]),
            at,
        )),
        (2, [a, b, ..]) => rules.groups.push(Spanned::new(
            KeyGroup::AtMostOneOf(vec![a.clone(), b.clone()]),
            at,
        )),
        (3, [a, b, ..]) => {
            rules.groups.push(Spanned::new(
                KeyGroup::Requires {
                    key: a.clone(),
                    needs: vec![b.clone()],
                },
                at,
            ));
            rules.min_properties = Some(Spanned::new(0, at));
        }
        _ => {}
    }
    rules
}

/// Whether the checker would write `ty` this way (its unions are normalised).
fn normal(ty: &Ty) -> bool {
    match ty {
        Ty::Nullable(inner) => {
            !matches!(**inner, Ty::Any | Ty::Null | Ty::Nullable(_) | Ty::Const(_)) && normal(inner)
        }
        Ty::AnyOf(ms) => {
            ms.len() >= 2
                && !ms.iter().all(|m| matches!(m, Ty::Const(_)))
                && ms.iter().all(|m| {
                    !matches!(m, Ty::Any | Ty::Null | Ty::Nullable(_) | Ty::AnyOf(_)) && normal(m)
                })
                && ms.iter().enumerate().all(|(i, m)| !ms[..i].contains(m))
        }
        Ty::Array(a) => normal(&a.items),
        Ty::Tuple(t) => {
            // A closed tuple of required literals is written as one literal array.
            let literal = t.rest == Additional::Closed
                && t.required == t.items.len()
                && t.items.iter().all(|i| matches!(i, Ty::Const(_) | Ty::Null));
            !literal
                && t.items.iter().all(normal)
                && match &t.rest {
                    Additional::Schema(r) => normal(r),
                    _ => true,
                }
        }
        Ty::Object(o) => {
            o.fields.iter().all(|f| normal(&f.ty))
                && match &o.additional {
                    Additional::Schema(t) => normal(t),
                    _ => true,
                }
        }
        _ => true,
    }
}

fn ty(refs: usize) -> BoxedStrategy<Ty> {
    let base = if refs > 0 {
        prop_oneof![4 => leaf(), 1 => (0..refs).prop_map(|i| Ty::Ref(TypeId(i)))].boxed()
    } else {
        leaf().boxed()
    };
    base.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::option::of(0u64..3),
                prop::option::of(3u64..6),
                prop::option::of(any::<bool>())
            )
                .prop_map(|(items, min, max, unique)| Ty::Array(Box::new(ArrayTy {
                    items,
                    min_items: min.and_then(sp),
                    max_items: max.and_then(sp),
                    unique: unique.and_then(sp),
                }))),
            object(inner.clone()).prop_map(|o| Ty::Object(Box::new(o))),
            (
                prop::collection::vec(inner.clone(), 0..3),
                0usize..4,
                0u8..3,
                inner.clone(),
                prop::option::of(0u64..3),
                prop::option::of(any::<bool>())
            )
                .prop_map(|(items, required, rest, rest_ty, max, unique)| {
                    let required = required.min(items.len());
                    Ty::Tuple(Box::new(TupleTy {
                        required,
                        rest: match rest {
                            0 => Additional::Closed,
                            1 => Additional::Open,
                            _ => Additional::Schema(rest_ty),
                        },
                        min_items: None,
                        max_items: max.and_then(|m| sp(m + required as u64)),
                        unique: unique.and_then(sp),
                        items,
                    }))
                }),
            inner.clone().prop_map(|t| Ty::Nullable(Box::new(t))),
            prop::collection::vec(inner, 2..4).prop_map(Ty::AnyOf),
        ]
    })
    .prop_filter("normalised", normal)
    .boxed()
}

fn named(i: usize) -> impl Strategy<Value = NamedType> {
    (
        0u8..3,
        ty(i),
        object(ty(i)),
        prop::collection::vec(
            (
                prop_oneof![
                    "[a-z][a-z0-9_]{0,5}".prop_map(Value::String),
                    (-9i64..9).prop_map(Value::from),
                    Just(json!("two words"))
                ],
                prop::option::of(description()),
            ),
            2..5,
        ),
        prop::option::of(description()),
        any::<bool>(),
    )
        .prop_filter_map(
            "a named type",
            move |(kind, alias, obj, members, doc, deprecated)| {
                let name = format!("T{i}");
                let (kind, ty) = match kind {
                    0 => (NamedKind::Object, Ty::Object(Box::new(obj))),
                    1 => {
                        let mut out: Vec<EnumMember> = Vec::new();
                        for (value, description) in members {
                            if !out
                                .iter()
                                .any(|m| tooldef::validate::json_equal(&m.value, &value))
                            {
                                out.push(EnumMember { value, description });
                            }
                        }
                        (NamedKind::Enum, Ty::Enum(out))
                    }
                    _ => {
                        if matches!(&alias, Ty::Object(o) if !o.is_map()) {
                            return None;
                        }
                        (NamedKind::Alias, alias)
                    }
                };
                Some(NamedType {
                    name,
                    kind,
                    description: doc,
                    ty,
                    recursive: false,
                    deprecated,
                    span: Span::default(),
                })
            },
        )
}

fn module() -> impl Strategy<Value = Module> {
    (0usize..3)
        .prop_flat_map(|n| {
            let types: Vec<BoxedStrategy<NamedType>> = (0..n).map(|i| named(i).boxed()).collect();
            (types, prop::collection::vec(tool(n), 1..3))
        })
        .prop_map(|(types, tools)| {
            let mut out: Vec<Tool> = Vec::new();
            for t in tools {
                if out.iter().all(|x| x.name != t.name) {
                    out.push(t);
                }
            }
            Module { tools: out, types }
        })
}

fn tool(refs: usize) -> impl Strategy<Value = Tool> {
    (
        prop_oneof!["[a-z_][a-z0-9_]{0,8}", "[a-z][a-z0-9]{0,4}[.-][a-z]{1,4}"],
        description(),
        prop::option::of("[A-Za-z \"]{1,10}"),
        object(ty(refs)),
        prop::option::of(ty(refs)),
        any::<[Option<bool>; 4]>(),
        any::<[bool; 3]>(),
        prop::option::of(prop_oneof![
            Just("admin".to_string()),
            Just("team-a".to_string()),
            Just("with space".to_string())
        ]),
        (0u8..3, 0u8..3, 0u32..5, 0u8..3, 0u8..8),
        prop::collection::vec(("[a-z_][a-z0-9_]{0,5}", scalar()), 0..3),
    )
        .prop_map(
            |(
                name,
                description,
                title,
                params,
                output,
                hints,
                flags,
                scope,
                (mode, on_error, times, wait, base),
                meta,
            )| {
                let mut hints = Hints {
                    read_only: hints[0],
                    destructive: hints[1],
                    idempotent: hints[2],
                    open_world: hints[3],
                };
                if hints.read_only == Some(true) && hints.destructive == Some(true) {
                    hints.destructive = Some(false);
                }
                let meta: IndexMap<String, Value> = meta.into_iter().collect();
                Tool {
                    name,
                    description,
                    title,
                    params,
                    output,
                    hints,
                    requires_approval: flags[0],
                    scope,
                    mode: [None, Some(Mode::Strict), Some(Mode::Lax)][mode as usize],
                    on_error: [None, Some(OnError::Raise), Some(OnError::Suppress)]
                        [on_error as usize],
                    retry: (times > 0)
                        .then(|| Retry {
                            times,
                            on: Vec::new(),
                            wait: [
                                Wait::Fixed(f64::from(base) / 2.0),
                                Wait::Linear,
                                Wait::Exponential,
                            ][wait as usize],
                            base: f64::from(base) * 0.75,
                        })
                        .into_iter()
                        .collect(),
                    on_invalid: [None, Some(OnInvalid::Reply), Some(OnInvalid::Raise)]
                        [on_error as usize],
                    cache: None,
                    deprecated: flags[1],
                    formats: if flags[2] {
                        Formats::Annotate
                    } else {
                        Formats::Assert
                    },
                    // `@provider` rides on the generated metadata: a target whose name needs
                    // quotes, holding it as its fields.
                    provider: if meta.is_empty() {
                        IndexMap::new()
                    } else {
                        IndexMap::from([(
                            "openai-strict".to_string(),
                            meta.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                        )])
                    },
                    meta,
                    span: Span::default(),
                }
            },
        )
}

/// Inserts `//` comments: own-line ones before lines that do not follow a doc line, trailing
/// ones after lines that are not doc lines.
fn with_comments(source: &str, picks: &[(usize, bool)]) -> (String, Vec<String>) {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = String::new();
    let mut texts = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let doc = |l: &str| l.trim_start().starts_with("///");
        let own = picks
            .iter()
            .any(|(p, t)| *p % (lines.len() + 1) == i && !*t);
        let after_doc = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| doc(l));
        if own && !after_doc {
            let text = format!("// own {i} \"quoted // not a comment\"");
            out.push_str(&text);
            out.push('\n');
            texts.push(text);
        }
        out.push_str(line);
        let trail = picks.iter().any(|(p, t)| *p % (lines.len() + 1) == i && *t);
        if trail && !doc(line) && !line.trim().is_empty() {
            let text = format!("// trailing {i}");
            out.push(' ');
            out.push_str(&text);
            texts.push(text);
        }
        out.push('\n');
    }
    (out, texts)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn printed_models_compile_back_to_themselves(m in module()) {
        let source = m.to_source().unwrap();
        let compiled = tooldef::compile(&source);
        prop_assert!(compiled.is_ok(), "{source}\n{:?}", compiled.err());
        prop_assert_eq!(&compiled.unwrap().module, &m, "{}", source);
        // The printed source is already formatted.
        prop_assert_eq!(tooldef::format(&source).unwrap(), source);
    }

    #[test]
    fn formatting_is_idempotent_keeps_meaning_and_comments(
        m in module(),
        picks in prop::collection::vec((0usize..200, any::<bool>()), 0..8),
        squash in any::<bool>(),
    ) {
        let printed = m.to_source().unwrap();
        // A messier layout of the same source: indentation removed, blank lines added.
        let messy: String = if squash {
            printed.lines().map(|l| format!("{}\n\n", l.trim_start())).collect()
        } else {
            printed.clone()
        };
        let (source, texts) = with_comments(&messy, &picks);
        let once = tooldef::format(&source);
        prop_assert!(once.is_ok(), "{:?} from\n{}", once.err(), source);
        let once = once.unwrap();
        let twice = tooldef::format(&once).unwrap();
        prop_assert_eq!(&twice, &once, "not idempotent; from\n{}", source);
        prop_assert_eq!(&tooldef::compile(&once).unwrap().module, &m);
        for t in &texts {
            prop_assert!(once.contains(t.as_str()), "lost comment {t:?}:\n{source}\n---\n{once}");
        }
        for t in &texts {
            // Each comment ends its line, which tells `// trailing 1` from `// trailing 10`.
            let line_end = format!("{t}\n");
            prop_assert_eq!(once.matches(&line_end).count(), 1, "comment {:?} not kept once", t);
        }
    }
}

#[test]
fn comments_inside_strings_are_not_comments() {
    let src = "/// A.\ntool t {\n  a?: string = \"http://x\" // real\n}\n";
    assert_eq!(tooldef::format(src).unwrap(), src);
    // Read as a comment, `//x"` would have moved to the end of its line.
    let src = "/// A.\ntool t {\n  a?: string = \"http://x\"\n  b?: string = \"//y\" }\n";
    assert_eq!(
        tooldef::format(src).unwrap(),
        "/// A.\ntool t {\n  a?: string = \"http://x\"\n  b?: string = \"//y\"\n}\n"
    );
}

#[test]
fn patterns_with_backslashes_print_raw_and_raw_strings_stay_raw() {
    let src = concat!(
        "/// A.\ntool t {\n",
        "  a: string @pattern(\"^\\\\d+$\")\n",
        "  b: string @pattern(\"^\\\\d\\\"\")\n",
        "  c: string @pattern(\"^[a-z]+$\")\n",
        "  d?: string = r\"C:\\temp\"\n",
        "  e?: string = \"C:\\\\temp\"\n",
        "  r\"f g\"?: string @pattern(\"\\\\n\\n\")\n",
        "}\n"
    );
    let expected = concat!(
        "/// A.\ntool t {\n",
        "  a: string @pattern(r\"^\\d+$\")\n",
        "  b: string @pattern(r#\"^\\d\"\"#)\n",
        "  c: string @pattern(\"^[a-z]+$\")\n",
        "  d?: string = r\"C:\\temp\"\n",
        "  e?: string = \"C:\\\\temp\"\n",
        // A line break has no raw spelling: the pattern keeps its escapes.
        "  r\"f g\"?: string @pattern(\"\\\\n\\n\")\n",
        "}\n"
    );
    let out = tooldef::format(src).unwrap();
    assert_eq!(out, expected);
    assert_eq!(tooldef::format(&out).unwrap(), out);
}

#[test]
fn format_layout_is_canonical() {
    let src = "// head\n\n/// Does.\n@read_only   @title(\"T\")\ntool   t->   string{a:string@min_length(1)   ,b?:(\"x\"|\"y\")[]=[\"x\"]\n// before c\nc: { d: integer, ...: string }   // after c\n}\n";
    let out = tooldef::format(src).unwrap();
    let expected = "// head\n\n/// Does.\n@read_only @title(\"T\")\ntool t -> string {\n  a: string @min_length(1)\n  b?: (\"x\" | \"y\")[] = [\"x\"]\n  // before c\n  c: { d: integer, ...: string } // after c\n}\n";
    assert_eq!(out, expected);
}

#[test]
fn blank_lines_between_members_are_kept_once() {
    let src = "/// T.\ntool t {\n  a: string\n\n\n  /// B.\n  b: integer = 1\n\n  c: boolean\n  d: null\n}\n\nenum E {\n  x\n\n  y\n}\n";
    let out = tooldef::format(src).unwrap();
    assert_eq!(out, "/// T.\ntool t {\n  a: string\n\n  /// B.\n  b: integer = 1\n\n  c: boolean\n  d: null\n}\n\nenum E {\n  x\n\n  y\n}\n");
}

#[test]
fn tuples_format_on_one_line_or_one_item_a_line_with_their_comments() {
    let source = "/// T.\ntool t {\n  a: [ number ,number? , ...:string ]\n  b: [\n    number, // x\n    // the second\n    number, // y\n  ]\n}\n";
    let formatted = tooldef::format(source).unwrap();
    assert_eq!(
        formatted,
        "/// T.\ntool t {\n  a: [number, number?, ...: string]\n  b: [\n    number, // x\n    // the second\n    number, // y\n  ]\n}\n"
    );
    assert_eq!(tooldef::format(&formatted).unwrap(), formatted);
}
