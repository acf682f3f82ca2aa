//! The queries, each asked where a user would ask it.

use serde_json::json;

use super::*;
use crate::diagnostic::Code;

const WEATHER: &str = r#"/// Temperature unit.
enum Unit {
  /// Degrees Celsius.
  celsius
  fahrenheit
}

/// A point on Earth.
type Point {
  /// Latitude in degrees.
  lat: number @min(-90) @max(90)
  lon: number
}

/// Return the weather.
@read_only
tool forecast -> Report {
  /// The city, e.g. "Paris".
  city: string @min_length(1)
  /// The temperature scale of the answer.
  unit?: Unit = "celsius"
  /// Coordinates, when given.
  at?: Point | null = { lat: 1, lon: 2 }
  /// More coordinates to compare.
  points?: Point[] @example([{ "lat": 3, lon: 4 }])
}

type Report { temperature: number }
"#;

const KEY: &str = "file:///w/weather.tool";

fn analysis(text: &str) -> Analysis {
    let mut a = Analysis::new();
    a.set(KEY, text);
    a
}

/// The offset of the `n`th (0-based) occurrence of `needle` in `text`, plus `into`.
fn at(text: &str, needle: &str, n: usize, into: usize) -> usize {
    text.match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("{needle:?} occurs {} times", n + 1))
        .0
        + into
}

fn texts<'t>(text: &'t str, locations: &[Location]) -> Vec<&'t str> {
    locations
        .iter()
        .map(|l| &text[l.span.start..l.span.end])
        .collect()
}

/// Applies edits (of one document) from the last to the first.
fn apply(text: &str, edits: &[Edit]) -> String {
    let mut edits = edits.to_vec();
    edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    let mut out = text.to_string();
    for e in edits {
        out.replace_range(e.span.start..e.span.end, &e.new_text);
    }
    out
}

#[test]
fn diagnostics_are_what_compile_reports() {
    let a = analysis("tool t { a: strng }");
    let codes: Vec<&str> = a.diagnostics(KEY).iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes,
        ["missing-description", "undescribed-field", "unknown-type"]
    );
    let unknown = &a.diagnostics(KEY)[2];
    assert_eq!(unknown.span, Span::new(12, 17));

    assert!(analysis(WEATHER).diagnostics(KEY).is_empty());
    assert!(analysis(WEATHER)
        .diagnostics("file:///other.tool")
        .is_empty());
    // A warning alone: the source compiles and the warning is reported.
    let warned = analysis("type T = string | string");
    assert_eq!(warned.diagnostics(KEY)[0].code.as_str(), "redundant-union");
}

#[test]
fn hover_on_a_field_shows_it_as_written_and_its_schema() {
    let a = analysis(WEATHER);
    let h = a.hover(KEY, at(WEATHER, "city:", 0, 2)).expect("a hover");
    assert_eq!(&WEATHER[h.span.start..h.span.end], "city");
    assert_eq!(h.code, "city: string @min_length(1)");
    assert_eq!(h.description.as_deref(), Some("The city, e.g. \"Paris\"."));
    assert_eq!(h.constraints, ["@min_length(1)"]);
    assert_eq!(
        h.schema,
        Some(json!({"description": "The city, e.g. \"Paris\".", "type": "string", "minLength": 1}))
    );

    // A field of a named type, through an enum, and with a default.
    let lat = a.hover(KEY, at(WEATHER, "lat:", 0, 0)).expect("a hover");
    assert_eq!(lat.constraints, ["@min(-90)", "@max(90)"]);
    assert_eq!(lat.schema.as_ref().unwrap()["maximum"], 90);
    let unit = a.hover(KEY, at(WEATHER, "unit?", 0, 1)).expect("a hover");
    assert_eq!(unit.code, "unit?: Unit = \"celsius\"");
    let schema = unit.schema.expect("a schema");
    assert_eq!(schema["enum"], json!(["celsius", "fahrenheit"]));
    assert_eq!(schema["default"], "celsius");
}

#[test]
fn hover_on_a_recursive_field_carries_the_defs_it_refers_to() {
    let text = "/// A tree.\ntype Node { children: Node[] }\n/// d\ntool t { root: Node }";
    let a = analysis(text);
    let root = a.hover(KEY, at(text, "root", 0, 0)).expect("a hover");
    let schema = root.schema.expect("a schema");
    assert_eq!(schema["$ref"], "#/$defs/Node");
    assert_eq!(schema["$defs"]["Node"]["type"], "object");
}

