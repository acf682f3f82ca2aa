//! Every problem an import reports carries a stable code: the checker's when the checker found it
//! (tests/import_checked.rs), and otherwise the importer's own. Each case below is one input
//! read from text, as `tooldef import` reads it, with the exact pointers and codes it must give.

use std::collections::HashSet;

use tooldef::import::{self, Dialect, ImportError, Imported, Options};
use tooldef::Code;

/// Reads `text` as `tooldef import --from <dialect>` does.
fn run(dialect: Dialect, text: &str) -> Result<Imported, ImportError> {
    import::parse_input(text).and_then(|doc| import::import(&doc, dialect, &Options::default()))
}

fn refused(dialect: Dialect, text: &str) -> ImportError {
    match run(dialect, text) {
        Ok(m) => panic!("{text} imported:\n{}", m.source),
        Err(e) => e,
    }
}

fn imported(dialect: Dialect, text: &str) -> Imported {
    run(dialect, text).unwrap_or_else(|e| panic!("{text} was refused:\n{e}"))
}

/// The pointer and code of each issue.
fn issues(err: &ImportError) -> Vec<(&str, Code)> {
    err.issues
        .iter()
        .map(|i| (i.pointer.as_str(), i.code))
        .collect()
}

/// The pointer and code of each warning.
fn warnings(m: &Imported) -> Vec<(&str, Code)> {
    m.warnings
        .iter()
        .map(|w| (w.pointer.as_str(), w.code))
        .collect()
}

use Dialect::{Bfcl, JsonSchema as Js, Mcp, OpenAi};

