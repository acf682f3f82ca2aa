//! Limits that hold through recursion and alias chains: sources built to double in size at each
//! step are rejected by the checker with the limit's code, on a 2 MiB thread stack (a library
//! caller's spawned thread), before any later stage could take exponential time or overflow the
//! stack.

use tooldef::Code;

/// Runs `f` on a thread with a 2 MiB stack.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no stack overflow")
}

/// A validator for the first tool of `source`.
fn first_tool(source: &str) -> tooldef::validate::Validator {
    let module = tooldef::compile(source).expect("compiles").module;
    tooldef::validate::Validator::new(&module, &module.tools[0]).expect("a validator")
}

fn codes(source: String) -> Vec<Code> {
    small_stack(move || match tooldef::compile(&source) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors().map(|d| d.code).collect(),
    })
}

/// `T_i { a?: T_{i-1}, b?: T_{i-1} }` doubles the inlined schema per level; hidden under a
/// recursive type, the body used to be counted as one schema and compiling took gigabytes.
fn doubling_under_recursion(levels: usize) -> String {
    let mut s = String::from("type T0 { x: string }\n");
    for i in 1..=levels {
        s.push_str(&format!("type T{i} {{ a?: T{}, b?: T{} }}\n", i - 1, i - 1));
    }
    s.push_str(&format!(
        "type R {{ next?: R, b?: T{levels} }}\n/// Boom.\ntool boom {{ r: R }}\n"
    ));
    s
}

/// A type with a description of `doc` bytes, inlined 2^`levels` times: a 100 KB source used to
/// compile to 415 MB (1.2 GB of memory) at 12 levels, all of it copies of the description.
fn doubling_a_description(doc: usize, levels: usize) -> String {
    let mut s = format!("/// {}\ntype T0 {{ x: string }}\n", "d".repeat(doc));
    for i in 1..=levels {
        s.push_str(&format!("type T{i} {{ a?: T{}, b?: T{} }}\n", i - 1, i - 1));
    }
    s.push_str(&format!("/// Boom.\ntool boom {{ root: T{levels} }}\n"));
    s
}

fn alias_chain(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("type A{i} = A{}\n", i + 1));
    }
    s.push_str(&format!(
        "type A{n} = string\n/// Chain.\ntool chain {{ a: A0 }}\n"
    ));
    s
}

fn objects_under_recursion(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("type O{i} {{ x?: O{} }}\n", i + 1));
    }
    s.push_str(&format!(
        "type O{n} {{ y: string }}\ntype R {{ next?: R, o?: O0 }}\n/// Hide.\ntool hide {{ r: R }}\n"
    ));
    s
}

#[test]
fn a_large_body_behind_a_recursive_type_counts() {
    // 2^12 schemas fit the limit of 20,000; 2^15 do not. Each step doubles the schema.
    assert_eq!(codes(doubling_under_recursion(12)), []);
    for levels in [15, 16, 20, 30] {
        assert_eq!(
            codes(doubling_under_recursion(levels)),
            [Code::SchemaTooLarge],
            "{levels} levels"
        );
    }
    // Deeper still, the depth limit binds first.
    assert_eq!(codes(doubling_under_recursion(60)), [Code::SchemaTooDeep]);
}

#[test]
fn alias_chains_count_as_depth() {
    assert_eq!(codes(alias_chain(30)), []);
    for n in [64, 1_000, 2_000, 4_000, 8_000, 16_000] {
        assert_eq!(codes(alias_chain(n)), [Code::SchemaTooDeep], "{n} aliases");
    }
}

#[test]
fn deep_object_chains_behind_a_recursive_type_count() {
    assert_eq!(codes(objects_under_recursion(20)), []);
    for n in [50, 500, 1_000, 2_000, 4_000, 8_000] {
        assert_eq!(
            codes(objects_under_recursion(n)),
            [Code::SchemaTooDeep],
            "{n} objects"
        );
    }
}

/// `R_i { a?: R_{i-1}, b?: R_{i-1} }` with `R_0` referring back to the top: every type is
/// recursive, so each is emitted once under `$defs`, and there are 2^levels paths of references.
/// Found by the fuzz target `compile`: the strict-mode depth limit followed `$ref` along every
/// path, and 25 such types took 9 s in `openai-strict`. 200 levels are 2^200 paths; measuring
/// each definition once finishes at once.
fn recursive_doubling(levels: usize) -> String {
    let mut s = format!("type R0 {{ x: string, up?: R{levels} }}\n");
    for i in 1..=levels {
        s.push_str(&format!("type R{i} {{ a?: R{}, b?: R{} }}\n", i - 1, i - 1));
    }
    s.push_str(&format!("/// Paths.\ntool paths {{ r: R{levels} }}\n"));
    s
}

#[test]
fn strict_mode_measures_each_recursive_definition_once() {
    for levels in [25, 200] {
        let source = recursive_doubling(levels);
        let emitted = small_stack(move || {
            let module = tooldef::compile(&source).expect("within the limits").module;
            [
                tooldef::emit::Target::OpenAiStrict,
                tooldef::emit::Target::OpenAiResponses,
            ]
            .map(|target| {
                tooldef::emit::tools(&module, target, &tooldef::emit::Options::default())
                    .map(|e| e.json.to_string())
                    .map_err(|e| e.to_string())
            })
        });
        for json in emitted {
            let json = json.expect("emits");
            assert!(json.contains("\"$ref\""), "{levels} levels");
        }
    }
}