#[test]
fn hover_without_a_model_still_shows_the_field() {
    let broken = WEATHER.replace("lon: number\n", "lon: numbr\n");
    let a = analysis(&broken);
    let h = a.hover(KEY, at(&broken, "city:", 0, 0)).expect("a hover");
    assert_eq!(h.code, "city: string @min_length(1)");
    assert_eq!(h.schema, None);
}

#[test]
fn hover_on_types_tools_and_builtins() {
    let a = analysis(WEATHER);
    // A use of an enum shows its definition, description and schema.
    let unit = a.hover(KEY, at(WEATHER, "Unit =", 0, 1)).expect("a hover");
    assert_eq!(&WEATHER[unit.span.start..unit.span.end], "Unit");
    assert!(unit.code.starts_with("enum Unit {\n"), "{}", unit.code);
    assert_eq!(unit.description.as_deref(), Some("Temperature unit."));
    assert_eq!(
        unit.schema.unwrap()["enum"],
        json!(["celsius", "fahrenheit"])
    );
    // The definition's own name too.
    let point = a.hover(KEY, at(WEATHER, "Point {", 0, 0)).expect("a hover");
    assert_eq!(point.description.as_deref(), Some("A point on Earth."));
    let schema = point.schema.expect("a schema");
    assert_eq!(schema["required"], json!(["lat", "lon"]));
    assert_eq!(schema.get("$schema"), None);

    let tool = a
        .hover(KEY, at(WEATHER, "forecast", 0, 3))
        .expect("a hover");
    assert!(
        tool.code
            .starts_with("@read_only\ntool forecast -> Report {\n  city: string @min_length(1)\n"),
        "{}",
        tool.code
    );
    assert!(tool.code.ends_with("\n}"));
    assert_eq!(tool.description.as_deref(), Some("Return the weather."));

    let string = a.hover(KEY, at(WEATHER, "string", 0, 0)).expect("a hover");
    assert_eq!(string.code, "string");
    assert_eq!(string.description.as_deref(), Some("Any string."));
}

#[test]
fn hover_has_nothing_to_say_between_names_or_past_the_end() {
    let a = analysis(WEATHER);
    assert_eq!(a.hover(KEY, 0), None, "in a doc comment");
    assert_eq!(a.hover(KEY, WEATHER.len() + 1), None);
    assert_eq!(a.hover(KEY, usize::MAX), None);
    assert_eq!(a.hover("file:///nowhere.tool", 0), None);
}

#[test]
fn definition_of_a_type_a_value_key_and_a_field() {
    let a = analysis(WEATHER);
    let def = a
        .definition(KEY, at(WEATHER, "Point | null", 0, 2))
        .expect("defined");
    assert_eq!(def.document, KEY);
    assert_eq!(def.span.start, at(WEATHER, "Point {", 0, 0));
    assert_eq!(&WEATHER[def.span.start..def.span.end], "Point");

    // `lat` in the default goes to the field of `Point`.
    let key = a
        .definition(KEY, at(WEATHER, "lat: 1", 0, 1))
        .expect("a field");
    assert_eq!(key.span.start, at(WEATHER, "lat: number", 0, 0));

    assert_eq!(a.definition(KEY, at(WEATHER, "string", 0, 0)), None);
    let undefined = "/// d\ntool t { a: Nope }";
    assert_eq!(
        analysis(undefined).definition(KEY, at(undefined, "Nope", 0, 0)),
        None
    );
}

#[test]
fn references_of_a_type_and_of_a_field() {
    let a = analysis(WEATHER);
    let point = at(WEATHER, "Point[]", 0, 0);
    let all = a.references(KEY, point, true);
    assert_eq!(texts(WEATHER, &all), ["Point", "Point", "Point"]);
    assert_eq!(all[0].span.start, at(WEATHER, "Point {", 0, 0));
    let uses = a.references(KEY, point, false);
    assert_eq!(uses.len(), 2);

    let lat = a.references(KEY, at(WEATHER, "lat: number", 0, 0), true);
    // The field, the key of the default and the quoted key of the example.
    assert_eq!(texts(WEATHER, &lat), ["lat", "lat", "\"lat\""]);
    assert!(a.references(KEY, 0, true).is_empty());
}

