//! The rules of the language apply to imports through the checker: an input that breaks one gets
//! the checker's diagnostic, with its code, at the JSON pointer of the part it is about (at any
//! depth), and the repairs the importer makes instead of failing say the checker's reason.

use serde_json::{json, Value};
use tooldef::import::{self, ImportError, Imported, Options};
use tooldef::Code;

fn mcp(input_schema: Value) -> Value {
    json!({"tools": [{"name": "t", "description": "Do it.", "inputSchema": input_schema}]})
}

fn one_property(schema: Value) -> Value {
    mcp(json!({"type": "object", "properties": {"x": schema}}))
}

fn deny() -> Options {
    Options {
        deny_hidden: true,
        ..Options::default()
    }
}

/// The pointer and code of each issue.
fn issues(err: &ImportError) -> Vec<(&str, Code)> {
    err.issues
        .iter()
        .map(|i| (i.pointer.as_str(), i.code))
        .collect()
}

/// The pointer and code of each warning.
fn warnings(imported: &Imported) -> Vec<(&str, Code)> {
    imported
        .warnings
        .iter()
        .map(|w| (w.pointer.as_str(), w.code))
        .collect()
}

/// The import's error, all or nothing (without `strict`, the other tools of `doc` would be
/// imported and the broken one listed as refused).
fn refused(doc: &Value, options: &Options) -> ImportError {
    let strict = Options {
        strict: true,
        ..options.clone()
    };
    import::import_mcp(doc, &strict)
        .err()
        .unwrap_or_else(|| panic!("imported: {doc}"))
}

#[test]
fn a_bad_tool_name_is_the_checkers_invalid_name_at_the_name() {
    let doc = json!({"tools": [
        {"name": "fine", "description": "Do it.", "inputSchema": {"type": "object"}},
        {"name": "not fine!", "description": "Do it.", "inputSchema": {"type": "object"}},
    ]});
    let err = refused(&doc, &Options::default());
    assert_eq!(issues(&err), [("/tools/1/name", Code::InvalidName)]);
    // The message is the checker's own, shown with the pointer and the code.
    let text = err.to_string();
    assert_eq!(
        text,
        "at /tools/1/name: [invalid-name] `not fine!` is not a valid tool name"
    );
}

#[test]
fn a_repeated_tool_name_is_the_checkers_duplicate_name() {
    let tool = json!({"name": "same", "description": "Do it.", "inputSchema": {"type": "object"}});
    let doc = json!({"tools": [tool.clone(), tool]});
    let err = refused(&doc, &Options::default());
    assert_eq!(issues(&err), [("/tools/1/name", Code::DuplicateName)]);
}

#[test]
fn a_forbidden_character_in_a_description_is_the_checkers() {
    // Under --deny-hidden the text is kept, and the checker refuses it where it was read: the
    // tool's description, a nested property's, a named type's.
    let doc = json!({"tools": [{"name": "t", "description": "Do\u{202E} it.", "inputSchema": {
        "type": "object",
        "properties": {"outer": {"type": "object", "properties": {
            "inner": {"type": "string", "description": "Hidden\u{200B} here."}
        }}},
        "$defs": {"Kind": {"type": "object", "description": "A\u{E0041} kind.",
            "properties": {"k": {"type": "string"}}}},
    }}]});
    let err = refused(&doc, &deny());
    let mut got = issues(&err);
    got.sort_by_key(|(p, _)| *p);
    assert_eq!(
        got,
        [
            ("/tools/0/description", Code::ForbiddenCharacter),
            (
                "/tools/0/inputSchema/$defs/Kind/description",
                Code::ForbiddenCharacter
            ),
            (
                "/tools/0/inputSchema/properties/outer/properties/inner/description",
                Code::ForbiddenCharacter
            ),
        ]
    );
}

#[test]
fn a_bad_property_name_is_the_checkers_at_the_property() {
    let doc = mcp(json!({"type": "object", "properties": {
        "list": {"type": "array", "items": {"type": "object", "properties": {
            "ok": {"type": "string"},
            "a\u{0007}": {"type": "string"},
        }}},
    }}));
    let err = refused(&doc, &Options::default());
    assert_eq!(
        issues(&err),
        [(
            "/tools/0/inputSchema/properties/list/items/properties/a\u{0007}",
            Code::ForbiddenCharacter
        )]
    );
}

#[test]
fn a_schema_too_deep_is_the_checkers_at_the_tool() {
    // Deeper than the language's limit for a tool's schema, within what the importer reads.
    let mut schema = json!({"type": "string"});
    for _ in 0..45 {
        schema = json!({"type": "array", "items": schema});
    }
    let doc = json!({"tools": [
        {"name": "shallow", "description": "Do it.", "inputSchema": {"type": "object"}},
        {"name": "deep", "description": "Do it.", "inputSchema":
            {"type": "object", "properties": {"x": schema}}},
    ]});
    let err = refused(&doc, &Options::default());
    assert_eq!(issues(&err), [("/tools/1", Code::SchemaTooDeep)]);
}