/// An input in a format, and the pointer and code of everything the import says about it.
type Case = (Dialect, &'static str, &'static [(&'static str, Code)]);

/// Inputs that cannot be imported, with the pointer and code of every issue.
const REFUSED: &[Case] = &[
    // Text that is not JSON, nor JSON Lines.
    (Js, "{", &[("", Code::ImportNotJson)]),
    (Js, "{}\n{\"type\":", &[("", Code::ImportNotJson)]),
    // A key given twice, in a document and in a line of JSON Lines.
    (
        Js,
        r#"{"type": "object", "properties": {"a": {}, "a": {"type": "string"}}}"#,
        &[("/properties/a", Code::ImportDuplicateKey)],
    ),
    (
        Bfcl,
        "{\"name\": \"a\", \"parameters\": {}}\n{\"name\": \"b\", \"name\": \"c\"}",
        &[("/1/name", Code::ImportDuplicateKey)],
    ),
    // A document of another format.
    (
        Js,
        r#"[{"type": "function", "function": {"name": "t", "parameters": {}}}]"#,
        &[("/0", Code::ImportWrongFormat)],
    ),
    (
        Js,
        r#"{"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}"#,
        &[("/tools/0", Code::ImportWrongFormat)],
    ),
    // Where a schema belongs, something else.
    (Js, "5", &[("", Code::ImportNotASchema)]),
    (
        Js,
        r#"{"type": "object", "properties": {"a": "string"}}"#,
        &[("/properties/a", Code::ImportNotASchema)],
    ),
    (
        Js,
        r#"{"type": "object", "additionalProperties": 1}"#,
        &[("/additionalProperties", Code::ImportNotASchema)],
    ),
    (
        Mcp,
        r#"{"tools": [{"name": "t", "description": "T.", "inputSchema": true}]}"#,
        &[("/tools/0/inputSchema", Code::ImportNotASchema)],
    ),
    // A keyword whose value it does not take.
    (
        Js,
        r#"{"type": "object", "required": "a"}"#,
        &[("/required", Code::ImportInvalidKeyword)],
    ),
    (
        Js,
        r#"{"type": "strng"}"#,
        &[("/type", Code::ImportInvalidKeyword)],
    ),
    (
        Js,
        r#"{"type": "string", "minLength": 1.5}"#,
        &[("/minLength", Code::ImportInvalidKeyword)],
    ),
    (
        Js,
        r##"{"type": "object", "properties": {"a": {"$ref": 1}}}"##,
        &[("/properties/a/$ref", Code::ImportInvalidKeyword)],
    ),
    (
        Js,
        r#"{"$defs": [], "type": "string"}"#,
        &[("/$defs", Code::ImportInvalidKeyword)],
    ),
    // An entry of a tool format that is no tool.
    (
        Mcp,
        r#"{"tools": [{"description": "T.", "inputSchema": {"type": "object"}}]}"#,
        &[("/tools/0", Code::ImportInvalidTool)],
    ),
    (
        Mcp,
        r#"{"tools": [{"name": "t", "description": "T.", "inputSchema": {"type": "string"}}]}"#,
        &[("/tools/0/inputSchema", Code::ImportInvalidTool)],
    ),
    // What the language cannot express.
    (
        Js,
        r#"{"type": "object", "properties": {"a": {"not": {"type": "string"}}}}"#,
        &[("/properties/a/not", Code::ImportUnsupported)],
    ),
    (
        Js,
        r#"{"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}"#,
        &[("/properties/a/$ref", Code::ImportUnsupported)],
    ),
    (
        Js,
        r#"{"anyOf": [{"type": "string"}], "oneOf": [{"type": "integer"}]}"#,
        &[("", Code::ImportUnsupported)],
    ),
    (
        Js,
        r#"{"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 2}]}"#,
        &[("/oneOf/1", Code::ImportUnsupported)],
    ),
    (
        Js,
        r#"{"$defs": {"A": {}}, "definitions": {"B": {}}, "type": "string"}"#,
        &[("/definitions", Code::ImportUnsupported)],
    ),
    (
        OpenAi,
        r#"[{"type": "web_search"}]"#,
        &[("/0/type", Code::ImportUnsupported)],
    ),
    // A reference to no definition.
    (
        Js,
        r##"{"type": "object", "properties": {"a": {"$ref": "#/$defs/B"}}, "$defs": {"A": {}}}"##,
        &[("/properties/a/$ref", Code::ImportUnresolvedRef)],
    ),
    // A schema no value fits.
    (
        Js,
        r#"{"anyOf": []}"#,
        &[("/anyOf", Code::ImportUnsatisfiable)],
    ),
    (
        Js,
        r#"{"type": []}"#,
        &[("/type", Code::ImportUnsatisfiable)],
    ),
    (
        Js,
        r#"{"type": "object", "properties": {"a": {}}, "required": ["b"], "additionalProperties": false}"#,
        &[("/required", Code::ImportUnsatisfiable)],
    ),
];

/// Inputs that import, with the pointer and code of every warning.
const REPAIRED: &[Case] = &[
    // Left out: an annotation, an unknown keyword, an unknown format, a value that never fits.
    (
        Js,
        r#"{"description": "D.", "type": "object", "properties": {
            "a": {"type": "string", "readOnly": true},
            "b": {"type": "string", "x-internal": 1},
            "c": {"type": "string", "format": "colour"},
            "d": {"type": "string", "enum": ["x", 1]}
        }}"#,
        &[
            ("/properties/a/readOnly", Code::ImportDropped),
            ("/properties/b/x-internal", Code::ImportDropped),
            ("/properties/c/format", Code::ImportDropped),
            ("/properties/d", Code::ImportDropped),
        ],
    ),
    // Objects closed by a tool format (a tool's parameters are closed even when they declare
    // none, so the cases of the tool formats below give this warning too).
    (
        Mcp,
        r#"{"tools": [{"name": "t", "description": "T.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]}"#,
        &[("", Code::ImportClosedObject)],
    ),
    // Read as the warning says: a BFCL type name, a tool without parameters, a bare schema that
    // is no object.
    (
        Bfcl,
        r#"{"name": "t", "description": "T.",
            "parameters": {"type": "dict", "properties": {"s": {"type": "String"}}}}"#,
        &[
            ("/parameters/properties/s/type", Code::ImportInterpreted),
            ("", Code::ImportClosedObject),
        ],
    ),
    (
        Mcp,
        r#"{"tools": [{"name": "t", "description": "T."}]}"#,
        &[
            ("/tools/0/inputSchema", Code::ImportInterpreted),
            ("", Code::ImportClosedObject),
        ],
    ),
    (
        Js,
        r#"{"type": "string"}"#,
        &[("", Code::ImportInterpreted)],
    ),
    // The checker's rules, repaired by the importer with the checker's codes.
    (
        Mcp,
        r#"{"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}"#,
        &[
            ("/tools/0/description", Code::MissingDescription),
            ("", Code::ImportClosedObject),
        ],
    ),
    (
        Mcp,
        r#"{"tools": [{"name": "t", "description": "Do\u200b it.",
            "inputSchema": {"type": "object"}}]}"#,
        &[
            ("/tools/0/description", Code::ForbiddenCharacter),
            ("", Code::ImportClosedObject),
        ],
    ),
    (
        Mcp,
        r#"{"tools": [{"name": "a.b", "description": "T.", "inputSchema": {"type": "object"}}]}"#,
        &[
            ("/tools/0/name", Code::InvalidName),
            ("", Code::ImportClosedObject),
        ],
    ),
    (
        Mcp,
        r#"{"tools": [{"name": "t", "description": "T.", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "destructiveHint": true}}]}"#,
        &[
            ("/tools/0/annotations", Code::ConflictingAttributes),
            ("", Code::ImportClosedObject),
        ],
    ),
];