/// What passes the checker stays within the emitters' own guard, for every target.
#[test]
fn what_the_checker_accepts_every_target_emits() {
    for source in [
        doubling_under_recursion(12),
        alias_chain(30),
        objects_under_recursion(20),
    ] {
        small_stack(move || {
            let module = tooldef::compile(&source).expect("within the limits").module;
            for &target in tooldef::emit::Target::ALL {
                if let Err(e) =
                    tooldef::emit::tools(&module, target, &tooldef::emit::Options::default())
                {
                    // A provider's own limits may refuse it; the emitters' guard on the
                    // inlined size must not.
                    assert!(
                        e.errors()
                            .all(|d| !d.message.contains("once named types are inlined")),
                        "{}: {e}",
                        target.as_str()
                    );
                }
            }
            for tool in &module.tools {
                tooldef::validate::Validator::new(&module, tool).expect("a validator");
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs that used to take exponential or quadratic time: each now finishes at a size where the
// old code ran for minutes (the growth itself is measured in `benches/hostile.rs`).

/// A JSON Schema of inline objects nested `depth` deep: the printer tried each object on one
/// line by printing it whole, at every level, so each level doubled the work.
fn nested_schema(depth: usize) -> serde_json::Value {
    let mut s = serde_json::json!({"type": "string"});
    for _ in 0..depth {
        s = serde_json::json!({
            "type": "object",
            "properties": {"a": s, "b": {"type": "integer"}},
            "required": ["a"],
        });
    }
    s
}

/// `schema` imported from JSON Schema as the tool `t`, objects closed: the printed source.
fn import_tool(schema: &serde_json::Value) -> String {
    tooldef::import::import(
        schema,
        tooldef::import::Dialect::JsonSchema,
        &tooldef::import::Options {
            name: Some("t".into()),
            keep_open: false,
            ..Default::default()
        },
    )
    .expect("imports")
    .source
}

#[test]
fn deeply_nested_inline_objects_import_and_format() {
    // 32 levels took over a minute to import; the import limit is 40.
    let imported = import_tool(&nested_schema(38));
    let again = tooldef::format(&imported).expect("formats");
    assert_eq!(again, imported, "the printed source is already formatted");
}

#[test]
fn a_wide_object_and_a_long_enum_check_in_linear_time() {
    // A scan per field made 250,000 fields run past two minutes.
    let fields: Vec<String> = (0..100_000).map(|i| format!("f{i}: string")).collect();
    // (A type, not a tool: a tool this wide is over the schema size limit.)
    let source = format!("type Wide {{ {} }}\n", fields.join(", "));
    assert!(tooldef::compile(&source).is_ok());
    // Comparing every pair of values made a 50,000-value enum import in 17 s.
    let values: Vec<String> = (0..50_000).map(|i| format!("v{i}")).collect();
    let schema = serde_json::json!({"type": "object", "properties": {"e": {"enum": values}}});
    let imported = import_tool(&schema);
    assert!(imported.contains("\"v49999\""));
}

/// `n` definition names that all reduce to the type name `A` (`a` and four punctuation marks).
fn names_of_one_base(n: usize) -> Vec<String> {
    const MARKS: &[u8] = b"!@#%^&*()+=[]{};:,<>?~|";
    (0..n)
        .map(|mut i| {
            let mut name = String::from("a");
            for _ in 0..4 {
                name.push(char::from(MARKS[i % MARKS.len()]));
                i /= MARKS.len();
            }
            name
        })
        .collect()
}

#[test]
fn many_definitions_of_one_base_name_import_in_linear_time() {
    // Each name counted up from 2 past every earlier one: 20,000 definitions took 12 s.
    let n = 50_000;
    let defs: serde_json::Map<String, serde_json::Value> = names_of_one_base(n)
        .into_iter()
        .map(|name| (name, serde_json::json!({"type": "string"})))
        .collect();
    let schema = serde_json::json!({"$defs": defs, "type": "object", "properties": {}});
    let imported = import_tool(&schema);
    assert!(imported.contains("type A = string\n"));
    assert!(imported.contains(&format!("type A{n} = string\n")));
}

#[test]
fn a_chain_of_definitions_is_keyed_for_sharing_within_a_budget() {
    // Definition `i` refers to `i + 1`, so each reaches every one after it: finding copies of a
    // definition by the text of all it reaches would read the square of the chain (about 10 GB
    // of text for these 20,000); the budget stops it after 16 MiB.
    let n = 20_000;
    let defs: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| {
            let next = if i + 1 < n {
                serde_json::json!({"$ref": format!("#/$defs/D{}", i + 1)})
            } else {
                serde_json::json!({"type": "string"})
            };
            (
                format!("D{i}"),
                serde_json::json!({"type": "object", "properties": {"next": next}}),
            )
        })
        .collect();
    let schema = serde_json::json!({"title": "t", "description": "T.", "$defs": defs,
        "type": "object", "properties": {"d": {"$ref": "#/$defs/D0"}}});
    let err = tooldef::import::import(
        &schema,
        tooldef::import::Dialect::JsonSchema,
        &tooldef::import::Options::default(),
    )
    .expect_err("the chain is deeper than a schema may be");
    assert!(
        err.issues.iter().any(|i| i.code == Code::SchemaTooDeep),
        "{:?}",
        err.issues.first()
    );
}

#[test]
fn a_long_enum_written_in_source_checks_in_linear_time() {
    // Each member was compared with every earlier one: 40,000 members took 3.6 s to check.
    let members: Vec<String> = (0..200_000).map(|i| format!("m{i}")).collect();
    let source = format!("enum E {{ {} m7 }}\n", members.join(" "));
    let errors = tooldef::compile(&source).expect_err("m7 is given twice");
    let d = errors.errors().next().expect("an error");
    assert_eq!(d.code, Code::DuplicateName);
    assert_eq!(d.span.start, source.rfind("m7").expect("the repeat"));
    assert_eq!(
        d.related[0].span.start,
        source.find(" m7 ").expect("the first") + 1
    );
}

#[test]
fn a_union_of_many_named_types_checks_in_linear_time() {
    // Each reference of a definition was looked up in the list of those found before it: a
    // union of 100,000 named types took 12 s to check in a release build (3 s now, most of it
    // parsing). Here 50,000, with the union also under a recursive type.
    let n = 50_000;
    let mut source: String = (0..n)
        .map(|i| format!("type A{i} {{ x: string }}\n"))
        .collect();
    let members: Vec<String> = (0..n).map(|i| format!("A{i}")).collect();
    source.push_str(&format!("type U = {}\n", members.join(" | ")));
    source.push_str(&format!(
        "type R {{ next?: R | {} }}\n",
        members.join(" | ")
    ));
    assert!(tooldef::compile(&source).is_ok());
}

#[test]
fn many_rules_across_keys_check_in_linear_time() {
    // Each field a rule names was looked for among the object's fields, and each name among the
    // names before it in its rule: 200,000 `@requires` over the last two of 15,000 fields (a
    // 5.5 MB source) took 11.5 s to check in a release build, 0.7 s now.
    let fields = 10_000;
    let declared: String = (0..fields).map(|i| format!("  f{i}?: string\n")).collect();
    let n = 100_000;
    let rule = format!("@requires(f{}: f{})\n", fields - 1, fields - 2);
    let source = format!("/// T.\n{}tool t {{\n{declared}}}\n", rule.repeat(n));
    let compiled = tooldef::compile(&source).expect("compiles");
    assert_eq!(compiled.module.tools[0].params.rules.groups.len(), n);

    // One rule naming every field four times, the last first.
    let names: Vec<String> = (0..4 * fields)
        .map(|i| format!("f{}", fields - 1 - i % fields))
        .collect();
    let source = format!(
        "/// T.\n@exactly_one_of({})\ntool t {{\n{declared}}}\n",
        names.join(", ")
    );
    let errors = tooldef::compile(&source).expect_err("names repeated");
    let twice = errors
        .diagnostics
        .iter()
        .filter(|d| d.message.ends_with("is named twice"))
        .count();
    assert_eq!(twice, 3 * fields);
}

#[test]
fn a_long_single_line_formats() {
    // The formatter searched to the end of the line for every line it printed: a 13 MB
    // one-line file took seven minutes.
    let types: Vec<String> = (0..20_000)
        .map(|i| format!("type T{i} {{ a: string, b?: integer, c?: {{ d: string }} }}"))
        .collect();
    let source = types.join(" ");
    let formatted = tooldef::format(&source).expect("formats");
    assert_eq!(formatted.matches("\ntype ").count(), 19_999);
    assert_eq!(tooldef::format(&formatted).expect("formats"), formatted);
}

#[test]
fn descriptions_count_at_every_copy() {
    // 100 KB copied 2^k times: 16 copies (1.6 MB) fit the 4 MiB limit on a tool's text, 64
    // (6.4 MB) do not, and neither does any doubling beyond, though the subschemas (3 per
    // copy) stay under their own limit up to 2^12 copies.
    let limit = tooldef::limits::MAX_SCHEMA_TEXT;
    assert_eq!(limit, 4 * 1024 * 1024);
    assert_eq!(codes(doubling_a_description(100_000, 4)), []);
    for levels in [6, 8, 12] {
        assert_eq!(
            codes(doubling_a_description(100_000, levels)),
            [Code::SchemaTooLarge],
            "{levels} levels"
        );
    }
    // The message says what is counted.
    let err = tooldef::compile(&doubling_a_description(100_000, 12)).expect_err("too large");
    let d = err.errors().next().expect("one error");
    assert!(d.message.contains("bytes of text"), "{}", d.message);
    // What the checker accepts, every target emits, and the output is about the text counted
    // (32 copies of 100 KB, 3.2 MB) plus the subschemas' own syntax.
    let module = tooldef::compile(&doubling_a_description(100_000, 5))
        .expect("32 copies are within the limit")
        .module;
    for &target in tooldef::emit::Target::ALL {
        let out = match tooldef::emit::tools(&module, target, &tooldef::emit::Options::default()) {
            Ok(out) => out,
            // Anthropic strict mode allows 24 optional parameters in a request; this tool's
            // copies hold more.
            Err(e)
                if target == tooldef::emit::Target::AnthropicStrict
                    && e.errors().all(|d| d.code == Code::TargetLimit) =>
            {
                continue
            }
            Err(e) => panic!("{target:?} emits: {e:?}"),
        };
        let len = out.json.to_string().len();
        assert!(len < 2 * limit, "{target:?}: {len} bytes");
    }
    // A model built by hand, which the checker never saw, meets the emitters' own guard: a
    // description of 1 MB copied 32 times.
    let mut module = module;
    module.types[0].description = Some("d".repeat(1_000_000));
    for &target in tooldef::emit::Target::ALL {
        let err = tooldef::emit::tools(&module, target, &tooldef::emit::Options::default())
            .expect_err("32 MB of text");
        assert!(
            err.errors()
                .any(|d| d.code == Code::TargetLimit && d.message.contains("text")),
            "{target:?}: {err:?}"
        );
    }
}

/// A tool of `n` string fields, each with its own counted repetition `^.{k}$`, `k` from `from`:
/// a dozen bytes of source each, and an automaton of thousands of states once compiled. 256 of
/// them (`k` from 3,000) used to take 25 s to check and hold a gigabyte in a validator.
fn counted_patterns(n: usize, from: usize) -> String {
    let mut s = String::from("/// Patterns.\ntool t {\n");
    for i in 0..n {
        s.push_str(&format!(
            "  f{i}?: string @pattern(\"^.{{{}}}$\")\n",
            from + i
        ));
    }
    s.push_str("}\n");
    s
}

#[test]
fn patterns_stop_at_their_memory_limit() {
    // A few heavy patterns are fine.
    assert_eq!(codes(counted_patterns(4, 500)), Vec::<Code>::new());
    // Doubling the number of patterns past the limit gives one error, always at the same
    // pattern: the checker compiles none after the one that passes the limit, so its work stops
    // growing there.
    let mut first = None;
    for n in [64, 128, 256, 512] {
        let source = counted_patterns(n, 500);
        let errors = small_stack(move || match tooldef::compile(&source) {
            Ok(_) => panic!("{n} patterns compiled"),
            Err(e) => e
                .errors()
                .map(|d| (d.code, d.span.start, d.message.clone()))
                .collect::<Vec<_>>(),
        });
        assert_eq!(errors.len(), 1, "{errors:?}");
        let (code, at, message) = &errors[0];
        assert_eq!(*code, Code::PatternsTooLarge);
        assert!(message.contains("more than 32 MiB"), "{message}");
        assert_eq!(*first.get_or_insert(*at), *at, "at {n} patterns");
    }
}

#[test]
fn a_validator_keeps_the_pattern_limit_on_a_model_the_checker_never_saw() {
    // Light patterns, one a field, that the checker accepts.
    let light: String = (0..512)
        .map(|i| format!("  f{i}?: string @pattern(\"^v{i}$\")\n"))
        .collect();
    let mut module = tooldef::compile(&format!("/// Patterns.\ntool t {{\n{light}}}\n"))
        .expect("light patterns compile")
        .module;
    // The same fields, given the heavy patterns by hand.
    for (i, field) in module.tools[0].params.fields.iter_mut().enumerate() {
        let tooldef::model::Ty::String(rules) = &mut field.ty else {
            panic!("a string field");
        };
        rules.pattern.as_mut().expect("a pattern").value = format!("^.{{{}}}$", 500 + i);
    }
    match tooldef::validate::Validator::new(&module, &module.tools[0]) {
        Err(tooldef::validate::CompileError::Pattern(e)) => {
            assert!(e.reason.contains("more than 32 MiB"), "{}", e.reason)
        }
        other => panic!("{:?}", other.map(|_| "a validator")),
    }
}

#[test]
fn defaults_and_examples_of_one_type_check_in_linear_time() {
    // Each default and example was checked on its own, compiling its type each time: a
    // default on each of 2,000 fields of a 2,000-field type took 4 s, 2,000 examples of one
    // inline type of 2,000 fields 9 s and 1.8 GB. Here 5,000 of each.
    let n = 5_000;
    let big: Vec<String> = (0..n).map(|i| format!("b{i}?: string")).collect();
    let big = big.join(", ");
    let defaults: String = (0..n).map(|i| format!("  f{i}?: Big = {{}}\n")).collect();
    let examples = " @example({})".repeat(n);
    // (Types, not tools: a tool this large is over the schema size limit.)
    let source = format!(
        "type Big {{ {big} }}\ntype Holder {{\n{defaults}}}\ntype Shown {{ e?: {{ {big} }}{examples} }}\n"
    );
    assert!(tooldef::compile(&source).is_ok());
    // Values that break the type are worded from one compiled program too, each at its place.
    let broken: String = (0..n)
        .map(|i| format!("  f{i}?: Big = {{\"b{i}\": {i}}}\n"))
        .collect();
    let source = format!("type Big {{ {big} }}\ntype Holder {{\n{broken}}}\n");
    let errors = tooldef::compile(&source).expect_err("the defaults do not fit");
    let errors: Vec<_> = errors.errors().collect();
    assert_eq!(errors.len(), n);
    assert!(errors.iter().all(|d| d.code == Code::InvalidDefault));
    assert!(
        errors[n - 1].message.contains(&format!("b{}", n - 1)),
        "{}",
        errors[n - 1].message
    );
}

#[test]
fn unions_of_objects_check_in_linear_time() {
    // A member that is not a literal was compared with every earlier one: a union of 10,000
    // objects took 18 s to check. Here 20,000.
    let n = 20_000;
    let members: Vec<String> = (0..n).map(|i| format!("{{ a: \"x{i}\" }}")).collect();
    let members = members.join(" | ");
    let compiled = tooldef::compile(&format!("type U = {members}\n")).expect("compiles");
    assert!(compiled.warnings.is_empty(), "{:?}", compiled.warnings);
    // A repeat is still found, written far from the first (spans differ, types do not), and
    // one that differs only in a rule is not a repeat.
    let source = format!(
        "type U = {members} | {{ a: \"x0\" }} | {{ a: \"x1\" @deprecated }} | {{ a: string @max_length(3) }} | {{ a: string @max_length(4) }}\n"
    );
    let compiled = tooldef::compile(&source).expect("compiles");
    let codes: Vec<Code> = compiled.warnings.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::RedundantUnion], "{:?}", compiled.warnings);
    assert!(compiled.warnings[0].span.start > source.len() - 120);
}

#[test]
fn many_values_of_one_union_read_back_in_linear_time() {
    // Reading a call back from a target's shape compiled each union member's shape for every
    // value it tried: one call of 10,000 items of a union of 20 objects (40 fields each) took
    // 13.6 s in a release build (0.23 s now).
    let members: Vec<String> = (0..20)
        .map(|m| {
            let fields: Vec<String> = (0..40).map(|f| format!("m{m}f{f}?: string")).collect();
            format!("{{ {}, tag{m}: integer }}", fields.join(", "))
        })
        .collect();
    let source = format!("/// U.\ntool u {{ v: ({})[] }}\n", members.join(" | "));
    let module = tooldef::compile(&source).expect("compiles").module;
    let target = tooldef::emit::Target::OpenAiStrict;
    // The call is 5.6 MB as JSON: over the default argument limit, which values are held to.
    let validator = tooldef::validate::Validator::for_target(&module, &module.tools[0], target)
        .expect("a validator")
        .with_limits(tooldef::validate::Limits {
            max_bytes: 64 << 20,
            ..tooldef::validate::Limits::default()
        });
    // Each item fits the last member only, so every member is tried for every item (strict
    // mode shows optional fields as required and nullable).
    let items: Vec<serde_json::Value> = (0..10_000)
        .map(|i| {
            let mut item: serde_json::Map<String, serde_json::Value> = (0..40)
                .map(|f| (format!("m19f{f}"), serde_json::Value::Null))
                .collect();
            item.insert("tag19".into(), i.into());
            serde_json::Value::Object(item)
        })
        .collect();
    let call = serde_json::json!({ "v": items });
    let read = validator
        .validate_value(&call, tooldef::validate::Mode::Strict)
        .expect("valid");
    assert_eq!(
        read.arguments["v"][9_999],
        serde_json::json!({ "tag19": 9_999 })
    );
}

#[test]
fn values_of_a_long_enum_are_found_in_constant_time() {
    // Each value was compared with the members one by one: a call of 40,000 values against an
    // enum of 40,000 took 1.7 s in a release build (0.2 s now, most of it compiling).
    let n = 40_000;
    let members: Vec<String> = (0..n).map(|i| format!("\"v{i}\"")).collect();
    let source = format!(
        "type E = {} | 7 | 2.5\n/// T.\ntool t {{ e: E[] }}\n",
        members.join(" | ")
    );
    let validator = first_tool(&source);
    let mut values: Vec<serde_json::Value> =
        (0..n).map(|i| format!("v{}", n - 1 - i).into()).collect();
    // Numbers are found by value, as JSON Schema compares them.
    values.extend([serde_json::json!(7.0), serde_json::json!(2.5)]);
    let call = serde_json::json!({ "e": values });
    assert!(validator.is_valid(&call, tooldef::validate::Mode::Strict));
    assert!(validator
        .validate_str(&call.to_string(), tooldef::validate::Mode::Strict)
        .is_ok());
    // A value that is not a member is still refused, at its place.
    let call = serde_json::json!({ "e": ["v0", "v40000", 7.5] });
    let err = validator
        .validate_value(&call, tooldef::validate::Mode::Strict)
        .expect_err("not members");
    let at: Vec<&str> = err.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(at, ["/e/1", "/e/2"], "{}", err.message());
}

#[test]
fn a_long_union_told_apart_by_a_field_tries_one_member() {
    // Every member of a tagged union was tried for each value, in lax mode first without and
    // then with coercion: 5,000 invalid values against 5,000 members took 42 s in a release
    // build. The tag picks the one member that can take the value.
    let n = 4_000;
    let members: Vec<String> = (0..n)
        .map(|i| format!("{{ k: \"{i}\", v: integer }}"))
        .collect();
    let source = format!("/// T.\ntool t {{ u: ({})[] }}\n", members.join(" | "));
    let validator = first_tool(&source);
    let valid: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({ "k": (n - 1 - i).to_string(), "v": i }))
        .collect();
    let call = serde_json::json!({ "u": valid });
    for mode in [
        tooldef::validate::Mode::Strict,
        tooldef::validate::Mode::Lax,
    ] {
        assert!(validator.is_valid(&call, mode));
        assert!(validator.validate_value(&call, mode).is_ok());
    }
    // Invalid in both modes: each is reported inside the member its tag picks.
    let invalid: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({ "k": i.to_string(), "v": "x" }))
        .collect();
    let call = serde_json::json!({ "u": invalid });
    for mode in [
        tooldef::validate::Mode::Strict,
        tooldef::validate::Mode::Lax,
    ] {
        let err = validator.validate_value(&call, mode).expect_err("invalid");
        assert_eq!(err.errors.len(), n, "{mode:?}");
        assert_eq!(err.errors[n - 1].path, format!("/u/{}/v", n - 1));
    }
    // Lax mode coerces a number tag to its string, and the fields of the member it picks.
    let call = serde_json::json!({ "u": [{ "k": 17, "v": "3" }, { "k": "18", "v": 4 }] });
    let read = validator
        .validate_value(&call, tooldef::validate::Mode::Lax)
        .expect("coerced");
    assert_eq!(
        read.arguments["u"],
        serde_json::json!([{ "k": "17", "v": 3 }, { "k": "18", "v": 4 }])
    );
    assert!(!validator.is_valid(&call, tooldef::validate::Mode::Strict));
}

