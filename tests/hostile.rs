//! Hostile sources: the compiler answers with a diagnostic (or compiles), and never panics or
//! overflows its stack. Deep inputs run on a thread with a 2 MiB stack, the size of a default
//! spawned thread, so a recursion that only fits the main thread's 8 MiB would show here.

use tooldef::Code;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the compiler must not panic or overflow the stack")
}

fn codes(source: String) -> Vec<Code> {
    on_small_stack(move || match tooldef::compile(&source) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors().map(|d| d.code).collect(),
    })
}

#[test]
fn million_deep_parentheses_are_rejected_with_a_location() {
    let depth = 1_000_000;
    let source = format!(
        "/// t\ntool t {{ a: {}string{} }}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let errors = on_small_stack(move || tooldef::compile(&source).err());
    let errors = errors.expect("must fail");
    let first = errors.errors().next().expect("an error");
    assert_eq!(first.code, Code::NestingTooDeep);
    // The error points at the first bracket past the limit.
    // The tool body opens level 1, so the first parenthesis past the limit is the 64th.
    assert_eq!(
        first.span.start,
        "/// t\ntool t { a: ".len() + tooldef::limits::MAX_NESTING - 1
    );
}

#[test]
fn million_deep_brackets_braces_and_maps_are_rejected() {
    let n = 1_000_000;
    for (open, close) in [("[", "]"), ("{ a: ", "}"), ("map<", ">")] {
        let source = format!(
            "/// t\ntool t {{ a?: any = {}1{} }}",
            open.repeat(n),
            close.repeat(n)
        );
        assert_eq!(codes(source), vec![Code::NestingTooDeep], "{open}");
    }
    let source = format!(
        "/// t\ntool t {{ a: {}string{} }}",
        "map<".repeat(n),
        ">".repeat(n)
    );
    assert_eq!(codes(source), vec![Code::NestingTooDeep]);
    // Tuples in type position, with optional items and typed rests at every level.
    let source = format!(
        "/// t\ntool t {{ a: {}string{} }}",
        "[integer?, ...: ".repeat(n),
        "]".repeat(n)
    );
    assert_eq!(codes(source), vec![Code::NestingTooDeep]);
}

#[test]
fn brackets_after_a_raw_string_on_the_same_line_still_count() {
    // A raw string ending in a backslash, read as an ordinary string by the nesting pre-scan,
    // hid the rest of its line: these brackets then reached the parser and overflowed its stack.
    let n = 200_000;
    for raw in [r#"r"\""#, r###"r#"a"\"#"###] {
        let source = format!(
            "/// t\ntool t {{\n  a?: string @pattern({raw}) = {}1{}\n}}\n",
            "[".repeat(n),
            "]".repeat(n)
        );
        assert_eq!(codes(source), vec![Code::NestingTooDeep], "{raw}");
    }
}

#[test]
fn deep_tuples_below_the_source_limit_are_refused_by_the_schema_depth() {
    let d = 50;
    let source = format!(
        "/// t\ntool t {{ a: {}string{} }}",
        "[".repeat(d),
        "]".repeat(d)
    );
    assert_eq!(
        on_small_stack(move || codes(source)),
        vec![Code::SchemaTooDeep]
    );
}

#[test]
fn nesting_at_the_limit_compiles() {
    // 63 parentheses inside the tool's braces reach the limit of 64 exactly.
    let d = tooldef::limits::MAX_NESTING - 1;
    let source = format!(
        "/// t\ntool t {{ a: {}string{} }}",
        "(".repeat(d),
        ")".repeat(d)
    );
    assert_eq!(codes(source), Vec::<Code>::new());
}

#[test]
fn long_chains_of_array_suffixes_are_rejected() {
    let source = format!("/// t\ntool t {{ a: string{} }}", "[]".repeat(200_000));
    assert_eq!(codes(source), vec![Code::NestingTooDeep]);
}

#[test]
fn deep_literal_values_are_rejected() {
    let d = 40;
    let source = format!(
        "/// t\ntool t {{ a?: any = {}1{} }}",
        "[".repeat(d),
        "]".repeat(d)
    );
    assert_eq!(codes(source), vec![Code::NestingTooDeep]);
}

#[test]
fn long_chains_of_named_types_do_not_recurse_in_the_analyses() {
    // 20,000 aliases, each the array of the next: fine to define, too deep to inline.
    let n = 20_000;
    let mut source = String::from("/// t\ntool t { a: T0 }\n");
    for i in 0..n {
        source.push_str(&format!("type T{i} = T{}[]\n", i + 1));
    }
    source.push_str(&format!("type T{n} = string\n"));
    assert_eq!(codes(source), vec![Code::SchemaTooDeep]);
}

#[test]
fn a_long_cycle_of_required_types_is_found() {
    let n = 5_000;
    let mut source = String::new();
    for i in 0..n {
        source.push_str(&format!("type T{i} {{ next: T{} }}\n", (i + 1) % n));
    }
    let codes = codes(source);
    assert_eq!(codes.len(), n);
    assert!(codes.iter().all(|c| *c == Code::InfiniteRecursion));
}

#[test]
fn wide_files_compile() {
    let mut source = String::new();
    for i in 0..2_000 {
        source.push_str(&format!("/// Tool {i}.\ntool t{i} {{ a: string | integer | null, b?: \"x\" | \"y\" = \"x\" }}\n"));
    }
    source.push_str("/// Many fields.\ntool wide {\n");
    for i in 0..5_000 {
        source.push_str(&format!("  f{i}?: integer @min(0)\n"));
    }
    source.push_str("}\n");
    assert_eq!(codes(source), Vec::<Code>::new());
}

#[test]
fn invalid_utf8_is_a_diagnostic_with_its_position() {
    let mut bytes = b"/// ok\ntool t { a: string }\n// caf".to_vec();
    bytes.extend([0xC3, 0x28]);
    let errors = tooldef::compile_bytes(&bytes).expect_err("must fail");
    let d = errors.errors().next().expect("an error");
    assert_eq!(d.code, Code::InvalidUtf8);
    assert_eq!(d.span.start, bytes.len() - 2);
    let source = String::from_utf8_lossy(&bytes);
    let index = tooldef::LineIndex::new(&source);
    assert_eq!(index.line_col(&source, d.span.start), (3, 7));
}

#[test]
fn bom_and_crlf_are_accepted() {
    let source = "\u{FEFF}/// A tool.\r\n/// Second line.\r\ntool t {\r\n  /// Field.\r\n  a: string\r\n}\r\n";
    let compiled = tooldef::compile(source).expect("compiles");
    let tool = &compiled.module.tools[0];
    assert_eq!(tool.description, "A tool.\nSecond line.");
    assert_eq!(tool.params.fields[0].description.as_deref(), Some("Field."));
}

#[test]
fn formatting_keeps_the_line_endings_and_the_byte_order_mark() {
    let lf = "/// A tool.\n/// Second line.\ntool   t {\n  // a note\n  a:string\n}\n";
    let plain = tooldef::format(lf).expect("formats");
    assert!(
        !plain.contains('\r') && !plain.starts_with('\u{feff}'),
        "{plain:?}"
    );
    // The first line break decides; the layout is the same in either.
    for source in [
        lf.replace('\n', "\r\n"),
        format!("\u{feff}{lf}"),
        format!("\u{feff}{}", lf.replace('\n', "\r\n")),
        lf.replacen('\n', "\r\n", 1),
    ] {
        let out = tooldef::format(&source).expect("formats");
        let crlf = source
            .find('\n')
            .is_some_and(|i| source[..i].ends_with('\r'));
        let bom = source.starts_with('\u{feff}');
        assert_eq!(out.starts_with('\u{feff}'), bom, "{out:?}");
        assert_eq!(
            out.matches("\r\n").count(),
            if crlf { out.matches('\n').count() } else { 0 }
        );
        assert_eq!(
            out.trim_start_matches('\u{feff}').replace("\r\n", "\n"),
            plain,
            "{source:?}"
        );
        assert_eq!(tooldef::format(&out).expect("formats again"), out);
    }
}

#[test]
fn odd_unicode_in_names_and_strings_is_handled() {
    // Non-ASCII in quoted field names and descriptions is fine; bare identifiers are ASCII.
    let ok = "/// Grüße, 世界 🌍.\ntool t { \"名前\": string, \"emoji🌍\"?: \"é\" | \"ß\" }";
    assert!(tooldef::compile(ok).is_ok());
    let bad = "/// t\ntool t { 名前: string }";
    assert_eq!(codes(bad.to_string()), vec![Code::Syntax]);
    // A lone surrogate escape is rejected, not turned into a replacement character.
    let lone = "/// t\ntool t { a?: string = \"\\udc00\" }";
    assert_eq!(codes(lone.to_string()), vec![Code::Syntax]);
}

#[test]
fn huge_numbers_are_rejected_not_rounded() {
    for n in ["1e400", "-1e400", "123456789012345678901234567890"] {
        let source = format!("/// t\ntool t {{ a?: number = {n} }}");
        assert_eq!(codes(source), vec![Code::InvalidNumber], "{n}");
    }
}

#[test]
fn truncated_sources_never_panic() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/weather.tool"
    ))
    .expect("example");
    on_small_stack(move || {
        for (i, _) in source.char_indices() {
            let _ = tooldef::compile(&source[..i]);
        }
    });
}

#[test]
fn value_nesting_limit_counts_containers() {
    let at = |d: usize| {
        format!(
            "/// t\ntool t {{ a?: any = {}1{} }}",
            "[".repeat(d),
            "]".repeat(d)
        )
    };
    assert_eq!(
        codes(at(tooldef::limits::MAX_VALUE_DEPTH)),
        Vec::<Code>::new()
    );
    assert_eq!(
        codes(at(tooldef::limits::MAX_VALUE_DEPTH + 1)),
        vec![Code::NestingTooDeep]
    );
}

#[test]
fn negative_zero_is_a_number() {
    assert_eq!(
        codes("/// t\ntool t { a?: integer @min(-0) = -0 }".into()),
        Vec::<Code>::new()
    );
}