#[test]
fn rename_a_type_changes_every_use() {
    let a = analysis(WEATHER);
    let edits = a
        .rename(KEY, at(WEATHER, "Point | null", 0, 0), "Place")
        .expect("renamed");
    assert_eq!(edits.len(), 3);
    let renamed = apply(WEATHER, &edits);
    assert!(!renamed.contains("Point"));
    assert_eq!(renamed.matches("Place").count(), 3);
    assert!(crate::compile(&renamed).is_ok());
}

#[test]
fn rename_a_field_changes_the_keys_that_name_it() {
    let a = analysis(WEATHER);
    let edits = a
        .rename(KEY, at(WEATHER, "lat: 1", 0, 0), "latitude")
        .expect("renamed");
    let renamed = apply(WEATHER, &edits);
    assert!(renamed.contains("latitude: number"));
    assert!(renamed.contains("{ latitude: 1, lon: 2 }"));
    // A quoted key stays quoted.
    assert!(renamed.contains("[{ \"latitude\": 3, lon: 4 }]"));
    assert!(crate::compile(&renamed).is_ok(), "{renamed}");
}

#[test]
fn rename_refuses_what_would_break_the_file() {
    let a = analysis(WEATHER);
    let point = at(WEATHER, "Point {", 0, 0);
    assert!(matches!(
        a.rename(KEY, point, "Unit"),
        Err(RenameError::Taken {
            what: "type or enum",
            ..
        })
    ));
    assert_eq!(
        a.rename(KEY, point, "string"),
        Err(RenameError::Reserved("string".into()))
    );
    assert_eq!(
        a.rename(KEY, point, "true"),
        Err(RenameError::Reserved("true".into()))
    );
    assert_eq!(
        a.rename(KEY, point, "2d"),
        Err(RenameError::NotAnIdentifier("2d".into()))
    );
    assert_eq!(
        a.rename(KEY, point, "first-name"),
        Err(RenameError::NotAnIdentifier("first-name".into()))
    );
    let lat = at(WEATHER, "lat: number", 0, 0);
    let Err(RenameError::Taken { at: taken, .. }) = a.rename(KEY, lat, "lon") else {
        panic!("lon is taken");
    };
    assert_eq!(taken.span.start, at(WEATHER, "lon: number", 0, 0));
    assert_eq!(a.rename(KEY, lat, "lat"), Ok(Vec::new()));
    assert_eq!(
        a.rename(KEY, at(WEATHER, "forecast", 0, 0), "x"),
        Err(RenameError::Tool)
    );
    assert_eq!(
        a.rename(KEY, at(WEATHER, "string", 0, 0), "x"),
        Err(RenameError::Builtin("string".into()))
    );
    assert_eq!(a.rename(KEY, 0, "x"), Err(RenameError::Nothing));
    let broken = analysis("type T { a: string");
    assert_eq!(broken.rename(KEY, 5, "U"), Err(RenameError::Syntax));
    assert_eq!(
        a.prepare_rename(KEY, at(WEATHER, "Report {", 0, 2)),
        Ok((
            Span::new(at(WEATHER, "Report {", 0, 0), at(WEATHER, "Report {", 0, 6)),
            "Report".to_string()
        ))
    );
}

fn labels(c: &Completions) -> Vec<&str> {
    c.items.iter().map(|i| i.label.as_str()).collect()
}

/// The completions at the `$` in `source` (which is taken out).
fn complete(source: &str) -> Completions {
    let offset = source.find('$').expect("a cursor");
    let text = source.replacen('$', "", 1);
    analysis(&text)
        .completions(KEY, offset)
        .expect("completions")
}

#[test]
fn completion_of_types() {
    let c = complete("type P { x: number }\nenum E { a }\n/// d\ntool t { a: $ }");
    assert_eq!(
        labels(&c),
        ["string", "integer", "number", "boolean", "any", "null", "never", "map", "P", "E"]
    );
    assert!(c.span.is_empty());
    // A name being typed is replaced whole.
    let c = complete("tool t { a: str$ing }");
    assert_eq!(c.span, Span::new(12, 18));
    assert!(labels(&c).contains(&"string"));
    // After `->`, `|`, `=` of an alias, `map<`, in a tuple and a group.
    for source in [
        "type A { x: string }\ntool t -> $ {}",
        "tool t { a: string | $ }",
        "type T = $",
        "tool t { a: map<$> }",
        "tool t { a: [string, $] }",
        "tool t { a: ($)[] }",
        "tool t { a: { b: $ } }",
    ] {
        assert!(labels(&complete(source)).contains(&"integer"), "{source}");
    }
    // Not where a name or a value goes.
    for source in [
        "tool t { $ }",
        "tool t { a: string @min_length($) }",
        "tool t { a?: string = $ }",
        "tool t { a: string[$] }",
    ] {
        assert!(!labels(&complete(source)).contains(&"integer"), "{source}");
    }
}