#[test]
fn values_of_a_long_enum_normalize_in_constant_time() {
    // Normalizing a value to the member as declared (`7.0` to `7`) scanned the members: n
    // such values against an enum of n members cost n². Here 20,000 of each.
    let n = 20_000;
    let members: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let source = format!("/// T.\ntool t {{ e: ({})[] }}\n", members.join(" | "));
    let validator = first_tool(&source);
    let values: Vec<serde_json::Value> = (0..n).map(|i| (f64::from(n - 1 - i)).into()).collect();
    let call = serde_json::json!({ "e": values });
    let read = validator
        .validate_value(&call, tooldef::validate::Mode::Strict)
        .expect("valid");
    let expected: Vec<serde_json::Value> = (0..n).map(|i| (n - 1 - i).into()).collect();
    assert_eq!(read.arguments["e"], serde_json::Value::from(expected));
}

#[test]
fn a_long_run_of_literals_in_a_union_is_one_check() {
    // Each literal of `"v0" | … | { a: string }` was a member tried in turn: 10,000 values
    // against 10,000 literals took 1.1 s in a release build. Here 19,000 of each (near the
    // limit of subschemas); the run is one enum, which takes what one of its literals takes
    // and coerces as trying them in order would.
    let n = 19_000;
    let literals: Vec<String> = (0..n).map(|i| format!("\"v{i}\"")).collect();
    let source = format!(
        "/// T.\ntool t {{ u: ({} | 5 | {{ a: string }})[] }}\n",
        literals.join(" | ")
    );
    let validator = first_tool(&source);
    let mut values: Vec<serde_json::Value> =
        (0..n).map(|i| format!("v{}", n - 1 - i).into()).collect();
    values.extend([serde_json::json!(5), serde_json::json!({ "a": "x" })]);
    let call = serde_json::json!({ "u": values });
    for mode in [
        tooldef::validate::Mode::Strict,
        tooldef::validate::Mode::Lax,
    ] {
        assert!(validator.is_valid(&call, mode));
        assert!(validator.validate_str(&call.to_string(), mode).is_ok());
    }
    // Lax mode coerces to the literal, and only what strict mode refuses.
    let call = serde_json::json!({ "u": ["5", 5.0, "v3", { "a": "x" }] });
    let read = validator
        .validate_value(&call, tooldef::validate::Mode::Lax)
        .expect("coerced");
    assert_eq!(
        read.arguments["u"],
        serde_json::json!([5, 5, "v3", { "a": "x" }])
    );
    assert_eq!(read.coercions.len(), 1, "{:?}", read.coercions);
    assert_eq!(read.coercions[0].path, "/u/0");
    // What no member takes is refused at its place.
    let call = serde_json::json!({ "u": ["v0", "v19000", 6, { "a": 1 }] });
    let err = validator
        .validate_value(&call, tooldef::validate::Mode::Strict)
        .expect_err("not members");
    let at: Vec<&str> = err.errors.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(at, ["/u/1", "/u/2", "/u/3/a"], "{}", err.message());
}