#[test]
fn each_refused_input_gives_its_codes_at_its_pointers() {
    for (dialect, text, want) in REFUSED {
        let err = refused(*dialect, text);
        assert_eq!(issues(&err), *want, "{text}\n{err}");
    }
}

#[test]
fn each_repaired_input_gives_its_codes_at_its_pointers() {
    for (dialect, text, want) in REPAIRED {
        let m = imported(*dialect, text);
        assert_eq!(warnings(&m), *want, "{text}");
    }
}

#[test]
fn every_import_code_has_a_case() {
    let mut seen: HashSet<Code> = HashSet::new();
    for (_, _, want) in REFUSED.iter().chain(REPAIRED) {
        seen.extend(want.iter().map(|(_, c)| *c));
    }
    for code in Code::ALL {
        if code.as_str().starts_with("import-") && *code != Code::ImportCycle {
            assert!(seen.contains(code), "no case gives `{code}`");
        }
    }
}

#[test]
fn a_schema_deeper_than_the_importer_follows_is_schema_too_deep() {
    let mut schema = r#"{"type": "string"}"#.to_string();
    for _ in 0..70 {
        schema = format!(r#"{{"type": "array", "items": {schema}}}"#);
    }
    let err = refused(Js, &schema);
    assert_eq!(
        issues(&err),
        [("/items".repeat(64).as_str(), Code::SchemaTooDeep)]
    );
}

#[test]
fn the_issue_names_its_code_and_its_keyword() {
    let err = refused(
        Js,
        r#"{"type": "object", "properties": {"a": {"not": {"type": "string"}}}}"#,
    );
    assert_eq!(err.issues[0].keyword.as_deref(), Some("not"));
    assert_eq!(
        err.to_string(),
        "at /properties/a/not: [import-unsupported] the keyword `not` has no equivalent in the language"
    );
    let err = refused(Js, "{");
    assert!(
        err.to_string()
            .starts_with("at /: [import-not-json] not JSON: "),
        "{err}"
    );
    let m = imported(Js, r#"{"type": "string"}"#);
    assert_eq!(
        m.warnings[0].to_string(),
        "at /: [import-interpreted] the schema does not describe an object, so it cannot be a tool's parameters; it became the named type `Imported`"
    );
}

#[test]
fn the_codes_of_the_importer_are_kebab_case_and_distinct() {
    let texts: HashSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(texts.len(), Code::ALL.len());
    for t in texts {
        assert!(
            t.chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit()),
            "{t}"
        );
    }
}

/// The pointer of each refused tool, and the pointer and code of each of its issues.
fn refusals(m: &Imported) -> Vec<(&str, Vec<(&str, Code)>)> {
    m.refused
        .iter()
        .map(|r| {
            let issues = r
                .issues
                .iter()
                .map(|i| (i.pointer.as_str(), i.code))
                .collect();
            (r.pointer.as_str(), issues)
        })
        .collect()
}

#[test]
fn an_import_goes_on_past_the_tools_it_cannot_express() {
    // A keyword the language lacks, an unresolved `$ref` (both found reading), and a name the
    // checker refuses: each tool is left out with its own issues, the others imported.
    let text = r##"[
      {"type": "function", "function": {"name": "a", "description": "A.", "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}},
      {"type": "function", "function": {"name": "b", "description": "B.", "parameters": {"type": "object", "properties": {"x": {"not": {"type": "string"}}, "y": {"$ref": "#/$defs/Nope"}}}}},
      {"type": "code_interpreter"},
      {"type": "function", "function": {"name": "c d", "description": "C.", "parameters": {"type": "object"}}},
      {"type": "function", "function": {"name": "e", "description": "E.", "parameters": {"type": "object"}}}
    ]"##;
    let m = imported(OpenAi, text);
    let names: Vec<&str> = m.module.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "e"]);
    let mut got = refusals(&m);
    got.sort_by_key(|r| r.0);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0].0, "/1/function");
    assert!(got[0].1.contains(&(
        "/1/function/parameters/properties/x/not",
        Code::ImportUnsupported
    )));
    assert_eq!(got[0].1.len(), 2, "{got:?}");
    assert_eq!(got[1], ("/2", vec![("/2/type", Code::ImportUnsupported)]));
    assert_eq!(
        got[2],
        ("/3/function", vec![("/3/function/name", Code::InvalidName)])
    );
    // The checker's refusal is found once the reading's are out of the way: last.
    assert!(m.refused[2].to_string().starts_with(
        "the tool at /3/function was not imported\n  at /3/function/name: [invalid-name]"
    ));
    // The source says only what was imported.
    assert!(!m.source.contains("tool b"), "{}", m.source);
}