#[test]
fn completion_of_attributes() {
    let string = complete("/// d\ntool t { a: string @$ }");
    assert_eq!(
        labels(&string),
        [
            "min_length",
            "max_length",
            "pattern",
            "format",
            "deprecated",
            "example"
        ]
    );
    let pattern = &string.items[2];
    assert_eq!(pattern.snippet.as_deref(), Some("pattern(\"$1\")"));
    assert_eq!(pattern.kind, CompletionKind::Attribute);
    let number = complete("tool t { a: integer @min(1) @m$ }");
    assert_eq!(number.span, Span::new(29, 30));
    assert!(labels(&number).contains(&"multiple_of"));
    assert!(!labels(&number).contains(&"min_length"));
    let array = complete("tool t { a: string[] @$ }");
    assert!(labels(&array).contains(&"unique"));
    // After an annotation, only annotations; on a named type, only annotations.
    assert_eq!(
        labels(&complete("tool t { a: string @deprecated @$ }")),
        ["deprecated", "example"]
    );
    assert_eq!(
        labels(&complete("type P { x: number }\ntool t { a: P @$ }")),
        ["deprecated", "example"]
    );
    // Before a tool, the tool attributes; before a type or enum, `@deprecated`.
    let tool = complete("/// d\n@$\ntool t {}");
    assert!(labels(&tool).contains(&"read_only"));
    assert!(labels(&tool).contains(&"retry"));
    assert_eq!(labels(&complete("@$\ntype T = string")), ["deprecated"]);
    // A tool and an object type also take the rules across their keys; so do objects and maps.
    assert!(labels(&tool).contains(&"exactly_one_of"));
    assert!(labels(&complete("@$\ntype T { a?: string }")).contains(&"requires"));
    assert!(!labels(&complete("@$\nenum E { a }")).contains(&"requires"));
    let map = complete("tool t { a: map<string> @$ }");
    assert!(labels(&map).contains(&"max_properties"));
    assert!(!labels(&map).contains(&"unique"));
}

#[test]
fn completion_of_values() {
    let c = complete("enum U { c, f, \"g h\", 3 }\ntool t { u?: U = $ }");
    assert_eq!(labels(&c), ["\"c\"", "\"f\"", "\"g h\"", "3"]);
    assert_eq!(c.items[0].detail.as_deref(), Some("U"));
    // In a string being typed, the string is replaced.
    let text = "enum U { c, f }\ntool t { u?: U | null = \"c$ }";
    let c = complete(text);
    assert_eq!(labels(&c), ["\"c\"", "\"f\"", "null"]);
    let quote = text.find('"').unwrap();
    assert_eq!(c.span, Span::new(quote, quote + 2), "up to the cursor");
    let text = "enum U { c, f }\ntool t { u?: U = \"c$\" }";
    let c = complete(text);
    assert_eq!(
        c.span,
        Span::new(quote - 7, quote - 7 + 3),
        "the whole string"
    );
    // The literals of a union, in an example.
    let c = complete("tool t { f?: \"html\" | \"md\" @example($) }");
    assert_eq!(labels(&c), ["\"html\"", "\"md\""]);
}

#[test]
fn completion_of_keywords_and_nothing_in_comments() {
    assert_eq!(labels(&complete("$")), ["tool", "type", "enum"]);
    assert_eq!(
        labels(&complete("type T = string\n\ntype U { a: T }\n$")),
        ["tool", "type", "enum"]
    );
    let text = "// a comment: $\n";
    let offset = text.find('$').unwrap();
    assert_eq!(
        analysis(&text.replace('$', "")).completions(KEY, offset),
        None
    );
    assert_eq!(analysis("").completions(KEY, 5), None);
}