#[test]
fn many_unknown_keys_of_a_wide_object_cost_each_key_once() {
    // Each unknown key of an object of more than 64 fields worked out again which fields were
    // sent (for its suggestion): 20,000 unknown keys against 8,000 fields took 5.8 s in a
    // release build, 0.12 s now.
    let fields: Vec<String> = (0..8_000)
        .map(|i| format!("  field_number_{i}?: string\n"))
        .collect();
    let source = format!("/// T.\ntool t {{\n{}}}\n", fields.concat());
    let validator = first_tool(&source);
    let mut call: serde_json::Map<String, serde_json::Value> = (0..20_000)
        .map(|i| (format!("field_numbr_{i}x"), "v".into()))
        .collect();
    call.insert("field_number_7".into(), "sent".into());
    let call = serde_json::Value::Object(call);
    let err = validator
        .validate_value(&call, tooldef::validate::Mode::Strict)
        .expect_err("unknown keys");
    assert_eq!(err.errors.len(), 20_000);
    // The suggestion still leaves out the field that was sent.
    let first = err.errors[7].message();
    assert!(first.contains("did you mean `field_number_70`"), "{first}");
    assert!(err.message().contains("and 19900 more problems"));
}

/// Types that double at every level and that no tool uses: the checker bounds tools' schemas,
/// so a type emitted on its own (a structured output, an editor's hover) is bounded where it is
/// emitted. At 60 levels an unbounded emission could not finish (2^60 schemas); before the
/// bound, 22 levels took 6 GB and an abort in `tooldef schema`, and 18 took 5 s and 115 MB of
/// JSON for one hover.
#[test]
fn a_type_that_doubles_per_level_is_refused_where_it_is_emitted_alone() {
    use tooldef::analysis::Analysis;
    use tooldef::emit::{self, Options, RESPONSE_TARGETS};
    use tooldef::model::Ty;

    let mut source = String::from("/// Level 0.\ntype T0 { x: string }\n");
    for i in 1..60 {
        source.push_str(&format!(
            "/// Level {i}.\ntype T{i} {{ a?: T{p}, b?: T{p} }}\n",
            p = i - 1
        ));
    }
    let compiled = tooldef::compile(&source).expect("types alone compile");
    let module = &compiled.module;
    let ty = |name: &str| Ty::Ref(module.named(name).expect("defined").0);

    assert!(emit::type_schema(module, &ty("T3")).is_some());
    assert!(emit::type_schema(module, &ty("T59")).is_none());
    for &target in RESPONSE_TARGETS {
        let at = module.types.last().unwrap().span;
        let options = Options { warnings: false };
        let small = emit::response_format(module, &ty("T3"), "small", None, at, target, &options);
        assert!(small.is_ok(), "{target:?}: {small:?}");
        let refused = emit::response_format(module, &ty("T59"), "big", None, at, target, &options)
            .expect_err(target.as_str());
        let d = refused.diagnostics.first().expect("a diagnostic");
        assert_eq!(d.code, Code::TargetLimit, "{target:?}");
        assert!(d.message.contains("the limit is 50000"), "{}", d.message);
    }

    let mut analysis = Analysis::new();
    analysis.set("t.tool", source.as_str());
    let hover = |needle: &str| {
        let at = source.find(needle).expect("in the source") + needle.len() - 1;
        analysis.hover("t.tool", at).expect("a hover")
    };
    assert!(hover("type T3 ").schema.is_some());
    assert!(hover("type T59 ").schema.is_none());
    assert!(
        hover("type T59 { a").schema.is_none(),
        "a field of the type"
    );
    assert!(hover("type T3 { a").schema.is_some());
}

