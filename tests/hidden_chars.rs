//! The tool-poisoning guard (`src/hidden.rs`): every class of hidden character in every
//! position a model reads, in `.tool` source and through `import`, each next to a clean control
//! case that must pass.

use serde_json::{json, Value};
use tooldef::emit::{self, Target};
use tooldef::hidden::{self, Class};
use tooldef::import::{self, Options};
use tooldef::Code;

/// Every listed code point or range, by its first and last character, with the class the guard
/// must name. C0 controls are left to the positions that can hold them (see below): a raw one
/// would change how the source parses.
const HIDDEN: &[(char, Class)] = &[
    // Controls: DEL and C1.
    ('\u{7F}', Class::Control),
    ('\u{80}', Class::Control),
    ('\u{9F}', Class::Control),
    // Line and paragraph separators.
    ('\u{2028}', Class::LineSeparator),
    ('\u{2029}', Class::LineSeparator),
    // Tag characters.
    ('\u{E0000}', Class::Tag),
    ('\u{E0001}', Class::Tag),
    ('\u{E0041}', Class::Tag),
    ('\u{E007F}', Class::Tag),
    // Variation selectors, both blocks, and the Mongolian free variation selectors.
    ('\u{FE00}', Class::VariationSelector),
    ('\u{FE0F}', Class::VariationSelector),
    ('\u{E0100}', Class::VariationSelector),
    ('\u{E01EF}', Class::VariationSelector),
    ('\u{180B}', Class::VariationSelector),
    ('\u{180F}', Class::VariationSelector),
    // Bidirectional controls.
    ('\u{061C}', Class::BidiControl),
    ('\u{200E}', Class::BidiControl),
    ('\u{200F}', Class::BidiControl),
    ('\u{202A}', Class::BidiControl),
    ('\u{202E}', Class::BidiControl),
    ('\u{2066}', Class::BidiControl),
    ('\u{2069}', Class::BidiControl),
    // Hangul fillers.
    ('\u{115F}', Class::HangulFiller),
    ('\u{1160}', Class::HangulFiller),
    ('\u{3164}', Class::HangulFiller),
    ('\u{FFA0}', Class::HangulFiller),
    // Interlinear annotation characters.
    ('\u{FFF9}', Class::InterlinearAnnotation),
    ('\u{FFFB}', Class::InterlinearAnnotation),
    // Default-ignorable code points.
    ('\u{00AD}', Class::DefaultIgnorable),
    ('\u{034F}', Class::DefaultIgnorable),
    ('\u{17B4}', Class::DefaultIgnorable),
    ('\u{17B5}', Class::DefaultIgnorable),
    ('\u{180E}', Class::DefaultIgnorable),
    ('\u{200B}', Class::DefaultIgnorable),
    ('\u{200D}', Class::DefaultIgnorable),
    ('\u{2060}', Class::DefaultIgnorable),
    ('\u{2064}', Class::DefaultIgnorable),
    ('\u{FEFF}', Class::DefaultIgnorable),
    ('\u{1BCA0}', Class::DefaultIgnorable),
    ('\u{1BCA3}', Class::DefaultIgnorable),
    ('\u{1D173}', Class::DefaultIgnorable),
    ('\u{1D17A}', Class::DefaultIgnorable),
    ('\u{E0080}', Class::DefaultIgnorable),
    ('\u{E0FFF}', Class::DefaultIgnorable),
    // Other format characters.
    ('\u{0600}', Class::Format),
    ('\u{0605}', Class::Format),
    ('\u{06DD}', Class::Format),
    ('\u{110BD}', Class::Format),
];

/// Characters that show, in the same places, so that a position is known to accept text.
const VISIBLE: &[char] = &['x', 'é', '\u{00A0}', '中', '😀', '\u{0301}'];

