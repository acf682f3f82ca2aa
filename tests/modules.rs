//! Modules: `import { A } from "./x.tool"` across files, through an in-memory loader.

use tooldef::{compile_with, Code, Diagnostic, FileLoader, Loader, MemoryLoader};

fn loader(files: &[(&str, &str)]) -> MemoryLoader {
    let mut l = MemoryLoader::new();
    for (name, text) in files {
        l.insert(name, *text);
    }
    l
}

/// Compiles `root` of `files`; the diagnostics as (code, file or "", line) triples.
fn diagnose(files: &[(&str, &str)], root: &str) -> Vec<(Code, String, usize)> {
    let l = loader(files);
    let text = files
        .iter()
        .find(|(n, _)| *n == root)
        .map_or("", |(_, t)| *t);
    let diags: Vec<Diagnostic> = match compile_with(root, text, &l) {
        Ok(c) => c.warnings,
        Err(e) => e.diagnostics,
    };
    diags
        .iter()
        .map(|d| {
            let (name, source) = match &d.file {
                Some(s) => (s.name().to_string(), s.text().to_string()),
                None => (String::new(), text.to_string()),
            };
            let line = source[..d.span.start.min(source.len())]
                .matches('\n')
                .count()
                + 1;
            (d.code, name, line)
        })
        .collect()
}

const COMMON: &str = "/// A postal address.\ntype Address {\n  street: string\n  city: string\n}\n\n/// An amount.\ntype Money {\n  amount: number\n  currency: Currency\n}\n\nenum Currency { EUR USD }\n\n/// A tree.\ntype Tree {\n  label: string\n  children?: Tree[]\n}\n";

#[test]
fn shared_types_compile_into_the_importing_tool() {
    let a = "import { Address, Money } from \"./common.tool\"\n\n/// Ships.\ntool ship {\n  /// Where it goes.\n  to: Address\n  /// What it costs.\n  price: Money\n}\n";
    let l = loader(&[("common.tool", COMMON), ("a.tool", a)]);
    let compiled = compile_with("a.tool", a, &l).expect("compiles");
    assert!(compiled.warnings.is_empty(), "{:?}", compiled.warnings);
    let names: Vec<&str> = compiled
        .module
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["ship"]);
    let out = tooldef::emit::tools(
        &compiled.module,
        tooldef::emit::Target::JsonSchema,
        &tooldef::emit::Options::default(),
    )
    .expect("emits");
    let text = out.json.to_string();
    // `Currency` is reached through `Money` without being imported by `a.tool`.
    assert!(
        text.contains("\"street\"") && text.contains("\"EUR\""),
        "{text}"
    );
}

#[test]
fn a_recursive_type_from_another_file_keeps_its_recursion() {
    let a = "import { Tree } from \"./lib/common.tool\"\n\n/// Draws.\ntool draw { tree: Tree }\n";
    let l = loader(&[("lib/common.tool", COMMON), ("a.tool", a)]);
    let compiled = compile_with("a.tool", a, &l).expect("compiles");
    let out = tooldef::emit::tools(
        &compiled.module,
        tooldef::emit::Target::JsonSchema,
        &tooldef::emit::Options::default(),
    )
    .expect("emits");
    let text = out.json.to_string();
    assert!(text.contains("$ref") && text.contains("Tree"), "{text}");
}

#[test]
fn paths_are_relative_to_the_importing_file() {
    let a = "import { Address } from \"../lib/common.tool\"\n/// T.\ntool t { a: Address }\n";
    let l = loader(&[("lib/common.tool", COMMON), ("api/a.tool", a)]);
    assert!(compile_with("api/a.tool", a, &l).is_ok());
}

/// The JSON Schema of a build's tools, as text.
fn emitted(compiled: &tooldef::Compiled) -> String {
    tooldef::emit::tools(
        &compiled.module,
        tooldef::emit::Target::JsonSchema,
        &tooldef::emit::Options::default(),
    )
    .expect("emits")
    .json
    .to_string()
}