/// `diff` compares a pair of named types once per question, however many paths lead to it:
/// before, it followed every path, so 2^200 paths of `recursive_doubling(200)` ran into the
/// comparison budget and a module compared with itself got a breaking change ("too large to
/// compare"). Here every type leans on the top one (the recursion goes back up), so the pairs
/// are kept while it stands; a change at the bottom is still found, exactly, with its path.
#[test]
fn diff_compares_each_pair_of_types_once() {
    let compiled = |s: String| small_stack(move || tooldef::compile(&s).expect("compiles").module);
    for source in [recursive_doubling(200), doubling_under_recursion(12)] {
        let module = compiled(source);
        assert_eq!(
            tooldef::diff(&module, &module),
            [],
            "a module against itself"
        );
    }

    let old = compiled(recursive_doubling(200));
    let new = compiled(recursive_doubling(200).replace("R0 { x: string", "R0 { x: integer"));
    let changes = tooldef::diff(&old, &new);
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let change = &changes[0];
    assert_eq!(change.kind, tooldef::ChangeKind::Breaking);
    // The walker reports at a path 100 types deep; the rest of the way is in the message.
    assert!(
        change
            .message
            .ends_with("at /properties/x: type changed from string to integer"),
        "{change:#?}"
    );
    let steps =
        change.path.matches("/properties/").count() + change.message.matches("at /").count();
    assert_eq!(steps, 1 + 200 + 1, "{change:#?}");

    // Widening at the bottom is no breaking change.
    let wider =
        compiled(recursive_doubling(200).replace("R0 { x: string", "R0 { x: string | integer"));
    assert!(
        tooldef::diff(&old, &wider)
            .iter()
            .all(|c| c.kind != tooldef::ChangeKind::Breaking),
        "{:#?}",
        tooldef::diff(&old, &wider)
    );
}