fn label(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

/// A valid `.tool` source with `{c}` placed in one position.
struct Position {
    name: &'static str,
    source: fn(char) -> String,
    /// The code the guard reports there.
    code: Code,
    /// Whether the position holds only ASCII (tool names), so that its control case is `x`.
    ascii: bool,
}

const POSITIONS: &[Position] = &[
    Position {
        name: "tool name",
        source: |c| format!("/// Do it.\ntool \"a{c}b\" {{ x: string }}\n"),
        code: Code::InvalidName,
        ascii: true,
    },
    Position {
        name: "field name",
        source: |c| format!("/// Do it.\ntool t {{ \"a{c}b\": string }}\n"),
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "tool description",
        source: |c| format!("/// Do{c} it.\ntool t {{ x: string }}\n"),
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "field description",
        source: |c| format!("/// Do it.\ntool t {{\n  /// The{c} x.\n  x: string\n}}\n"),
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "type description",
        source: |c| {
            format!("/// A{c} point.\ntype P {{ x: number }}\n/// Do it.\ntool t {{ p: P }}\n")
        },
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "title",
        source: |c| format!("/// Do it.\n@title(\"T{c}\")\ntool t {{ x: string }}\n"),
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "enum value description",
        source: |c| {
            format!("enum Level {{\n  /// Low{c}.\n  low,\n  high\n}}\n/// Do it.\ntool t {{ l: Level }}\n")
        },
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "value of a documented enum",
        source: |c| {
            format!("enum Level {{\n  /// Low.\n  \"lo{c}w\",\n  high\n}}\n/// Do it.\ntool t {{ l: Level }}\n")
        },
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        // Spelled alike (`1`, `"1"`), so gemini-openapi cannot send them as a string enum and
        // folds them into the description.
        name: "string in an enum of strings and numbers spelled alike",
        source: |c| format!("/// Do it.\ntool t {{ l: \"a{c}\" | 1 | \"1\" }}\n"),
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "default folded by a target",
        source: |c| format!("/// Do it.\ntool t {{ x?: string = \"a{c}b\" }}\n"),
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "string deep in a folded default",
        source: |c| {
            format!("/// Do it.\ntool t {{ x?: map<string[]> = {{\"k\": [\"a\", \"b{c}\"]}} }}\n")
        },
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
    Position {
        name: "example",
        source: |c| format!("/// Do it.\ntool t {{ x: string @example(\"a{c}b\") }}\n"),
        code: Code::ForbiddenCharacter,
        ascii: false,
    },
];

fn codes(source: &str) -> Vec<Code> {
    match tooldef::compile(source) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors().map(|d| d.code).collect(),
    }
}

#[test]
fn every_class_is_named_by_the_guard() {
    for &(c, class) in HIDDEN {
        assert_eq!(hidden::class(c), Some(class), "{}", label(c));
    }
    for &c in VISIBLE {
        assert_eq!(hidden::class(c), None, "{}", label(c));
    }
}

#[test]
fn every_hidden_character_is_an_error_in_every_position() {
    let mut missed = Vec::new();
    for p in POSITIONS {
        let visible = if p.ascii { &['x'][..] } else { VISIBLE };
        for &c in visible {
            let source = (p.source)(c);
            assert_eq!(
                codes(&source),
                Vec::<Code>::new(),
                "{}: the control case with {} must compile:\n{source}",
                p.name,
                label(c)
            );
        }
        for &(c, _) in HIDDEN {
            let source = (p.source)(c);
            let found = codes(&source);
            if found != [p.code] {
                missed.push(format!("{} with {}: {found:?}", p.name, label(c)));
            }
        }
    }
    assert!(missed.is_empty(), "not flagged:\n{}", missed.join("\n"));
}

#[test]
fn messages_name_the_code_point_and_the_folding_targets() {
    let errors =
        tooldef::compile("/// Do it.\ntool t { x?: string = \"a\u{FE0F}b\" }\n").unwrap_err();
    let d = errors.errors().next().unwrap();
    assert_eq!(
        d.message,
        "default contains the invisible or control character U+FE0F"
    );
    let help = d.help.as_deref().unwrap();
    assert!(
        help.starts_with("this default is folded into the description by targets openai-strict, openai-responses, gemini, where the model reads it"),
        "{help}"
    );

    let errors = tooldef::compile("/// Do it.\ntool t { x?: string[] = [\"a\", \"\u{E0100}\"] }\n")
        .unwrap_err();
    let d = errors.errors().next().unwrap();
    assert_eq!(
        d.message,
        "default contains the invisible or control character U+E0100 (at /1 in the value)"
    );

    // A tool name keeps its code, and its message shows the character the source hides.
    let errors = tooldef::compile("/// Do it.\ntool \"a\u{200B}b\" {}\n").unwrap_err();
    let d = errors.errors().next().unwrap();
    assert_eq!(d.message, "`a<U+200B>b` is not a valid tool name");
    assert!(d
        .help
        .as_deref()
        .unwrap()
        .contains("U+200B (a default-ignorable"));
}

#[test]
fn control_characters_depend_on_the_position() {
    // A description may hold line feeds and tabs; a name or title holds no control at all.
    assert_eq!(codes("/// Do\tit.\n/// Now.\ntool t { x: string }\n"), []);
    assert_eq!(
        codes("/// Do it.\n@title(\"a\\tb\")\ntool t {}\n"),
        [Code::ForbiddenCharacter]
    );
    assert_eq!(
        codes("/// Do it.\ntool t { \"a\\u0000\": string }\n"),
        [Code::ForbiddenCharacter]
    );
    // A folded value is written as JSON, where C0 controls are escapes anyone can see...
    assert_eq!(
        codes("/// Do it.\ntool t { x?: string @example(\"a\\tb\") = \"line\\nbreak\\u0000\" }\n"),
        []
    );
    // ...but DEL and C1 controls are written as they are.
    assert_eq!(
        codes("/// Do it.\ntool t { x?: string = \"a\\u007f\" }\n"),
        [Code::ForbiddenCharacter]
    );
    assert_eq!(
        codes("/// Do it.\ntool t { x: string @example(\"a\\u0085\") }\n"),
        [Code::ForbiddenCharacter]
    );
}

#[test]
fn values_no_target_folds_stay_exempt() {
    for &(c, _) in HIDDEN {
        for source in [
            // An enum without descriptions is written as an `enum` keyword by every target.
            format!("/// Do it.\ntool t {{ l: \"a{c}\" | \"b\" }}\n"),
            format!("enum E {{ \"a{c}\", b }}\n/// Do it.\ntool t {{ e: E }}\n"),
            // A string literal is a `const` or a one-value `enum`.
            format!("/// Do it.\ntool t {{ l: \"a{c}\" }}\n"),
            // A literal array is a `const` (and no enum of Gemini's, which refuses it).
            format!("/// Do it.\ntool t {{ l: [\"a{c}\", 1] }}\n"),
            format!("/// Do it.\ntool t {{ l: [\"a{c}\"] | 1 }}\n"),
            // Strings with numbers spelled apart: gemini-openapi sends them as a string enum.
            format!("/// Do it.\ntool t {{ l: \"a{c}\" | 1 }}\n"),
        ] {
            assert_eq!(codes(&source), [], "{}:\n{source}", label(c));
        }
    }
}

/// Every string under a `description` key of an emitted document.
fn descriptions(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("description", Value::String(s)) => out.push(s.clone()),
                    _ => descriptions(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| descriptions(v, out)),
        _ => {}
    }
}