/// A path that climbs out of the root's folder climbs as far as it says: two `..` from `main.tool`
/// are `../../shared.tool`, not the `shared.tool` beside it. Each `..` after the first used to
/// take back the `..` before it, so the import silently compiled the decoy next to `main.tool`
/// (and seven of them from `a/b/c/main.tool` on disk reached `../etc/passwd`).
#[test]
fn leading_dots_climb_past_the_root_folder() {
    let main = "import { Money } from \"../../shared.tool\"\n/// T.\ntool t { m: Money }\n";
    let l = loader(&[
        ("../../shared.tool", "type Money { cents: integer }\n"),
        ("shared.tool", "type Money { wrong: string }\n"),
        ("main.tool", main),
    ]);
    for root in ["main.tool", "./main.tool"] {
        let compiled = compile_with(root, main, &l).expect("compiles");
        let text = emitted(&compiled);
        assert!(
            text.contains("cents") && !text.contains("wrong"),
            "{root}: {text}"
        );
    }
    // Climbing from a folder: `c/../../../x` is `../../x`.
    let deep = "import { Money } from \"../../../shared.tool\"\n/// T.\ntool t { m: Money }\n";
    let l = loader(&[
        ("../../shared.tool", "type Money { cents: integer }\n"),
        ("shared.tool", "type Money { wrong: string }\n"),
        ("c/main.tool", deep),
    ]);
    let compiled = compile_with("c/main.tool", deep, &l).expect("compiles");
    let text = emitted(&compiled);
    assert!(text.contains("cents") && !text.contains("wrong"), "{text}");
}

#[test]
fn a_circle_of_imports_is_an_error_with_the_chain() {
    let a = "import { B } from \"./b.tool\"\ntype A { b?: B }\n/// T.\ntool t { a: A }\n";
    let b = "import { A } from \"./a.tool\"\ntype B { a?: A }\n";
    let l = loader(&[("a.tool", a), ("b.tool", b)]);
    let errors = compile_with("a.tool", a, &l).expect_err("a cycle");
    let cycle = errors
        .diagnostics
        .iter()
        .find(|d| d.code == Code::ImportCycle)
        .expect("an import-cycle error");
    assert!(
        cycle.message.contains("a.tool → b.tool → a.tool"),
        "{}",
        cycle.message
    );
    // Reported where the circle closes: in b.tool.
    assert_eq!(cycle.file.as_ref().map(|s| s.name()), Some("b.tool"));
}

#[test]
fn clashes_unknown_names_and_unused_imports_are_reported_with_their_places() {
    let a = concat!(
        "import { Address, Money, Adress } from \"./common.tool\"\n", // line 1
        "import { Tree } from \"./common.tool\"\n",                   // line 2
        "import { Gone } from \"./missing.tool\"\n",                  // line 3
        "type Tree = string\n",                                       // line 4
        "/// T.\n",
        "tool t {\n",
        "  /// A.\n",
        "  a: Address\n",
        "  /// C.\n",
        "  c: Currency\n", // line 10: defined in common.tool, not imported
        "  /// D.\n",
        "  d: Nowhere\n", // line 12: defined nowhere
        "}\n",
    );
    let got = diagnose(&[("common.tool", COMMON), ("a.tool", a)], "a.tool");
    let s = String::new;
    assert_eq!(
        got,
        [
            (Code::UnusedImport, s(), 1),
            (Code::UnresolvedImport, s(), 1),
            (Code::DuplicateName, s(), 2),
            (Code::UnresolvedImport, s(), 3),
            (Code::UnknownType, s(), 10),
            (Code::UnknownType, s(), 12),
        ]
    );
    let l = loader(&[("common.tool", COMMON), ("a.tool", a)]);
    let errors = compile_with("a.tool", a, &l).expect_err("errors");
    let by = |code: Code, line_text: &str| {
        errors
            .diagnostics
            .iter()
            .find(|d| d.code == code && a[d.span.start..d.span.end].contains(line_text))
            .unwrap_or_else(|| panic!("no {code} at {line_text}"))
            .clone()
    };
    let typo = by(Code::UnresolvedImport, "Adress");
    assert_eq!(typo.help.as_deref(), Some("did you mean `Address`?"));
    let not_imported = by(Code::UnknownType, "Currency");
    assert_eq!(
        not_imported.help.as_deref(),
        Some("add `import { Currency } from \"./common.tool\"`")
    );
    // The related place is in the other file, and says so.
    let related = &not_imported.related[0];
    assert_eq!(related.file.as_ref().map(|s| s.name()), Some("common.tool"));
    assert_eq!(&COMMON[related.span.start..related.span.end], "Currency");
    let clash = by(Code::DuplicateName, "Tree");
    assert_eq!(
        &a[clash.related[0].span.start..clash.related[0].span.end],
        "Tree"
    );
}