/// A chain of thousands of named types, each recursive (so the checker, which measures what is
/// emitted, lets it through): comparing them followed the chain one stack frame after another,
/// and `tooldef diff` of a 3,000-type file overflowed the stack of the command line's main
/// thread. The comparison now stops at its depth limit, with the cautious verdict.
#[test]
fn diff_of_a_deep_chain_of_types_stops_at_its_depth_limit() {
    let (same, changed) = small_stack(|| {
        let old = tooldef::compile(&recursive_doubling(6000))
            .expect("compiles")
            .module;
        let source = recursive_doubling(6000).replace("R0 { x: string", "R0 { x: integer");
        let new = tooldef::compile(&source).expect("compiles").module;
        (tooldef::diff(&old, &old), tooldef::diff(&old, &new))
    });
    for changes in [same, changed] {
        assert_eq!(changes.len(), 1, "{changes:#?}");
        assert!(
            changes[0].message.contains("too large to compare"),
            "{changes:#?}"
        );
    }
}

/// The same chain of thousands of recursive named types: the validator's compiler followed it one
/// named type inside the other and overflowed the stack (`tooldef validate` of a 6,000-type file
/// aborted on the command line's 8 MiB main thread). Each named type's body is now compiled on its
/// own, so the compiler's depth is one type's nesting.
#[test]
fn a_chain_of_thousands_of_named_types_compiles_to_a_validator() {
    use tooldef::validate::{Mode, Validator};
    let verdicts = small_stack(|| {
        let module = tooldef::compile(&recursive_doubling(6000))
            .expect("compiles")
            .module;
        let tool = Validator::new(&module, &module.tools[0]).expect("a validator");
        let top = tooldef::model::Ty::Ref(module.named("R6000").expect("defined").0);
        let value = Validator::for_type(&module, &top, "R6000").expect("a validator");
        let ok = serde_json::json!({ "r": { "a": { "b": {} } } });
        let bad = serde_json::json!({ "r": { "a": { "b": { "c": 1 } } } });
        let bad_text = bad.to_string();
        (
            tool.is_valid(&ok, Mode::Strict),
            tool.validate_value(&bad, Mode::Strict)
                .map(|_| ())
                .map_err(|e| e.errors[0].path.clone()),
            tool.validate_str(&bad_text, Mode::Lax)
                .map(|_| ())
                .map_err(|e| e.errors[0].path.clone()),
            value.is_valid(&ok["r"], Mode::Strict),
        )
    });
    assert!(verdicts.0);
    assert_eq!(verdicts.1.err().as_deref(), Some("/r/a/b/c"));
    assert_eq!(verdicts.2.err().as_deref(), Some("/r/a/b/c"));
    assert!(verdicts.3);
}

/// `R_i = R_{i-1} | { z: string }`, each type recursive through `R_0`: the validator tries a
/// value against R_n's union, whose first member is R_{n-1}'s union, and so on, one stack frame
/// deeper each without reading deeper into the value. The schema-depth limit did not see the
/// chain (each recursive type is emitted once, under `$defs`), and validating against 5,000 of
/// them overflowed a 2 MiB stack. Now such a chain has a limit of its own.
fn union_chain(n: usize) -> String {
    let mut s = format!("type R0 {{ x?: string, up?: R{n} }}\n");
    for i in 1..=n {
        s.push_str(&format!("type R{i} = R{} | {{ z{i}: string }}\n", i - 1));
    }
    s.push_str(&format!("/// Chain.\ntool chain {{ r: R{n} }}\n"));
    s
}