#[test]
fn symbols_outline_the_file() {
    let a = analysis(WEATHER);
    let symbols = a.symbols(KEY);
    let top: Vec<(&str, SymbolKind)> = symbols.iter().map(|s| (s.name.as_str(), s.kind)).collect();
    assert_eq!(
        top,
        [
            ("Unit", SymbolKind::Enum),
            ("Point", SymbolKind::Object),
            ("forecast", SymbolKind::Tool),
            ("Report", SymbolKind::Object)
        ]
    );
    let values: Vec<&str> = symbols[0]
        .children
        .iter()
        .map(|c| &WEATHER[c.name_span.start..c.name_span.end])
        .collect();
    assert_eq!(values, ["celsius", "fahrenheit"]);
    let tool = &symbols[2];
    assert_eq!(tool.detail.as_deref(), Some("-> Report"));
    let fields: Vec<(&str, Option<&str>)> = tool
        .children
        .iter()
        .map(|c| (c.name.as_str(), c.detail.as_deref()))
        .collect();
    assert_eq!(
        fields,
        [
            ("city", Some(": string @min_length(1)")),
            ("unit", Some("?: Unit")),
            ("at", Some("?: Point | null")),
            ("points", Some("?: Point[]")),
        ]
    );
    assert_eq!(
        &WEATHER[tool.name_span.start..tool.name_span.end],
        "forecast"
    );
    assert!(analysis("type T {").symbols(KEY).is_empty());
}

#[test]
fn inline_objects_are_children_of_their_field() {
    let text = "type T { a?: { b: string, c: { d: integer } }[] | null }";
    let symbols = analysis(text).symbols(KEY);
    let a = &symbols[0].children[0];
    let inner: Vec<&str> = a.children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(inner, ["b", "c"]);
    assert_eq!(a.children[1].children[0].name, "d");
}

#[test]
fn format_edits_produce_the_formatted_text() {
    let text = "/// Hé 🙂.\ntool   t {a: string,   b?: integer=1}\n";
    let a = analysis(text);
    let edit = a.format(KEY).expect("formats").expect("an edit");
    let formatted = crate::format(text).unwrap();
    assert_eq!(apply(text, &[edit]), formatted);
    assert_eq!(analysis(&formatted).format(KEY), Ok(None));
    assert!(analysis("tool {").format(KEY).is_err());
}

#[test]
fn changed_part_keeps_characters_whole() {
    assert_eq!(changed_part("aé", "aè"), Some((Span::new(1, 3), "è")));
    assert_eq!(changed_part("ab", "ab"), None);
    assert_eq!(changed_part("abc", "abxbc"), Some((Span::new(2, 2), "xb")));
    assert_eq!(changed_part("", "x"), Some((Span::new(0, 0), "x")));
    assert_eq!(changed_part("🙂", "😀"), Some((Span::new(0, 4), "😀")));
}

#[test]
fn documents_are_kept_by_key() {
    let mut a = Analysis::new();
    a.set("b.tool", "type B = string");
    a.set("a.tool", "type A = string");
    assert_eq!(a.keys().collect::<Vec<_>>(), ["a.tool", "b.tool"]);
    a.set("a.tool", "type A = integer");
    assert_eq!(a.text("a.tool"), Some("type A = integer"));
    assert!(a.parses("a.tool"));
    assert!(a.remove("a.tool"));
    assert!(!a.remove("a.tool"));
    assert!(!a.parses("a.tool"));
    // A name resolves in its own document only (until imports).
    let c = "/// d\ntool t { b: B }";
    a.set("c.tool", c);
    assert_eq!(a.definition("c.tool", at(c, "B", 0, 0)), None);
}

/// Every query at every offset of every prefix of the examples and of broken texts: answers,
/// never a panic.
#[test]
fn every_query_anywhere_answers() {
    let mut sources: Vec<String> =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples"))
            .expect("the examples")
            .map(|e| std::fs::read_to_string(e.expect("an entry").path()).expect("a source"))
            .collect();
    sources.sort();
    sources.truncate(3);
    sources.push(WEATHER.to_string());
    sources.push("é🙂 @ { [ ( < \" r#\" // \u{0} tool type enum : -> | = ...".to_string());
    let mut a = Analysis::new();
    for source in &sources {
        let ends: Vec<usize> = (0..=source.len())
            .filter(|&i| source.is_char_boundary(i))
            .collect();
        for &end in ends.iter().step_by(7) {
            let text = &source[..end];
            a.set(KEY, text);
            for offset in [0, end / 2, end, end + 1] {
                ask_everything(&a, offset);
            }
        }
        a.set(KEY, source.as_str());
        for offset in 0..=source.len() + 1 {
            ask_everything(&a, offset);
        }
    }
}

