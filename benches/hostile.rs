//! Growth on hostile inputs: each shape is run at a size and at twice that size, several times,
//! and the ratio of the best times is reported. Linear work doubles (≈ 2×); the shapes that were
//! exponential or quadratic (nested inline objects in import and fmt, wide objects, long enums,
//! a long single line, alias chains, large bodies behind a recursive type, unions of objects,
//! defaults of one large type, the values of one union read back from a target's shape) must stay
//! near 2×; the shapes that stop at a limit (heavy patterns) stop growing there.
//!
//! `cargo bench --bench hostile` runs the sizes below (`cargo bench --bench hostile -- WORD`
//! only the shapes whose names hold the word); `cargo test --benches` runs each shape once at a
//! small size (no timing).

#[path = "../tests/support/random_text.rs"]
mod random_text;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tooldef::validate::Mode;

fn nested_schema(depth: usize) -> Value {
    let mut s = json!({"type": "string"});
    for _ in 0..depth {
        s = json!({"type": "object", "properties": {"a": s, "b": {"type": "integer"}}, "required": ["a"]});
    }
    s
}

fn import(doc: &Value) {
    let options = tooldef::import::Options {
        name: Some("t".into()),
        keep_open: false,
        ..Default::default()
    };
    let _ = tooldef::import::import(doc, tooldef::import::Dialect::JsonSchema, &options);
}

/// A number no earlier run has had, to keep pattern texts fresh: compiled patterns are cached
/// by their text, so a repeated text would measure the cache.
/// Compiles `source` and validates `call` against its first tool in lax mode (a shape that
/// does not compile is a mistake in the shape, not a measurement).
fn validate_lax(source: &str, call: &Value) {
    let _ = validator(source).validate_value(call, tooldef::validate::Mode::Lax);
}

fn fresh() -> usize {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    RUN.fetch_add(1, Ordering::Relaxed)
}

/// A tool of `n` string fields, the i-th with the pattern `pattern(i)`.
fn patterns(n: usize, pattern: impl Fn(usize) -> String) -> String {
    let fields: String = (0..n)
        .map(|i| format!("  /// F.\n  f{i}?: string @pattern(\"{}\")\n", pattern(i)))
        .collect();
    format!("/// T.\ntool t {{\n{fields}}}\n")
}

/// The validator of the first tool of `source`.
fn validator(source: &str) -> tooldef::validate::Validator {
    let module = tooldef::compile(source).expect("the shape compiles").module;
    tooldef::validate::Validator::new(&module, &module.tools[0]).expect("a validator")
}

/// A source of one empty tool for each name.
fn empty_tools(names: impl Iterator<Item = String>) -> String {
    names
        .map(|name| format!("/// T.\ntool {name} {{}}\n"))
        .collect()
}