#[test]
fn unions_inside_unions_through_named_types_count_as_depth() {
    assert_eq!(codes(union_chain(tooldef::limits::MAX_UNION_DEPTH)), []);
    for n in [9, 1_000, 4_900] {
        let source = union_chain(n);
        let errors = small_stack(move || match tooldef::compile(&source) {
            Ok(_) => Vec::new(),
            Err(e) => e.errors().map(|d| (d.code, d.message.clone())).collect(),
        });
        assert_eq!(errors.len(), 1, "{n}: {errors:?}");
        assert_eq!(errors[0].0, Code::SchemaTooDeep, "{n}");
        assert!(
            errors[0]
                .1
                .starts_with(&format!("type `R{n}` nests {n} unions")),
            "{errors:?}"
        );
    }
    // A default is checked by the validator: with the chain too deep, it is not checked.
    let source = union_chain(4_900).replace("tool chain { r:", "tool chain { d?: R7 = 1, r:");
    assert_eq!(codes(source), [Code::SchemaTooDeep]);
}

/// At the limit, on every level of a value as deep as the validator takes: 8 unions per level,
/// 128 levels, in each mode and on each path, on a 2 MiB stack in a release build (measured:
/// 16 per level fit, 24 do not). A debug build's frames are about four times larger, so the test
/// gives it 8 MiB.
#[test]
fn the_deepest_unions_validate_the_deepest_values() {
    use tooldef::validate::{Mode, Validator};
    let depth = tooldef::limits::MAX_UNION_DEPTH;
    let mut source = format!("type U0 {{ next?: U{depth} }}\n");
    for i in 1..=depth {
        source.push_str(&format!("type U{i} = U{} | {{ z{i}: string }}\n", i - 1));
    }
    source.push_str(&format!("/// Deep.\ntool deep {{ u: U{depth} }}\n"));
    // The arguments' object, `u`, and `levels` objects below it: as deep as the validator takes.
    let levels = tooldef::validate::Limits::DEFAULT_MAX_DEPTH - 2;
    let nested = |innermost: serde_json::Value| {
        let mut v = innermost;
        for _ in 0..levels {
            v = serde_json::json!({ "next": v });
        }
        serde_json::json!({ "u": v })
    };
    let ok = nested(serde_json::json!({}));
    let bad = nested(serde_json::json!({ "zz": 1 }));
    let stack = if cfg!(debug_assertions) { 8 } else { 2 } << 20;
    let run = move || {
        let module = tooldef::compile(&source).expect("within the limits").module;
        let validator = Validator::new(&module, &module.tools[0]).expect("a validator");
        [Mode::Strict, Mode::Lax].map(|mode| {
            (
                validator.is_valid(&ok, mode),
                validator.validate_value(&ok, mode).is_ok(),
                validator.validate_str(&ok.to_string(), mode).is_ok(),
                validator.validate_value(&bad, mode).is_err(),
                validator.validate_str(&bad.to_string(), mode).is_err(),
            )
        })
    };
    let verdicts = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(run)
        .expect("a thread")
        .join()
        .expect("no stack overflow");
    assert_eq!(verdicts, [(true, true, true, true, true); 2]);
}

/// The diagnostics of a build of `files` (in memory) from the first of them.
fn build_diagnostics(files: Vec<(String, String)>) -> Vec<tooldef::Diagnostic> {
    let mut loader = tooldef::MemoryLoader::new();
    for (name, text) in &files {
        loader.insert(name, text.as_str());
    }
    let (root, text) = &files[0];
    match tooldef::compile_with(root, text, &loader) {
        Ok(c) => c.warnings,
        Err(e) => e.diagnostics,
    }
}

/// `n` files, each importing the next and the first: file `i` closes a circle of `i + 1` files.
fn circles_back_to_the_first(n: usize) -> Vec<(String, String)> {
    (0..n)
        .map(|i| {
            let mut text = String::new();
            if i + 1 < n {
                text.push_str(&format!(
                    "import {{ T{j} }} from \"./f{j}.tool\"\n",
                    j = i + 1
                ));
            }
            if i > 0 {
                text.push_str("import { T0 } from \"./f0.tool\"\n");
            }
            text.push_str(&format!("type T{i} {{ a: string }}\n"));
            (format!("f{i}.tool"), text)
        })
        .collect()
}

#[test]
fn imports_back_to_a_deep_ancestor_report_each_circle_in_bounded_length() {
    // Each import that closed a circle was reported with every file of the circle, and the path
    // of files being loaded was scanned at each import: 8,000 files took 45 s, 985 MB and wrote
    // 1.02 GB of errors in a release build (`tooldef check`). Here the most files a build reads.
    let n = tooldef::limits::MAX_BUILD_FILES;
    let diagnostics = build_diagnostics(circles_back_to_the_first(n));
    let cycles: Vec<&tooldef::Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.code == Code::ImportCycle)
        .collect();
    // One for each import back to the first file, at that import.
    assert_eq!(cycles.len(), n - 1);
    let total: usize = diagnostics.iter().map(|d| d.message.len()).sum();
    assert!(total < 200 * n, "{total} bytes of messages");
    // The longest circle is named by its ends and the number of files between.
    let last = format!("f{}.tool", n - 1);
    let longest = cycles
        .iter()
        .find(|d| d.file.as_ref().is_some_and(|f| f.name() == last))
        .expect("the last file closes a circle");
    assert_eq!(
        longest.message,
        format!(
            "files import each other in a circle: f0.tool → f1.tool → f2.tool → … {} files … → \
             f{}.tool → f{}.tool → f0.tool",
            n - 5,
            n - 2,
            n - 1
        )
    );
}

#[test]
fn names_imported_from_a_large_file_are_looked_up_once_each() {
    // Each imported name was looked for in a list of the other file's names, built again for
    // it, and each name not there was told every name there: 20,000 names imported from a file
    // of 20,000 types wrote 20,000 lists of 20,000 names (2.6 GB).
    let n = 20_000;
    let types: String = (0..n)
        .map(|i| format!("type T{i} {{ a: string }}\n"))
        .collect();
    let wanted: Vec<String> = (0..n).map(|i| format!("U{i}")).collect();
    let main = format!("import {{ {} }} from \"./types.tool\"\n", wanted.join(", "));
    let diagnostics = build_diagnostics(vec![
        ("main.tool".to_string(), main),
        ("types.tool".to_string(), types),
    ]);
    let unresolved: Vec<&tooldef::Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.code == Code::UnresolvedImport)
        .collect();
    assert_eq!(unresolved.len(), n);
    let help = unresolved[0].help.as_deref().expect("a help");
    assert_eq!(
        help,
        "it defines: T0, T1, T2, T3, T4, T5, T6, T7, T8, T9 and 19990 more"
    );
    let total: usize = unresolved
        .iter()
        .map(|d| d.message.len() + d.help.as_ref().map_or(0, String::len))
        .sum();
    assert!(total < 150 * n, "{total} bytes of messages");
}