/// The targets a hidden character's help names (`… by targets a, b, where …`), read from the
/// diagnostic of `source` with `MARK` holding a hidden character.
fn named_folding_targets(source: &str) -> Vec<String> {
    let errors = tooldef::compile(source).unwrap_err();
    let d = errors.errors().next().unwrap();
    let help = d.help.as_deref().unwrap_or_default();
    let Some((_, rest)) = help.split_once(" by targets ") else {
        return Vec::new();
    };
    let list = rest.split_once(", where").map_or(rest, |(l, _)| l);
    list.split(", ").map(str::to_string).collect()
}

#[test]
fn the_folding_targets_are_those_that_fold() {
    const MARK: &str = "ZZMARK";
    let cases = [
        format!("/// Do it.\ntool t {{\n  /// X.\n  x?: string = \"{MARK}\"\n}}\n"),
        format!("/// Do it.\ntool t {{\n  /// X.\n  x: string @example(\"{MARK}\")\n}}\n"),
        format!("enum E {{\n  /// First.\n  \"{MARK}\",\n  b\n}}\n/// Do it.\ntool t {{\n  /// X.\n  x: E\n}}\n"),
        // Values that gemini-openapi cannot spell apart (`1 | "1"`), so it folds them.
        format!("/// Do it.\ntool t {{\n  /// X.\n  x: \"{MARK}\" | 1 | \"1\"\n}}\n"),
        format!("/// Do it.\ntool t {{\n  /// X.\n  x: \"{MARK}\" | true | \"true\"\n}}\n"),
        // A word boundary, which anthropic-strict's regular expressions lack, so it folds it.
        format!("/// Do it.\ntool t {{\n  /// X.\n  x: string @pattern(\"\\\\b{MARK}\")\n}}\n"),
        format!("/// Do it.\ntool t {{\n  /// X.\n  x: \"{MARK}\" | true\n}}\n"),
    ];
    for source in cases {
        // The help of the hidden character names the targets that fold the value.
        let expected = named_folding_targets(&source.replace(MARK, "ZZ\u{FE0F}MARK"));
        assert!(!expected.is_empty(), "{source}");
        let module = tooldef::compile(&source).unwrap().module;
        for &target in Target::ALL {
            let named = expected.iter().any(|t| t == target.as_str());
            let Ok(out) = emit::tools(&module, target, &emit::Options::default()) else {
                // A target that cannot express the value (OpenAI strict mode and a literal
                // array) folds nothing.
                assert!(!named, "{source}: {}", target.as_str());
                continue;
            };
            let mut texts = Vec::new();
            descriptions(&out.json, &mut texts);
            let folds = texts.iter().any(|d| d.contains(MARK));
            assert_eq!(folds, named, "{source} for {}: {texts:?}", target.as_str());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Import

fn mcp_tool(description: &str, title: &str, property: Value) -> Value {
    json!({ "tools": [{
        "name": "t",
        "title": title,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": { "x": property },
            "additionalProperties": false,
        },
    }]})
}

fn deny() -> Options {
    Options {
        deny_hidden: true,
        ..Options::default()
    }
}

/// Each importable position: a document with `{c}` in it, and the pointer of the place.
fn import_positions(c: char) -> Vec<(&'static str, Value, &'static str)> {
    let plain = json!({"type": "string"});
    vec![
        (
            "tool description",
            mcp_tool(&format!("Do{c} it."), "T", plain.clone()),
            "/tools/0/description",
        ),
        (
            "title",
            mcp_tool("Do it.", &format!("T{c}"), plain.clone()),
            "/tools/0/title",
        ),
        (
            "property description",
            mcp_tool(
                "Do it.",
                "T",
                json!({"type": "string", "description": format!("The{c} x.")}),
            ),
            "/tools/0/inputSchema/properties/x/description",
        ),
        (
            "default",
            mcp_tool(
                "Do it.",
                "T",
                json!({"type": "string", "default": format!("a{c}")}),
            ),
            "/tools/0/inputSchema/properties/x/default",
        ),
        (
            "example",
            mcp_tool(
                "Do it.",
                "T",
                json!({"type": "string", "examples": ["ok", format!("a{c}")]}),
            ),
            "/tools/0/inputSchema/properties/x/examples/1",
        ),
    ]
}

#[test]
fn import_warns_at_the_pointer_and_removes_the_character() {
    for &c in VISIBLE {
        for (name, doc, _) in import_positions(c) {
            let imported = import::import_mcp(&doc, &Options::default()).unwrap();
            assert!(
                imported.warnings.is_empty(),
                "{name} with {}: {:?}",
                label(c),
                imported.warnings
            );
        }
    }
    for &(c, _) in HIDDEN {
        for (name, doc, pointer) in import_positions(c) {
            let imported = import::import_mcp(&doc, &Options::default())
                .unwrap_or_else(|e| panic!("{name} with {}: {e}", label(c)));
            let at: Vec<&str> = imported
                .warnings
                .iter()
                .map(|w| w.pointer.as_str())
                .collect();
            assert_eq!(at, [pointer], "{name} with {}", label(c));
            assert!(
                imported.warnings[0].message.contains(&label(c)),
                "{}",
                imported.warnings[0].message
            );
            assert!(
                hidden::find(&imported.source, hidden::Text::Prose).is_none(),
                "{name} with {}: {}",
                label(c),
                imported.source
            );
        }
    }
}

#[test]
fn import_with_deny_hidden_is_an_error_at_the_pointer() {
    for &c in VISIBLE {
        for (name, doc, _) in import_positions(c) {
            assert!(
                import::import_mcp(&doc, &deny()).is_ok(),
                "{name} with {}",
                label(c)
            );
        }
    }
    for &(c, _) in HIDDEN {
        for (name, doc, pointer) in import_positions(c) {
            let err = import::import_mcp(&doc, &deny())
                .err()
                .unwrap_or_else(|| panic!("{name} with {} was imported", label(c)));
            let at: Vec<&str> = err.issues.iter().map(|i| i.pointer.as_str()).collect();
            assert_eq!(at, [pointer], "{name} with {}", label(c));
        }
    }
}

#[test]
fn import_refuses_what_it_cannot_clean() {
    // A property name is data the tool reads: never renamed.
    let doc = json!({"tools": [{"name": "t", "description": "Do it.", "inputSchema": {
        "type": "object", "properties": {"a\u{FE0F}": {"type": "string"}}}}]});
    let err = import::import_mcp(&doc, &Options::default()).unwrap_err();
    assert_eq!(
        err.issues[0].pointer,
        "/tools/0/inputSchema/properties/a\u{FE0F}"
    );
    // An enum that Gemini writes into the description (its values are spelled alike, so it
    // cannot send them as strings), with a hidden string in it.
    let doc = json!({"tools": [{"name": "t", "description": "Do it.", "inputSchema": {
        "type": "object", "properties": {"l": {"enum": ["a", 1, "b\u{E0041}", "1"]}}}}]});
    let err = import::import_mcp(&doc, &Options::default()).unwrap_err();
    assert_eq!(
        err.issues[0].pointer,
        "/tools/0/inputSchema/properties/l/enum/2"
    );
    // An enum of strings only is data, written as `enum` by every target.
    let doc = json!({"tools": [{"name": "t", "description": "Do it.", "inputSchema": {
        "type": "object", "properties": {"l": {"enum": ["a", "b\u{E0041}"]}}}}]});
    assert!(import::import_mcp(&doc, &deny()).is_ok());
}

#[test]
fn every_import_dialect_applies_the_guard() {
    let description = "Do\u{E0049}\u{E0067} it.";
    let schema = json!({"type": "object", "properties": {}});
    let docs = [
        (
            import::Dialect::OpenAi,
            json!([{"type": "function", "function": {"name": "t", "description": description, "parameters": schema}}]),
            "/0/function/description",
        ),
        (
            import::Dialect::Anthropic,
            json!([{"name": "t", "description": description, "input_schema": schema}]),
            "/0/description",
        ),
        (
            import::Dialect::Gemini,
            json!([{"name": "t", "description": description, "parameters": schema}]),
            "/0/description",
        ),
        (
            import::Dialect::JsonSchema,
            json!({"title": "t", "description": description, "type": "object"}),
            "/description",
        ),
    ];
    for (dialect, doc, pointer) in docs {
        let imported = import::import(&doc, dialect, &Options::default()).unwrap();
        let at: Vec<&str> = imported
            .warnings
            .iter()
            .map(|w| w.pointer.as_str())
            .filter(|p| p.ends_with("description"))
            .collect();
        assert_eq!(at, [pointer], "{}", dialect.as_str());
        let err = import::import(&doc, dialect, &deny()).unwrap_err();
        assert_eq!(err.issues[0].pointer, pointer, "{}", dialect.as_str());
    }
}
