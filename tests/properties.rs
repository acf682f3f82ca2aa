//! Properties of the compiler over generated input:
//! - random valid `.tool` sources compile, and every emitted schema is valid draft 2020-12;
//! - arbitrary text, token soup and mutated real sources never make it panic.

use proptest::prelude::*;

/// A type expression to print, with enough structure to stay valid by construction.
#[derive(Clone, Debug)]
enum Gen {
    String {
        min: Option<u8>,
        extra: Option<u8>,
        pattern: bool,
        format: bool,
    },
    Integer {
        min: Option<i32>,
        span: Option<u16>,
    },
    Number {
        exclusive: bool,
    },
    Boolean,
    Any,
    LiteralString(String),
    LiteralInt(i64),
    /// A reference to the named type with this index (taken modulo the number of earlier types).
    Ref(usize),
    Array(Box<Gen>, Option<u8>, bool),
    Map(Box<Gen>),
    /// Items (optional after the first `required`), then 0 closed, 1 `...`, 2 `...: T`.
    Tuple(Vec<Gen>, usize, u8, Box<Gen>),
    Never,
    Object(Vec<(bool, Gen)>),
    Nullable(Box<Gen>),
    Union(Vec<String>),
}

fn leaf() -> impl Strategy<Value = Gen> {
    prop_oneof![
        (
            any::<Option<u8>>(),
            any::<Option<u8>>(),
            any::<bool>(),
            any::<bool>()
        )
            .prop_map(|(min, extra, pattern, format)| Gen::String {
                min,
                extra,
                pattern,
                format
            }),
        (any::<Option<i32>>(), any::<Option<u16>>())
            .prop_map(|(min, span)| Gen::Integer { min, span }),
        any::<bool>().prop_map(|exclusive| Gen::Number { exclusive }),
        Just(Gen::Boolean),
        Just(Gen::Any),
        Just(Gen::Never),
        "[a-z]{1,8}".prop_map(Gen::LiteralString),
        any::<i64>().prop_map(Gen::LiteralInt),
        any::<usize>().prop_map(Gen::Ref),
        prop::collection::btree_set("[a-z]{1,6}", 2..5)
            .prop_map(|s| Gen::Union(s.into_iter().collect())),
    ]
}

fn gen() -> impl Strategy<Value = Gen> {
    leaf().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            (inner.clone(), any::<Option<u8>>(), any::<bool>())
                .prop_map(|(t, min, unique)| Gen::Array(Box::new(t), min, unique)),
            inner.clone().prop_map(|t| Gen::Map(Box::new(t))),
            (
                prop::collection::vec(inner.clone(), 0..3),
                0usize..4,
                0u8..3,
                inner.clone()
            )
                .prop_map(|(items, required, rest, r)| Gen::Tuple(
                    items,
                    required,
                    rest,
                    Box::new(r)
                )),
            prop::collection::vec((any::<bool>(), inner.clone()), 0..4).prop_map(Gen::Object),
            inner.prop_map(|t| Gen::Nullable(Box::new(t))),
        ]
    })
}

/// Prints a type; `types` is how many named types precede the use (references stay acyclic).
fn print(g: &Gen, types: usize, out: &mut String) {
    match g {
        Gen::String {
            min,
            extra,
            pattern,
            format,
        } => {
            out.push_str("(string");
            if let Some(m) = min {
                out.push_str(&format!(" @min_length({m})"));
                if let Some(e) = extra {
                    out.push_str(&format!(" @max_length({})", u16::from(*m) + u16::from(*e)));
                }
            }
            if *pattern {
                out.push_str(" @pattern(\"^[a-z]*$\")");
            }
            if *format {
                out.push_str(" @format(date-time)");
            }
            out.push(')');
        }
        Gen::Integer { min, span } => {
            out.push_str("(integer");
            if let Some(m) = min {
                out.push_str(&format!(" @min({m})"));
                if let Some(s) = span {
                    out.push_str(&format!(" @max({})", i64::from(*m) + i64::from(*s)));
                }
            }
            out.push(')');
        }
        Gen::Number { exclusive } => out.push_str(if *exclusive {
            "(number @exclusive_min(0) @exclusive_max(1.5))"
        } else {
            "number"
        }),
        Gen::Boolean => out.push_str("boolean"),
        Gen::Any => out.push_str("any"),
        Gen::LiteralString(s) => out.push_str(&format!("\"{s}\"")),
        Gen::LiteralInt(n) => out.push_str(&n.to_string()),
        Gen::Ref(i) => {
            if types == 0 {
                out.push_str("string");
            } else {
                out.push_str(&format!("T{}", i % types));
            }
        }
        Gen::Array(t, min, unique) => {
            out.push('(');
            print(t, types, out);
            out.push_str(")[]");
            if let Some(m) = min {
                out.push_str(&format!(" @min_items({}) @max_items({})", m % 4, m % 4 + 3));
            }
            if *unique {
                out.push_str(" @unique");
            }
        }
        Gen::Never => out.push_str("never"),
        Gen::Tuple(items, required, rest, r) => {
            out.push('[');
            for (i, t) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print(t, types, out);
                if i >= *required {
                    out.push('?');
                }
            }
            match rest {
                0 => {}
                1 => out.push_str(if items.is_empty() { "..." } else { ", ..." }),
                _ => {
                    out.push_str(if items.is_empty() { "...: " } else { ", ...: " });
                    print(r, types, out);
                }
            }
            out.push(']');
        }
        Gen::Map(t) => {
            out.push_str("map<");
            print(t, types, out);
            out.push('>');
        }
        Gen::Object(fields) => {
            out.push_str("{ ");
            for (i, (optional, t)) in fields.iter().enumerate() {
                out.push_str(&format!("f{i}{}: ", if *optional { "?" } else { "" }));
                print(t, types, out);
                out.push_str(", ");
            }
            out.push('}');
        }
        Gen::Nullable(t) => {
            out.push('(');
            print(t, types, out);
            out.push_str(" | null)");
        }
        Gen::Union(values) => {
            let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
            out.push_str(&format!("({})", quoted.join(" | ")));
        }
    }
}