#[test]
fn errors_in_an_imported_file_name_that_file() {
    let common = "type Address {\n  street: Strng\n}\n";
    let a =
        "import { Address } from \"./common.tool\"\n/// T.\ntool t {\n  /// A.\n  a: Address\n}\n";
    let got = diagnose(&[("common.tool", common), ("a.tool", a)], "a.tool");
    assert_eq!(got, [(Code::UnknownType, "common.tool".to_string(), 2)]);
}

#[test]
fn the_same_type_name_in_two_files_is_a_duplicate() {
    let common = "type Id = string\ntype Address { id: Id }\n";
    let a = "import { Address } from \"./common.tool\"\ntype Id = integer\n/// T.\ntool t { a: Address, id: Id }\n";
    let l = loader(&[("common.tool", common), ("a.tool", a)]);
    let errors = compile_with("a.tool", a, &l).expect_err("a duplicate");
    let d = errors
        .diagnostics
        .iter()
        .find(|d| d.code == Code::DuplicateName)
        .expect("duplicate-name");
    let places: Vec<Option<&str>> = std::iter::once(d.file.as_ref().map(|s| s.name()))
        .chain(d.related.iter().map(|r| r.file.as_ref().map(|s| s.name())))
        .collect();
    assert!(places.contains(&Some("common.tool")), "{places:?}");
}

#[test]
fn a_source_with_imports_compiled_alone_says_it_needs_a_loader() {
    let errors = tooldef::compile("import { A } from \"./a.tool\"\n").expect_err("needs a loader");
    assert_eq!(errors.diagnostics[0].code, Code::UnresolvedImport);
    assert!(errors.diagnostics[0]
        .help
        .as_deref()
        .unwrap_or("")
        .contains("compile_with"));
}

#[test]
fn fmt_keeps_imports_together_and_canonical() {
    let src = "import {Address,Money} from \"./common.tool\"\nimport { Tree } from r\"./t.tool\"\n\n\n/// T.\ntool t { a: Address }\n";
    let out = tooldef::format(src).expect("formats");
    assert_eq!(
        out,
        "import { Address, Money } from \"./common.tool\"\nimport { Tree } from r\"./t.tool\"\n\n/// T.\ntool t {\n  a: Address\n}\n"
    );
}

/// A chain of `n` files, each importing the next; `alias` makes each type an alias of the next
/// (a chain as deep as the files), otherwise each type stands alone beside an alias of the next.
fn chain(n: usize, alias: bool) -> Result<usize, Vec<Code>> {
    let mut l = MemoryLoader::new();
    for i in 0..n {
        let text = match (i + 1 < n, alias) {
            (true, true) => {
                format!("import {{ T{j} }} from \"./f{j}.tool\"\ntype T{i} = T{j}\n", j = i + 1)
            }
            (true, false) => format!(
                "import {{ T{j} }} from \"./f{j}.tool\"\ntype T{i} {{ x?: string }}\ntype U{i} = T{j}\n",
                j = i + 1
            ),
            (false, _) => format!("type T{i} = string\n"),
        };
        l.insert(format!("f{i}.tool"), text);
    }
    let root = "import { T0 } from \"./f0.tool\"\n/// T.\ntool t { a: T0 }\n";
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            compile_with("root.tool", root, &l)
                .map(|c| c.module.types.len())
                .map_err(|e| e.errors().map(|d| d.code).collect())
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow")
}

#[test]
fn a_long_chain_of_imports_loads_without_recursion_and_keeps_the_depth_limit() {
    // 3,000 files, each importing the next: a recursive loader would need a deep stack.
    assert_eq!(chain(3_000, false), Ok(2 * 3_000 - 1));
    // Imports do not get around the depth limit: an alias chain across files is still a chain.
    assert_eq!(chain(3_000, true), Err(vec![Code::SchemaTooDeep]));
}