fn ask_everything(a: &Analysis, offset: usize) {
    let _ = a.hover(KEY, offset);
    let _ = a.definition(KEY, offset);
    let _ = a.references(KEY, offset, true);
    let _ = a.completions(KEY, offset);
    let _ = a.prepare_rename(KEY, offset);
    if let Ok(edits) = a.rename(KEY, offset, "renamed") {
        let text = a.text(KEY).unwrap_or("");
        for e in &edits {
            assert!(text.get(e.span.start..e.span.end).is_some(), "{e:?}");
        }
    }
    let _ = a.symbols(KEY);
    let _ = a.diagnostics(KEY);
}

#[test]
fn imports_resolve_into_other_documents_and_recompile_their_importers() {
    let common = "/// A place.\ntype Address {\n  street: string\n}\n";
    let a =
        "import { Address } from \"./lib/common.tool\"\n\n/// Ships.\ntool ship {\n  /// Where it goes.\n  to: Address\n}\n";
    let mut analysis = Analysis::new();
    analysis.set("file:///w/lib/common.tool", common);
    analysis.set("file:///w/a.tool", a);
    assert!(analysis.diagnostics("file:///w/a.tool").is_empty());

    // Go to definition from the use and from the import list lands in the other document.
    for offset in [at(a, "Address", 1, 2), at(a, "Address", 0, 2)] {
        let found = analysis
            .definition("file:///w/a.tool", offset)
            .expect("a definition");
        assert_eq!(found.document, "file:///w/lib/common.tool");
        assert_eq!(&common[found.span.start..found.span.end], "Address");
    }

    // Breaking the imported file is seen by its importer, which is named as affected.
    analysis.set(
        "file:///w/lib/common.tool",
        "type Adress { street: string }\n",
    );
    assert!(analysis
        .affected_by("file:///w/lib/common.tool")
        .contains(&"file:///w/a.tool".to_string()));
    let codes: Vec<Code> = analysis
        .diagnostics("file:///w/a.tool")
        .iter()
        .map(|d| d.code)
        .collect();
    assert!(codes.contains(&Code::UnresolvedImport), "{codes:?}");
}