fn source() -> impl Strategy<Value = String> {
    let types = prop::collection::vec(gen(), 0..4);
    let tools = prop::collection::vec(
        (
            "[A-Za-z][A-Za-z ,.]{0,30}",
            prop::collection::vec((any::<bool>(), gen(), "[A-Za-z ]{0,20}"), 0..6),
        ),
        1..4,
    );
    (types, tools).prop_map(|(types, tools)| {
        let mut out = String::new();
        for (i, t) in types.iter().enumerate() {
            out.push_str(&format!("/// Type {i}.\ntype T{i} = "));
            print(t, i, &mut out);
            out.push('\n');
        }
        // A recursive type, so `$defs` is exercised.
        out.push_str("/// A tree.\ntype Tree { value?: any, children: Tree[] }\n");
        for (i, (doc, fields)) in tools.iter().enumerate() {
            out.push_str(&format!("/// {doc}\ntool tool_{i} {{\n"));
            for (j, (optional, t, field_doc)) in fields.iter().enumerate() {
                if !field_doc.trim().is_empty() {
                    out.push_str(&format!("  /// {field_doc}\n"));
                }
                out.push_str(&format!("  p{j}{}: ", if *optional { "?" } else { "" }));
                print(t, types.len(), &mut out);
                out.push('\n');
            }
            out.push_str("  tree?: Tree\n}\n");
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn generated_sources_compile_to_meta_valid_schemas(src in source()) {
        let compiled = match tooldef::compile(&src) {
            Ok(c) => c,
            Err(e) => return Err(TestCaseError::fail(format!("{e:?}\n--- source ---\n{src}"))),
        };
        prop_assert!(!compiled.module.tools.is_empty());
        for tool in &compiled.module.tools {
            let schema = tooldef::emit::parameters(&compiled.module, tool);
            if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
                return Err(TestCaseError::fail(format!("{e}\n{schema:#}\n--- source ---\n{src}")));
            }
            prop_assert!(jsonschema::validator_for(&schema).is_ok(), "{schema:#}");
        }
    }

    #[test]
    fn arbitrary_text_never_panics(src in any::<String>()) {
        let _ = tooldef::compile(&src);
    }

    #[test]
    fn token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(vec![
        "tool", "type", "enum", "{", "}", "(", ")", "[", "]", "[]", "<", ">", "map<", ":", "?:", "|",
        "=", ",", "...", "->", "@min(1)", "@max(", "@pattern(\"(\")", "@format(date-time)",
        "@example(", "@deprecated", "@retry(times: 3)", "@meta(a: 1)", "\"x\"", "\"\\u0000\"", "1",
        "-1.5e3", "1e999", "true", "null", "string", "integer", "number", "any", "a", "T", "///",
        "/// doc\n", "//", "\n", " ", "\u{FEFF}", "\u{202E}", "\r\n", "é",
    ]), 0..60)) {
        let src: String = tokens.concat();
        let _ = tooldef::compile(&src);
    }

    #[test]
    fn mutated_sources_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<char>()), 1..8)) {
        let mut src: Vec<char> = include_str!("../examples/weather.tool").chars().collect();
        for (at, op, c) in edits {
            if src.is_empty() {
                break;
            }
            let i = at.index(src.len());
            match op {
                0 => { src.remove(i); }
                1 => src.insert(i, c),
                _ => src[i] = c,
            }
        }
        let src: String = src.into_iter().collect();
        let _ = tooldef::compile(&src);
    }
}