/// One build reads at most `MAX_BUILD_FILES` files: importing one more is one error, at the
/// import that goes over, and a build of exactly the limit has none.
#[test]
fn a_build_reads_at_most_the_file_limit() {
    let max = tooldef::limits::MAX_BUILD_FILES;
    let build = |imports: usize| {
        let mut l = MemoryLoader::new();
        let mut root = String::new();
        for i in 0..imports {
            l.insert(format!("f{i}.tool"), format!("type A{i} = string\n"));
            root.push_str(&format!("import {{ A{i} }} from \"./f{i}.tool\"\n"));
        }
        let diags = match compile_with("root.tool", &root, &l) {
            Ok(c) => c.warnings,
            Err(e) => e.diagnostics,
        };
        diags
            .into_iter()
            .filter(|d| d.message.contains("files"))
            .map(|d| (d.code, d.span.start, root.len()))
            .collect::<Vec<_>>()
    };
    // The root is one of the files.
    assert!(build(max - 1).is_empty());
    let over = build(max);
    assert_eq!(over.len(), 1, "{over:?}");
    assert_eq!(over[0].0, Code::UnresolvedImport);
    // At the last import line.
    assert!(over[0].1 > over[0].2 - 40, "{over:?}");
}

/// The files of one build hold at most `MAX_BUILD_BYTES` together, so imports cannot get around
/// the limit on one source: two files each under it, over it together, are an error at the
/// second import.
#[test]
fn a_build_holds_at_most_the_byte_limit_across_files() {
    let max = tooldef::limits::MAX_BUILD_BYTES;
    let half = format!("type {{}}\n// {}\n", "x".repeat(max / 2 + 16));
    let mut l = MemoryLoader::new();
    l.insert("a.tool", half.replace("type {}", "type A {}"));
    l.insert("b.tool", half.replace("type {}", "type B {}"));
    let root = "import { A } from \"./a.tool\"\nimport { B } from \"./b.tool\"\n";
    let errors = compile_with("root.tool", root, &l).expect_err("over the limit");
    let over: Vec<&Diagnostic> = errors
        .errors()
        .filter(|d| d.message.contains("bytes"))
        .collect();
    assert_eq!(over.len(), 1, "{:?}", errors.diagnostics);
    // At the path of the second import.
    let second = root.find("\"./b.tool\"").unwrap_or(0);
    assert_eq!(over[0].span.start, second);
}

/// An import names a file: a device, a pipe or a folder is refused before anything is read from
/// it. Reading one would wait for a writer that never comes (a FIFO), or read the process's own
/// input (`/dev/stdin`: the protocol stream of `tooldef lsp`) as a source.
#[cfg(unix)]
#[test]
fn an_import_that_is_not_a_regular_file_is_refused_unread() {
    use std::sync::mpsc;
    use std::time::Duration;

    let dir = std::env::temp_dir().join(format!("tooldef-not-a-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe.tool");
    let _ = std::fs::remove_file(&fifo);
    let folder = dir.join("folder.tool");
    std::fs::create_dir_all(&folder).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    // Devices are refused as files that are not `.tool` sources; a folder or a pipe that is
    // named like one, as what it is.
    let mut targets = vec![
        "/dev/stdin".to_string(),
        "/dev/null".to_string(),
        dir.display().to_string(),
        folder.display().to_string(),
    ];
    if made {
        targets.push(fifo.display().to_string());
    } else {
        eprintln!("notice: mkfifo is unavailable; the FIFO case is skipped");
    }
    for target in targets {
        // Run where a read that blocks cannot hang the test: a wait that never returns fails.
        let (sent, got) = mpsc::channel();
        let name = target.clone();
        std::thread::spawn(move || {
            let _ = sent.send(FileLoader::default().load(&name));
        });
        let loaded = got
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("loading `{target}` waited on a read"));
        let error = loaded.expect_err(&target);
        let why = if target.ends_with(".tool") {
            "not a regular file"
        } else {
            "not a `.tool` source"
        };
        assert!(error.contains(why), "{target}: {error}");
        assert!(error.contains(&target), "{target}: {error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