#[test]
fn an_import_of_a_file_that_is_not_open_is_read_from_disk() {
    let dir = std::env::temp_dir().join(format!("tooldef-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("common.tool"), "type Money { amount: number }\n").expect("write");
    let a = "import { Money } from \"./common.tool\"\n/// Pays.\ntool pay {\n  /// What it costs.\n  price: Money\n}\n";
    let key = format!("{}/a.tool", dir.display());
    let mut analysis = Analysis::new();
    analysis.set(key.clone(), a);
    assert!(
        analysis.diagnostics(&key).is_empty(),
        "{:?}",
        analysis.diagnostics(&key)
    );
    let found = analysis
        .definition(&key, at(a, "Money", 1, 1))
        .expect("a definition");
    assert!(
        found.document.ends_with("common.tool"),
        "{}",
        found.document
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn references_and_rename_reach_the_files_that_import_a_type() {
    let common = "type Address {\n  street: string\n}\n";
    let a = "import { Address } from \"./common.tool\"\n/// Ships.\ntool ship { to: Address, from: Address }\n";
    let mut analysis = Analysis::new();
    analysis.set("file:///w/common.tool", common);
    analysis.set("file:///w/a.tool", a);
    let at_definition = at(common, "Address", 0, 1);
    let refs = analysis.references("file:///w/common.tool", at_definition, true);
    let in_a: Vec<&str> = refs
        .iter()
        .filter(|l| l.document == "file:///w/a.tool")
        .map(|l| &a[l.span.start..l.span.end])
        .collect();
    assert_eq!(in_a, ["Address", "Address", "Address"], "{refs:?}");
    let edits = analysis
        .rename("file:///w/a.tool", at(a, "Address", 1, 1), "Place")
        .expect("renames");
    assert_eq!(
        edits.len(),
        4,
        "the definition, the import and both uses: {edits:?}"
    );
}

#[test]
fn completion_offers_imported_types() {
    let c = complete(
        "import { Address, Money } from \"./c.tool\"\ntype P { x: number }\n/// d\ntool t { a: $ }",
    );
    let got = labels(&c);
    for name in ["Address", "Money", "P", "string"] {
        assert!(got.contains(&name), "{name}: {got:?}");
    }
    // The braces of an import leave the depth as it was: a later enum still counts.
    let c = complete("import { A } from \"./c.tool\"\nenum E { a }\n/// d\ntool t { a: $ }");
    assert!(labels(&c).contains(&"E"), "{:?}", labels(&c));
}

/// An editor's keys are paths or URIs, joined as text by the rule every loader follows: `..`
/// past the folders of a relative key is kept, and never climbs above a root.
#[test]
fn import_paths_of_editor_keys_keep_dots_past_the_top() {
    let open = BTreeMap::new();
    let loader = EditorLoader {
        open: &open,
        disk: crate::FileLoader::default(),
    };
    for (from, path, want) in [
        ("a/b/c/main.tool", "../../shared.tool", "a/shared.tool"),
        ("main.tool", "../../shared.tool", "../../shared.tool"),
        ("c/main.tool", "../../../x.tool", "../../x.tool"),
        ("./a/./b/main.tool", "./../x.tool", "a/x.tool"),
        ("/w/a.tool", "../../x.tool", "/x.tool"),
        ("/a.tool", "..", "/"),
        ("file:///w/a.tool", "../../x.tool", "file:///x.tool"),
        ("file:///w/a.tool", "..", "file:///"),
    ] {
        assert_eq!(
            crate::Loader::resolve(&loader, from, path),
            want,
            "{from} + {path}"
        );
    }
}

/// A change recompiles only the documents whose compilation asked for the changed one, read or
/// not. The old analysis recompiled every document that imports anything: 1,000 documents,
/// each importing a different missing file, took 500,500 compilations (45 s in a release
/// build); now each open compiles one.
#[test]
fn a_change_recompiles_only_the_documents_that_asked_for_it() {
    const DOCUMENTS: usize = 1_000;
    let mut analysis = Analysis::new();
    let mut affected = 0;
    for i in 0..DOCUMENTS {
        let key = format!("file:///w/d{i}.tool");
        let text =
            format!("import {{ A }} from \"./nope{i}.tool\"\n/// T.\n@allow(undescribed-field)\ntool t{i} {{ a: A }}\n");
        analysis.set(key.clone(), text);
        let now = analysis.affected_by(&key);
        assert_eq!(now, std::slice::from_ref(&key));
        affected += now.len();
    }
    assert_eq!(affected, DOCUMENTS);

    // A file that one of them failed to import, opened now, is seen by that one alone.
    let missing = "file:///w/nope7.tool";
    let d7 = "file:///w/d7.tool";
    assert!(!analysis.diagnostics(d7).is_empty());
    analysis.set(missing, "type A { a: string }\n");
    assert_eq!(analysis.affected_by(missing), [d7, missing]);
    assert!(
        analysis.diagnostics(d7).is_empty(),
        "{:?}",
        analysis.diagnostics(d7)
    );

    // Through an import of an import: `top` reaches `nope7` through `d7`.
    let top = "file:///w/top.tool";
    analysis.set(top, "import { A } from \"./nope7.tool\"\nimport { B } from \"./mid.tool\"\n/// T.\ntool top { a: A, b: B }\n");
    analysis.set(
        "file:///w/mid.tool",
        "import { A } from \"./leaf.tool\"\ntype B { a: A }\n",
    );
    assert_eq!(
        analysis.affected_by("file:///w/leaf.tool"),
        ["file:///w/mid.tool", top]
    );
    // Opened, then closed: the two that asked for it are recompiled each time, and still
    // ask for it once it is back on (missing from) disk.
    analysis.set("file:///w/leaf.tool", "type A { a: string }\n");
    analysis.remove("file:///w/leaf.tool");
    assert_eq!(
        analysis.affected_by("file:///w/leaf.tool"),
        ["file:///w/mid.tool", top]
    );
}

/// The analysis keeps one compiled model at a time, however many documents import one file:
/// a hover that needs another document's model compiles it again, and one made before a change
/// to a file it read is never used after it. The old analysis kept every document's model: 201
/// here, one a document, each importer's holding the shared file's.
#[test]
fn documents_that_share_an_import_keep_one_compiled_model() {
    const DOCUMENTS: usize = 200;
    let shared = "file:///w/shared.tool";
    let mut analysis = Analysis::new();
    analysis.set(shared, "type A { a: string @min_length(1) }\n");
    let text = "import { A } from \"./shared.tool\"\n/// T.\ntool t {\n  /// What to handle.\n  item: A\n}\n";
    let key = |i: usize| format!("file:///w/d{i}.tool");
    for i in 0..DOCUMENTS {
        analysis.set(key(i), text);
        assert_eq!(analysis.models(), 1);
    }
    let item = at(text, "item", 0, 1);
    let min_length = |a: &Analysis, i: usize| {
        let hover = a.hover(&key(i), item).expect("a hover");
        hover.schema.expect("a schema")["properties"]["a"]["minLength"].clone()
    };
    for i in [0, DOCUMENTS - 1, 0, 0] {
        assert_eq!(min_length(&analysis, i), 1);
        assert_eq!(analysis.models(), 1);
    }

    // A change to the shared file recompiles every importer; the model kept before it, d0's,
    // is not asked again: the hover shows the new constraint.
    analysis.set(shared, "type A { a: string @min_length(2) }\n");
    assert_eq!(analysis.models(), 1);
    for i in [0, 1] {
        assert_eq!(min_length(&analysis, i), 2);
        assert_eq!(analysis.models(), 1);
    }

    // A document with errors has no model to ask for, and a hover there makes none.
    analysis.set(shared, "type A { a: Missing }\n");
    assert_eq!(analysis.hover(&key(0), item).expect("a hover").schema, None);
    assert_eq!(analysis.models(), 0);
    assert!(!analysis.diagnostics(shared).is_empty());
    assert!(analysis.diagnostics(&key(0)).is_empty());
}

#[test]
fn rename_keeps_a_quoted_name_quoted() {
    // Found by fuzzing: the quoted field name `"h"` follows `string` with no space, and the
    // rename wrote the new name bare, so `string"h"` became `stringrenamed`.
    let source = "/// Does t.\ntool t {\n  b?: { g: string\"h\": \"x\" } = { g: \"z\", \"h\": \"x\" }\n  c?: { r#\"k\"#: string } = { r\"k\": \"y\" }\n}\n";
    let a = analysis(source);
    assert!(crate::compile(source).is_ok());
    // (the name, a point inside it, the new name, two pieces of the result)
    let cases = [
        (
            "\"h\"",
            1,
            "renamed",
            ["string\"renamed\": \"x\"", "\"z\", \"renamed\": \"x\" }"],
        ),
        (
            "r#\"k\"#",
            3,
            "key",
            ["{ \"key\": string }", "= { \"key\": \"y\" }"],
        ),
    ];
    for (name, inside, new_name, expected) in cases {
        let edits = a
            .rename(KEY, at(source, name, 0, inside), new_name)
            .expect("renamed");
        assert_eq!(edits.len(), 2, "{name}");
        let renamed = apply(source, &edits);
        for piece in expected {
            assert!(renamed.contains(piece), "{piece} in {renamed}");
        }
        assert!(crate::compile(&renamed).is_ok(), "{renamed}");
    }
}

#[test]
fn completion_in_a_file_of_many_definitions_lists_each_once() {
    // Each definition was looked for among the ones before it: 40,000 types and 40,000 enums
    // took minutes to complete a type.
    let n = 40_000;
    let mut source = String::new();
    for i in 0..n {
        source.push_str(&format!("type T{i} = string\nenum E{i} {{ a{i} }}\n"));
    }
    // Defined twice: listed once, the first members kept.
    source.push_str("type T0 = integer\nenum E0 { other }\n/// d\ntool t { a: $, b?: E0 = a }\n");
    let c = complete(&source);
    let labels = labels(&c);
    assert_eq!(labels.iter().filter(|l| **l == "T0").count(), 1);
    assert_eq!(labels.iter().filter(|l| **l == "E0").count(), 1);
    assert!(labels.contains(&"T39999") && labels.contains(&"E39999"));
}

#[test]
fn completion_of_a_large_enum_offers_each_value_once() {
    // Each value was looked for among those offered before it: quadratic in the members.
    let n = 50_000;
    let members: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
    let source = format!(
        "enum Big {{ {} m0 }}\n/// d\ntool t {{ a?: Big | \"m1\" = $ }}\n",
        members.join(" ")
    );
    let c = complete(&source);
    let labels = labels(&c);
    assert_eq!(labels.len(), n, "{:?}", &labels[..3]);
    assert_eq!(labels[0], "\"m0\"");
    assert_eq!(labels[n - 1], format!("\"m{}\"", n - 1));
}