/// A shape: its name, the size it is run at, and the work at a size.
type Shape = (&'static str, usize, Box<dyn Fn(usize)>);

/// The shapes.
/// `R_i { a?: R_{i-1}, b?: R_{i-1} }` with `R_0` referring back to the top: every type is
/// recursive (emitted once, so the checker takes thousands), and 2^n paths lead through them.
fn recursive_doubling(n: usize) -> String {
    let mut s = format!("type R0 {{ x: string, up?: R{n} }}\n");
    for i in 1..=n {
        s.push_str(&format!("type R{i} {{ a?: R{}, b?: R{} }}\n", i - 1, i - 1));
    }
    s.push_str(&format!("/// Paths.\ntool paths {{ r: R{n} }}\n"));
    s
}

fn shapes() -> Vec<Shape> {
    #[allow(unused_mut)]
    let mut shapes: Vec<Shape> = vec![
        (
            "import: nested inline objects (chains of n)",
            // Nested objects are bounded by the import depth limit (40): chains of them side
            // by side double the input instead.
            8,
            Box::new(|n| {
                let props: serde_json::Map<String, Value> = (0..n)
                    .map(|i| (format!("p{i}"), nested_schema(35)))
                    .collect();
                import(&json!({"type": "object", "properties": props}));
            }),
        ),
        (
            "check: fields of one object",
            25_000,
            Box::new(|n| {
                let fields: Vec<String> = (0..n).map(|i| format!("f{i}: string")).collect();
                let _ = tooldef::compile(&format!("type W {{ {} }}", fields.join(", ")));
            }),
        ),
        (
            "import: enum values",
            12_500,
            Box::new(|n| {
                let values: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
                import(&json!({"type": "object", "properties": {"e": {"enum": values}}}));
            }),
        ),
        (
            "fmt: types on one line",
            5_000,
            Box::new(|n| {
                let types: Vec<String> = (0..n)
                    .map(|i| format!("type T{i} {{ a: string, c?: {{ d: string }} }}"))
                    .collect();
                let _ = tooldef::format(&types.join(" "));
            }),
        ),
        (
            "check: a long pattern of `.*`, literals and `|`",
            1_000,
            Box::new(|n| {
                let pattern = format!("{}{}", fresh(), "x*.*k|".repeat(n / 6));
                let _ = tooldef::compile(&format!(
                    "/// T.\ntool t {{\n  /// A.\n  a: string @pattern(\"^{pattern}$\")\n}}\n"
                ));
            }),
        ),
        (
            "check: counted repetitions `^.{k}$`, one a field",
            // Past nine of them the patterns' memory limit stops the check: n and 2n cost the same.
            64,
            Box::new(|n| {
                let run = fresh();
                let _ = tooldef::compile(&patterns(n, |i| format!("^{run}.{{{}}}$", 3000 + i)));
            }),
        ),
        (
            "check: patterns whose DFA explodes, one a field",
            // Each try is bounded by the regex's size, all of them by the DFA work limit.
            1_000,
            Box::new(|n| {
                let run = fresh();
                let _ = tooldef::compile(&patterns(n, |i| format!("(a|b)*a(a|b){{30}}{run}x{i}")));
            }),
        ),
        (
            "check: a union of n one-field objects",
            10_000,
            Box::new(|n| {
                let members: Vec<String> = (0..n).map(|i| format!("{{ a: \"x{i}\" }}")).collect();
                let _ = tooldef::compile(&format!("type U = {}\n", members.join(" | ")));
            }),
        ),
        (
            "check: a default on each of n fields of an n-field type",
            2_000,
            Box::new(|n| {
                let big: Vec<String> = (0..n).map(|i| format!("b{i}?: string")).collect();
                let fields: String = (0..n).map(|i| format!("  f{i}?: Big = {{}}\n")).collect();
                let _ = tooldef::compile(&format!(
                    "type Big {{ {} }}\ntype Holder {{\n{fields}}}\n",
                    big.join(", ")
                ));
            }),
        ),
        (
            "validate (openai-strict): n items of a union of 20 objects",
            5_000,
            Box::new(|n| {
                let members: Vec<String> = (0..20)
                    .map(|m| {
                        let fields: Vec<String> =
                            (0..40).map(|f| format!("m{m}f{f}?: string")).collect();
                        format!("{{ {}, tag{m}: integer }}", fields.join(", "))
                    })
                    .collect();
                let source = format!("/// U.\ntool u {{ v: ({})[] }}\n", members.join(" | "));
                let module = tooldef::compile(&source).expect("compiles").module;
                let target = tooldef::emit::Target::OpenAiStrict;
                let validator =
                    tooldef::validate::Validator::for_target(&module, &module.tools[0], target)
                        .expect("a validator");
                let items: Vec<Value> = (0..n)
                    .map(|i| {
                        let mut item: serde_json::Map<String, Value> =
                            (0..40).map(|f| (format!("m19f{f}"), Value::Null)).collect();
                        item.insert("tag19".into(), i.into());
                        Value::Object(item)
                    })
                    .collect();
                let call = json!({ "v": items });
                let _ = validator.validate_value(&call, tooldef::validate::Mode::Strict);
            }),
        ),
        (
            "diff: two versions of a tool of n fields, the fields reordered",
            2_500,
            Box::new(|n| {
                let old: String = (0..n).map(|i| format!("  f{i}?: string\n")).collect();
                let new: String = (0..n).rev().map(|i| format!("  f{i}?: string\n")).collect();
                let old =
                    tooldef::compile(&format!("/// T.\ntool t {{\n{old}}}\n")).expect("compiles");
                let new = tooldef::compile(&format!("/// T.\ntool t {{\n{new}  g?: string\n}}\n"))
                    .expect("compiles");
                assert_eq!(tooldef::diff(&old.module, &new.module).len(), 1);
            }),
        ),
        (
            "diff: two versions of an enum of n members, the members reordered",
            20_000,
            Box::new(|n| {
                let members = |order: Vec<usize>| -> String {
                    order.into_iter().map(|i| format!(" m{i}")).collect()
                };
                let old = members((0..n).collect());
                let new = members((0..n).rev().collect());
                let old =
                    tooldef::compile(&format!("enum E {{{old} }}\n/// T.\ntool t {{ e: E }}\n"))
                        .expect("compiles");
                let new = tooldef::compile(&format!(
                    "enum E {{{new} extra }}\n/// T.\ntool t {{ e: E }}\n"
                ))
                .expect("compiles");
                assert_eq!(tooldef::diff(&old.module, &new.module).len(), 1);
            }),
        ),
        (
            "diff: n tools against the same tools in reverse order",
            5_000,
            Box::new(|n| {
                let old = empty_tools((0..n).map(|i| format!("t{i}")));
                let new = empty_tools((0..n).rev().map(|i| format!("t{i}")));
                let old = tooldef::compile(&old).expect("compiles");
                let new =
                    tooldef::compile(&format!("{new}/// T.\ntool extra {{}}\n")).expect("compiles");
                assert_eq!(tooldef::diff(&old.module, &new.module).len(), 1);
            }),
        ),
        (
            "diff: n tools against n others, each a likely rename",
            1_000,
            Box::new(|n| {
                let old = empty_tools((0..n).map(|i| format!("old_tool_{i}")));
                let new = empty_tools((0..n).map(|i| format!("new_tool_{i}")));
                let old = tooldef::compile(&old).expect("compiles");
                let new = tooldef::compile(&new).expect("compiles");
                assert_eq!(tooldef::diff(&old.module, &new.module).len(), 2 * n);
            }),
        ),
        (
            "dispatch: n calls of tools a set of 1,000 lacks",
            5_000,
            Box::new(|n| {
                let source = empty_tools((0..1_000).map(|i| format!("some_tool_number_{i}")));
                let tools = tooldef::Toolset::from_source(&source).expect("compiles");
                let blocks: Vec<Value> = (0..n)
                    .map(|i| json!({"type": "tool_use", "id": format!("c{i}"), "name": format!("sone_toul_numbr_{i}x"), "input": {}}))
                    .collect();
                let out = tools
                    .dispatch(
                        tooldef::envelope::Provider::Anthropic,
                        &json!({ "content": blocks }),
                        &tooldef::DispatchOptions::default(),
                    )
                    .expect("dispatched");
                assert_eq!(out.replies.len(), n);
            }),
        ),
        (
            "toolset: n sources, each with an error",
            2_000,
            Box::new(|n| {
                let sources = (0..n).map(|i| {
                    tooldef::Source::new(
                        format!("f{i}.tool"),
                        format!("/// T.\ntool t{i} {{ x: nope }}\n"),
                    )
                });
                let errors = tooldef::Toolset::new(sources).expect_err("unknown types");
                assert_eq!(errors.errors().count(), n);
            }),
        ),
        (
            "messages: every message of n unknown keys of an object of 1,000 fields",
            10_000,
            Box::new(|n| {
                let fields: String = (0..1_000)
                    .map(|i| format!("  field_number_{i}?: string\n"))
                    .collect();
                let call: serde_json::Map<String, Value> = (0..n)
                    .map(|i| (format!("feld_numbr_{i}x"), json!(1)))
                    .collect();
                let invalid = validator(&format!("/// T.\ntool t {{\n{fields}}}\n"))
                    .validate_value(&Value::Object(call), tooldef::validate::Mode::Strict)
                    .expect_err("unknown keys");
                assert_eq!(invalid.messages().count(), n);
            }),
        ),
        (
            "check: broken items, each recovered from",
            5_000,
            Box::new(|n| {
                // Every other item is broken, so the parse recovers n/2 times.
                let s: String = (0..n)
                    .map(|i| {
                        if i % 2 == 0 {
                            format!("type B{i} {{ a: string @min_length(1 }}\n")
                        } else {
                            format!("type G{i} {{ a: B{} }}\n", i - 1)
                        }
                    })
                    .collect();
                let _ = tooldef::compile(&s);
            }),
        ),
        (
            "check: alias chain",
            4_000,
            Box::new(|n| {
                let mut s: String = (0..n)
                    .map(|i| format!("type A{i} = A{}\n", i + 1))
                    .collect();
                s.push_str(&format!("type A{n} = string\n/// C.\ntool c {{ a: A0 }}\n"));
                let _ = tooldef::compile(&s);
            }),
        ),
        (
            "check: object chain behind a recursive type",
            2_000,
            Box::new(|n| {
                let mut s: String = (0..n)
                    .map(|i| format!("type O{i} {{ x?: O{} }}\n", i + 1))
                    .collect();
                s.push_str(&format!(
                    "type O{n} {{ y: string }}\ntype R {{ next?: R, o?: O0 }}\n/// H.\ntool h {{ r: R }}\n"
                ));
                let _ = tooldef::compile(&s);
            }),
        ),
        (
            "validate: n values, a union of n literals and an object",
            8_000,
            Box::new(|n| {
                let literals: Vec<String> = (0..n).map(|i| format!("\"v{i}\"")).collect();
                let s = format!(
                    "/// T.\ntool t {{ u: ({} | {{ a: string }})[] }}\n",
                    literals.join(" | ")
                );
                let values: Vec<Value> = (0..n).map(|i| format!("v{i}").into()).collect();
                validate_lax(&s, &json!({ "u": values }));
            }),
        ),
        (
            "validate: n invalid values, a tagged union of n",
            2_000,
            Box::new(|n| {
                let members: Vec<String> = (0..n)
                    .map(|i| format!("{{ k: \"{i}\", v: integer }}"))
                    .collect();
                let s = format!("/// T.\ntool t {{ u: ({})[] }}\n", members.join(" | "));
                let values: Vec<Value> = (0..n)
                    .map(|i| json!({ "k": i.to_string(), "v": "x" }))
                    .collect();
                validate_lax(&s, &json!({ "u": values }));
            }),
        ),
        (
            "validate: a string of n bytes, a pattern whose DFA explodes",
            // The lazy DFA cannot keep this pattern's states (it would need 2^3000), so
            // matching reads the string through the slowest engine: linear in the string,
            // times the pattern's size. The validator is built once; only matching is timed.
            20_000,
            Box::new(|n| {
                static EXPLODING: std::sync::OnceLock<tooldef::validate::Validator> =
                    std::sync::OnceLock::new();
                let v = EXPLODING.get_or_init(|| {
                    validator("/// T.\ntool t {\n  /// F.\n  f: string @pattern(\"^(a|b)*a(a|b){3000}x$\")\n}\n")
                });
                let mut seed = 0x2545_F491_4F6C_DD1D_u64;
                let mut text = random_text::random_text(n, &['a', 'b'], &mut seed).into_bytes();
                // A match, found at the end (when the string is long enough to hold one).
                if let Some(at) = n.checked_sub(3001) {
                    text[at] = b'a';
                }
                text.push(b'x');
                let text = String::from_utf8(text).expect("ASCII");
                let _ = v.validate_value(&json!({ "f": text }), Mode::Strict);
            }),
        ),
        (
            "validate: a pattern of n groups, matched once",
            // Enough Unicode classes (twelve a group) that the lazy DFA gives way to the slowest
            // engine, whose state held a slot per group at every state of the regex (the square
            // of n: 0.8 GB at 2n).
            250,
            Box::new(|n| {
                let run = fresh();
                let pattern = format!("^{run}{}$", "([^@ ]{12}a)".repeat(n));
                let s = format!(
                    "/// T.\ntool t {{\n  /// F.\n  f: string @pattern(\"{pattern}\")\n}}\n"
                );
                let text = format!("{run}{}!", "ééééééééééééa".repeat(n));
                validate_lax(&s, &json!({ "f": text }));
            }),
        ),
        (
            "validate: n unknown keys of an object of 4,000 fields",
            10_000,
            Box::new(|n| {
                let fields: Vec<String> =
                    (0..4_000).map(|i| format!("  f{i}?: string\n")).collect();
                let s = format!("/// T.\ntool t {{\n{}}}\n", fields.concat());
                let call: serde_json::Map<String, Value> =
                    (0..n).map(|i| (format!("g{i}"), Value::Null)).collect();
                validate_lax(&s, &Value::Object(call));
            }),
        ),
        (
            "import: n definitions whose names make one type name",
            10_000,
            Box::new(|n| {
                // `a` and four punctuation marks: every name reduces to `A`.
                const MARKS: &[u8] = b"!@#%^&*()+=[]{};:,<>?~|";
                let defs: serde_json::Map<String, Value> = (0..n)
                    .map(|mut i| {
                        let mut name = String::from("a");
                        for _ in 0..4 {
                            name.push(char::from(MARKS[i % MARKS.len()]));
                            i /= MARKS.len();
                        }
                        (name, json!({"type": "string"}))
                    })
                    .collect();
                import(&json!({"$defs": defs, "type": "object", "properties": {}}));
            }),
        ),
        (
            "check: an enum of n members",
            20_000,
            Box::new(|n| {
                let members: String = (0..n).map(|i| format!(" m{i}")).collect();
                assert!(tooldef::compile(&format!("enum E {{{members} }}\n")).is_ok());
            }),
        ),
        (
            "check: a union of n named types",
            25_000,
            Box::new(|n| {
                let mut s: String = (0..n)
                    .map(|i| format!("type A{i} {{ x: string }}\n"))
                    .collect();
                let members: Vec<String> = (0..n).map(|i| format!("A{i}")).collect();
                s.push_str(&format!("type U = {}\n", members.join(" | ")));
                assert!(tooldef::compile(&s).is_ok());
            }),
        ),
        (
            "diff: a module against itself, n types used twice",
            // 2^n paths through the types; `diff` compares at most 500 types one inside the
            // other, so 240 is near the deepest it decides.
            120,
            Box::new(|n| {
                let module = tooldef::compile(&recursive_doubling(n)).expect("within the limits");
                assert!(tooldef::diff(&module.module, &module.module).is_empty());
            }),
        ),
        (
            "validate: a validator for a chain of n named types",
            3_000,
            Box::new(|n| {
                let module = tooldef::compile(&recursive_doubling(n)).expect("within the limits");
                let tool = &module.module.tools[0];
                let _ = tooldef::validate::Validator::new(&module.module, tool);
            }),
        ),
        (
            "validate: a validator for a union of two objects of n literal fields",
            // Every field could tell the members apart but none does (each holds the same
            // literal in both), so each is tried as the discriminator.
            4_000,
            Box::new(|n| {
                let fields: Vec<String> = (0..n).map(|i| format!("f{i}: \"x\"")).collect();
                let fields = fields.join(", ");
                let s = format!(
                    "type A {{ {fields} }}\ntype B {{ {fields}, g: string }}\n/// T.\ntool t {{ u: A | B }}\n"
                );
                let module = tooldef::compile(&s).expect("within the limits").module;
                let _ = tooldef::validate::Validator::new(&module, &module.tools[0]);
            }),
        ),
        (
            "check: n rules across the keys of n fields",
            5_000,
            Box::new(|n| {
                let fields: String = (0..n).map(|i| format!("  f{i}?: string\n")).collect();
                let rules: String = (0..n)
                    .map(|i| format!("@requires(f{}: f{})\n", n - 1 - i, (2 * n - 2 - i) % n))
                    .collect();
                let s = format!("/// T.\n{rules}tool t {{\n{fields}}}\n");
                assert!(tooldef::compile(&s).is_ok());
            }),
        ),
        (
            "report: the line and column of n places on one line",
            20_000,
            Box::new(|n| {
                // A long line of two-byte characters, and a place in every tenth byte.
                let s = "é".repeat(5 * n);
                let index = tooldef::LineIndex::new(&s);
                let columns: usize = (0..n).map(|i| index.line_col(&s, 10 * i).1).sum();
                assert_eq!(columns, (0..n).map(|i| 5 * i + 1).sum::<usize>());
            }),
        ),
        (
            // Problems and lax coercions deep in a recursive type, found in the pass over the
            // text: each is recorded where it is found and its path grows a segment a level on
            // the way back up (prepending the segments made the work grow as the depth squared).
            "text: problems and coercions deep in a recursive type (depth)",
            30,
            Box::new(|depth| {
                let v = validator(
                    "/// T.\ntype Tree {\n  /// V.\n  value: integer @min(0)\n  /// C.\n  \
                     children?: Tree[]\n}\n/// T.\ntool t {\n  /// R.\n  root: Tree\n}\n",
                );
                let items = 4_000;
                let call = |item: &str| {
                    let mut s = String::from(r#"{"root":"#);
                    s.push_str(&r#"{"value":1,"children":["#.repeat(depth));
                    s.push_str(&vec![item; items].join(","));
                    s.push_str(&"]}".repeat(depth));
                    s.push('}');
                    s
                };
                let strict = v.validate_str(&call(r#"{"value":-1}"#), Mode::Strict);
                assert_eq!(strict.map_err(|e| e.errors.len()).err(), Some(items));
                let lax = v.validate_str(&call(r#"{"value":"1"}"#), Mode::Lax);
                assert_eq!(lax.map(|ok| ok.coercions.len()).ok(), Some(items));
            }),
        ),
    ];
    #[cfg(feature = "cli")]
    shapes.push((
        "render: a diagnostic on every line",
        5_000,
        Box::new(|n| {
            let s: String = (0..n)
                .map(|i| format!("type T{i} = Unknown{i}\n"))
                .collect();
            let Err(errors) = tooldef::compile(&s) else {
                return;
            };
            let style = tooldef::render::Style::Plain;
            let _ = tooldef::render::reports(&errors.diagnostics, "f", &s, style);
        }),
    ));
    shapes
}

fn best_of(runs: usize, f: &dyn Fn(usize), n: usize) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f(n);
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--bench");
    // Words that are not options pick the shapes whose names hold one of them.
    let words: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    for (name, size, work) in shapes() {
        if !words.is_empty() && !words.iter().any(|w| name.contains(w.as_str())) {
            continue;
        }
        if !full {
            work(size / 16 + 1);
            println!("{name}: ran once");
            continue;
        }
        let once = best_of(3, &*work, size);
        let twice = best_of(3, &*work, 2 * size);
        println!(
            "{name:<48} n={size:<7} {:>9.2} ms   2n {:>9.2} ms   growth {:.2}×",
            once.as_secs_f64() * 1e3,
            twice.as_secs_f64() * 1e3,
            twice.as_secs_f64() / once.as_secs_f64()
        );
    }
}