#[test]
fn strict_imports_all_or_nothing() {
    let text = r#"{"tools": [
      {"name": "a", "description": "A.", "inputSchema": {"type": "object"}},
      {"name": "b", "description": "B.", "inputSchema": {"type": "object", "if": {}}}
    ]}"#;
    let strict = Options {
        strict: true,
        ..Options::default()
    };
    let doc = import::parse_input(text).unwrap();
    let err = import::import(&doc, Mcp, &strict).unwrap_err();
    assert_eq!(
        issues(&err),
        [("/tools/1/inputSchema/if", Code::ImportUnsupported)]
    );
    let m = import::import(&doc, Mcp, &Options::default()).unwrap();
    assert_eq!(m.module.tools.len(), 1);
    assert_eq!(refusals(&m)[0].0, "/tools/1");
}

#[test]
fn an_import_with_every_tool_refused_fails_with_every_issue() {
    let text = r#"[
      {"type": "object", "properties": {"x": {"not": {"type": "string"}}}},
      {"type": "object", "properties": {"y": {"allOf": [{}, {}]}}}
    ]"#;
    let err = refused(Js, text);
    let codes: Vec<&str> = issues(&err).iter().map(|(p, _)| *p).collect();
    assert_eq!(codes, ["/0/properties/x/not", "/1/properties/y/allOf"]);
    // A document that is one tool: refused whole, as before.
    let one = refused(
        Js,
        r#"{"type": "object", "properties": {"x": {"not": {"type": "string"}}}}"#,
    );
    assert_eq!(
        issues(&one),
        [("/properties/x/not", Code::ImportUnsupported)]
    );
}

#[test]
fn a_list_of_schemas_keeps_the_names_of_the_schemas_imported() {
    let m = imported(
        Js,
        r#"[{"title": "T", "type": "object", "properties": {"x": {"not": {"type": "string"}}}},
            {"title": "T", "description": "Second.", "type": "object"}]"#,
    );
    let names: Vec<&str> = m.module.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["T_2"]);
    assert_eq!(refusals(&m)[0].0, "/0");
}