#[test]
fn a_default_that_does_not_fit_is_dropped_with_the_checkers_reason() {
    let doc = mcp(json!({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1, "default": 0},
        "ok": {"type": "integer", "default": 3},
        "deep": {"type": "object", "properties": {
            "s": {"type": "string", "enum": ["a", "b"], "default": "c"},
        }},
        "r": {"type": "string", "default": "x"},
    }, "required": ["r"]}));
    let imported = import::import_mcp(&doc, &Options::default()).unwrap();
    let p = "/tools/0/inputSchema/properties";
    assert_eq!(
        warnings(&imported),
        [
            // The importer's own warning first, then the checker's.
            ("", Code::ImportClosedObject),
            (&*format!("{p}/n/default"), Code::InvalidDefault),
            (
                &*format!("{p}/deep/properties/s/default"),
                Code::InvalidDefault
            ),
            (&*format!("{p}/r/default"), Code::DefaultOnRequired),
        ]
    );
    let n = &imported
        .warnings
        .iter()
        .find(|w| w.pointer.ends_with("n/default"))
        .unwrap();
    assert!(
        n.message.starts_with("the default does not fit the type")
            && n.message.ends_with("; it was dropped"),
        "{}",
        n.message
    );
    assert!(
        imported.source.contains("n?: integer @min(1)\n"),
        "{}",
        imported.source
    );
    assert!(
        imported.source.contains("ok?: integer = 3\n"),
        "{}",
        imported.source
    );
}

#[test]
fn an_example_that_does_not_fit_is_dropped_at_its_index() {
    let doc = one_property(json!({"type": "string", "maxLength": 3,
        "examples": ["abc", "abcd", "ab"]}));
    let imported = import::import_mcp(&doc, &Options::default()).unwrap();
    assert_eq!(
        warnings(&imported),
        [
            ("", Code::ImportClosedObject),
            (
                "/tools/0/inputSchema/properties/x/examples/1",
                Code::InvalidExample
            )
        ]
    );
    assert!(
        imported
            .source
            .contains(r#"@example("abc") @example("ab")"#),
        "{}",
        imported.source
    );
}

#[test]
fn a_value_too_deep_is_the_checkers_nesting_limit() {
    let mut deep = json!(1);
    for _ in 0..40 {
        deep = json!([deep]);
    }
    let doc = one_property(json!({"default": deep}));
    let imported = import::import_mcp(&doc, &Options::default()).unwrap();
    assert_eq!(
        warnings(&imported),
        [
            ("", Code::ImportClosedObject),
            (
                "/tools/0/inputSchema/properties/x/default",
                Code::NestingTooDeep
            )
        ]
    );
}

#[test]
fn a_folded_enum_value_with_a_hidden_character_points_at_the_value() {
    // Gemini states an enum of strings and numbers in the description when two of them are
    // spelled alike (`1`, `"1"`).
    let doc = one_property(json!({"enum": ["a", 1, "1", "b\u{E0041}"]}));
    let err = refused(&doc, &Options::default());
    assert_eq!(
        issues(&err),
        [(
            "/tools/0/inputSchema/properties/x/enum/3",
            Code::ForbiddenCharacter
        )]
    );
    // In a named type too (its values spelled alike, `1` and `"1"`, so that gemini-openapi
    // folds them rather than sending them as strings).
    let doc = mcp(
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Level"}},
        "$defs": {"Level": {"enum": [1, "1", "b\u{E0041}"]}}}),
    );
    let err = refused(&doc, &Options::default());
    assert_eq!(
        issues(&err),
        [(
            "/tools/0/inputSchema/$defs/Level/enum/2",
            Code::ForbiddenCharacter
        )]
    );
}

#[test]
fn constraints_the_checker_refuses_point_at_their_keyword() {
    let doc = mcp(json!({"type": "object", "properties": {
        "p": {"type": "string", "pattern": "(?=lookahead)"},
        "m": {"type": "number", "multipleOf": 0},
        "r": {"type": "integer", "minimum": 5, "maximum": 1},
        "l": {"type": "array", "items": {"type": "string", "minLength": 4, "maxLength": 2}},
    }}));
    let err = refused(&doc, &Options::default());
    let p = "/tools/0/inputSchema/properties";
    let mut got = issues(&err);
    got.sort_by_key(|(p, _)| *p);
    let mut want = [
        (format!("{p}/l/items/maxLength"), Code::InvalidRange),
        (format!("{p}/m/multipleOf"), Code::InvalidRange),
        (format!("{p}/p/pattern"), Code::InvalidPattern),
        (format!("{p}/r/maximum"), Code::InvalidRange),
    ];
    want.sort_by(|a, b| a.0.cmp(&b.0));
    let want: Vec<(&str, Code)> = want.iter().map(|(p, c)| (p.as_str(), *c)).collect();
    assert_eq!(got, want);
}

#[test]
fn a_bare_schemas_title_that_is_no_tool_name_is_renamed() {
    let schema = json!({"title": "Get weather!", "description": "Weather.", "type": "object"});
    let imported = import::import_json_schema(&schema, &Options::default()).unwrap();
    assert_eq!(imported.module.tools[0].name, "Get_weather_");
    assert_eq!(warnings(&imported), [("", Code::InvalidName)]);
    assert!(
        imported.warnings[0]
            .message
            .ends_with("the tool was named `Get_weather_`"),
        "{}",
        imported.warnings[0].message
    );
}