/// Reports drawn for people of sources with long lines (`tooldef::render`, which miette draws).
#[cfg(feature = "cli")]
mod long_lines {
    use tooldef::render::{self, Style};

    fn rendered(source: &str) -> String {
        let errors = tooldef::compile(source).expect_err("an error");
        render::reports(&errors.diagnostics, "p.tool", source, Style::Plain)
    }

    /// The 1-based line and column the JSON form names for the first error of `source`.
    fn place(source: &str) -> (usize, usize) {
        let errors = tooldef::compile(source).expect_err("an error");
        let d = errors.errors().next().expect("one error");
        tooldef::LineIndex::new(source).line_col(source, d.span.start)
    }

    #[test]
    fn a_diagnostic_far_along_a_long_line_is_drawn_where_it_is() {
        // miette drew the whole line and aligned the label with a formatting width, which stops
        // at 65,535: an error at column 70,012 panicked (`check`, `compile`, `stats` and `serve`
        // exited 101).
        let source = format!("type A {{{}a: strin }}\n", " ".repeat(70_000));
        let out = rendered(&source);
        assert_eq!(place(&source), (1, 70_012));
        assert!(out.contains("[p.tool:1:70012]"), "{out}");
        // The line is shown from 60 characters before the error, after a `…`.
        assert!(
            out.contains(&format!(" 1 │ …{}a: strin }}\n", " ".repeat(57))),
            "{out}"
        );
        assert!(out.len() < 2_000, "{} bytes:\n{out}", out.len());
    }

    #[test]
    fn the_header_counts_the_column_in_characters() {
        // miette's own reading counted bytes: `"ééé": strin` named column 13 in the header and
        // column 10 in the JSON form.
        let source = "/// T.\ntool t {\n  /// F.\n  \"ééé\": strin\n}\n";
        assert_eq!(place(source), (4, 10));
        let out = rendered(source);
        assert!(out.contains("[p.tool:4:10]"), "{out}");
    }

    #[test]
    fn labels_far_apart_on_one_line_are_each_drawn() {
        let source = format!(
            "type T {{ a: string }}{}type T {{ a: string }}\n",
            " ".repeat(70_000)
        );
        let out = rendered(&source);
        assert!(out.contains("[p.tool:1:70026]"), "{out}");
        assert!(out.contains("first defined here"), "{out}");
        assert!(out.contains("duplicate type"), "{out}");
        assert!(out.len() < 2_000, "{} bytes:\n{out}", out.len());
    }

    #[test]
    fn a_long_line_is_cut_between_characters() {
        // Two-, three- and four-byte characters, double-width ones and tabs before the error.
        let mut sources: Vec<String> = ["é", "漢", "😀", "é漢😀x"]
            .iter()
            .map(|c| {
                format!(
                    "type A {{ b?: string = \"{}\", a: strin }}\n",
                    c.repeat(30_000)
                )
            })
            .collect();
        sources.push(format!("type A {{{}a: strin }}\n", "\t".repeat(70_000)));
        for source in sources {
            let out = rendered(&source);
            let (line, column) = place(&source);
            assert!(out.contains("a: strin }"), "{out}");
            assert!(out.contains(&format!("[p.tool:{line}:{column}]")), "{out}");
            assert!(out.len() < 2_000, "column {column}: {} bytes", out.len());
        }
    }

    #[test]
    fn labels_far_apart_in_a_file_are_drawn_apart() {
        // miette joins two labels into one snippet when the second's lines start within the
        // first's line number plus its line count, and that count ran from the start of the
        // file: a type defined at line 20,001 and again at line 40,003 drew the 20,000 lines
        // between them (1.2 MB for one error), and n such pairs drew n times the file.
        let n = 20_000;
        let types = |prefix: &str| -> String {
            (0..n)
                .map(|i| format!("type {prefix}{i} {{ a: string }}\n"))
                .collect()
        };
        let source = format!(
            "{}tool t {{ a: string }}\ntype Dup {{ a: string }}\n{}type Dup {{ b: string }}\n",
            types("F"),
            types("G")
        );
        let out = rendered(&source);
        assert!(out.contains("first defined here"), "{out}");
        assert!(out.contains(&format!("[p.tool:{}:6]", 2 * n + 3)), "{out}");
        assert!(out.len() < 2_000, "{} bytes", out.len());
    }

    #[test]
    fn many_diagnostics_on_one_line_get_their_exact_columns() {
        // Each column was counted from the start of its line, quadratic in the line's length
        // (`check --format json` on 80,000 errors on one 2 MB line took 14.3 s); columns are now
        // counted from checkpoints (the growth is `benches/hostile.rs`, "report: the line and
        // column of n places on one line"). Here every column of 40,000 errors on a 1.8 MB line
        // with two-byte characters is checked.
        let k = 40_000;
        let definition = |i: usize| format!("type T{i} {{ b?: string = \"éé\", a: strin }} ");
        let source: String = (0..k).map(definition).collect();
        let errors = tooldef::compile(&source).expect_err("errors");
        let index = tooldef::LineIndex::new(&source);
        let columns: Vec<u64> = errors
            .diagnostics
            .iter()
            .map(|d| {
                d.to_json("p.tool", &source, &index)["column"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(columns.len(), k);
        let mut before = 0;
        for (i, column) in columns.iter().enumerate() {
            let text = definition(i);
            let at = text[..text.rfind("strin").unwrap()].chars().count();
            assert_eq!(*column as usize, before + at + 1);
            before += text.chars().count();
        }
    }

    #[test]
    fn many_diagnostics_on_one_line_cost_each_its_own_snippet() {
        // Each report repeated the whole line: 1,500 errors on a 35 KB line drew 104 MB in
        // 1.8 s, and 3,000 reached the 65,535 columns miette can align (a panic). 20,000 would
        // have drawn 9 GB.
        let k = 20_000;
        let source: String = (0..k)
            .map(|i| format!("type T{i} {{ a: strin }} "))
            .collect();
        let out = rendered(&source);
        assert_eq!(out.matches("tooldef::unknown-type").count(), k);
        assert!(out.len() < 1_000 * k, "{} bytes", out.len());
    }
}
