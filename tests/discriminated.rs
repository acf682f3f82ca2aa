//! Unions told apart by a field (`type: "section"`): the validator reports the problems inside
//! the member the tag picks, and lists the tags when the tag is unknown; the verdicts agree with
//! the jsonschema crate on the emitted schema, which keeps `anyOf` and each member's `const`.

use serde_json::{json, Value};
use tooldef::validate::{ErrorCode, Mode, Validator};

const BLOCKS: &str = r#"
/// A section of text.
type Section {
  type: "section"
  text: string
}

/// A divider.
type Divider { type: "divider" }

/// An image.
type Image {
  type: "image"
  url: string
  alt?: string
}

/// Posts blocks.
tool post {
  blocks: (Section | Divider | Image | { type: "quote", by?: string, text: string })[]
}
"#;

fn validator() -> (tooldef::Module, Validator) {
    let module = tooldef::compile(BLOCKS).expect("compiles").module;
    let tool = module.tool("post").expect("a tool").clone();
    let validator = Validator::new(&module, &tool).expect("a validator");
    (module, validator)
}

/// The (path, code) of every problem, and the message.
fn problems(v: &Validator, args: &Value, mode: Mode) -> (Vec<(String, ErrorCode)>, String) {
    match v.validate_value(args, mode) {
        Ok(_) => (Vec::new(), String::new()),
        Err(e) => (
            e.errors.iter().map(|p| (p.path.clone(), p.code)).collect(),
            e.message(),
        ),
    }
}

#[test]
fn the_tag_picks_the_member_whose_problems_are_reported() {
    let (_, v) = validator();
    for mode in [Mode::Strict, Mode::Lax] {
        let args = json!({"blocks": [
            {"type": "section", "txt": "hi"},
            {"type": "quote", "by": [1], "text": "x"},
            {"type": "divider"},
        ]});
        let (got, message) = problems(&v, &args, mode);
        assert_eq!(
            got,
            [
                ("/blocks/0/text".to_string(), ErrorCode::MissingField),
                ("/blocks/0/txt".to_string(), ErrorCode::UnknownKey),
                ("/blocks/1/by".to_string(), ErrorCode::WrongType),
            ],
            "{message}"
        );
        assert!(message.contains("did you mean `text`?"), "{message}");
        assert!(
            !message.contains("got object"),
            "no union-level complaint: {message}"
        );
    }
}

#[test]
fn an_unknown_or_missing_tag_lists_the_tags() {
    let (_, v) = validator();
    let (got, message) = problems(
        &v,
        &json!({"blocks": [{"type": "divder"}, {"text": "x"}]}),
        Mode::Strict,
    );
    assert_eq!(
        got,
        [
            ("/blocks/0/type".to_string(), ErrorCode::NotAllowed),
            ("/blocks/1/type".to_string(), ErrorCode::MissingField),
        ],
        "{message}"
    );
    assert!(
        message.contains(r#"must be one of "section", "divider", "image", "quote""#),
        "{message}"
    );
    assert!(message.contains(r#"did you mean "divider"?"#), "{message}");
    assert!(
        message.contains(
            r#"missing required field `type` of type `"section" | "divider" | "image" | "quote"`"#
        ),
        "{message}"
    );
}

#[test]
fn verdicts_agree_with_jsonschema_on_the_emitted_schema() {
    let (module, v) = validator();
    let tool = module.tool("post").expect("a tool");
    let schema = tooldef::emit::parameters(&module, tool);
    let text = schema.to_string();
    assert!(
        text.contains("anyOf") && text.contains(r#""const":"section""#),
        "{text}"
    );
    let reference = jsonschema::validator_for(&schema).expect("a schema");
    let cases = [
        json!({"blocks": []}),
        json!({"blocks": [{"type": "section", "text": "a"}, {"type": "divider"}]}),
        json!({"blocks": [{"type": "image", "url": "u", "alt": "a"}]}),
        json!({"blocks": [{"type": "quote", "text": "q"}]}),
        json!({"blocks": [{"type": "section"}]}),
        json!({"blocks": [{"type": "divider", "text": "a"}]}),
        json!({"blocks": [{"type": "nope"}]}),
        json!({"blocks": [{"text": "a"}]}),
        json!({"blocks": [{"type": 1, "text": "a"}]}),
        json!({"blocks": ["section"]}),
    ];
    for case in cases {
        assert_eq!(
            v.is_valid(&case, Mode::Strict),
            reference.is_valid(&case),
            "{case}"
        );
    }
}

/// The validator tries only the member a tag picks: its results must be those of trying every
/// member in order, which the same union with a member that is not an object gets (it has no
/// discriminator, and the extra member takes no object, even coerced).
#[test]
fn the_tag_picks_what_trying_every_member_would() {
    let tagged = tooldef::compile(BLOCKS).expect("compiles").module;
    let untagged = BLOCKS.replace("text: string })[]", "text: string } | integer)[]");
    let untagged = tooldef::compile(&untagged).expect("compiles").module;
    let post = |m: &tooldef::Module| {
        let tool = m.tool("post").expect("a tool").clone();
        Validator::new(m, &tool).expect("a validator")
    };
    let (tagged, untagged) = (post(&tagged), post(&untagged));
    let tags = [
        json!("section"),
        json!("divider"),
        json!("image"),
        json!("quote"),
        json!("x"),
        json!(1),
        json!(true),
        json!(null),
    ];
    let fields = [
        json!({}),
        json!({"text": "a"}),
        json!({"text": 5}),
        json!({"text": "a", "url": "u"}),
        json!({"url": "u", "alt": null}),
        json!({"by": 2, "text": "q"}),
        json!({"text": ["a"]}),
    ];
    let mut blocks = Vec::new();
    for tag in &tags {
        for f in &fields {
            let mut block = f.clone();
            block["type"] = tag.clone();
            blocks.push(block);
        }
    }
    blocks.extend(fields.iter().cloned());
    for block in blocks {
        let args = json!({ "blocks": [block] });
        for mode in [Mode::Strict, Mode::Lax] {
            let (a, b) = (
                tagged.validate_value(&args, mode),
                untagged.validate_value(&args, mode),
            );
            assert_eq!(a.is_ok(), b.is_ok(), "{args} {mode:?}");
            assert_eq!(tagged.is_valid(&args, mode), a.is_ok(), "{args} {mode:?}");
            assert_eq!(
                tagged.validate_str(&args.to_string(), mode).is_ok(),
                a.is_ok(),
                "{args} {mode:?}"
            );
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_eq!(a.arguments, b.arguments, "{args} {mode:?}");
                assert_eq!(a.coercions, b.coercions, "{args} {mode:?}");
            }
        }
    }
}

#[test]
fn the_discriminator_is_the_first_field_all_require_with_distinct_literals() {
    // `same` holds one literal in both, `opt` is optional in A, `free` is no literal in B:
    // `kind` is the first that tells the members apart, through an alias in B.
    let source = r#"
type Kind = "b"
type A { same: "x", opt?: "a", free: "p", kind: "a", last: "1" }
type B { same: "x", opt: "b", free: string, kind: Kind, last: "2" }
/// T.
tool t { u: A | B }
"#;
    let module = tooldef::compile(source).expect("compiles").module;
    let u = module.tools[0].params.field("u").expect("u");
    let tooldef::model::Ty::AnyOf(members) = &u.ty else {
        panic!("a union: {:?}", u.ty)
    };
    assert_eq!(
        module.discriminator(members),
        Some(("kind", vec!["a", "b"]))
    );
    // No field qualifies when the members share every literal.
    let module = tooldef::compile(
        "type A { k: \"x\" }\ntype B { k: \"x\", n?: string }\n/// T.\ntool t { u: A | B }\n",
    )
    .expect("compiles")
    .module;
    let u = module.tools[0].params.field("u").expect("u");
    let tooldef::model::Ty::AnyOf(members) = &u.ty else {
        panic!("a union: {:?}", u.ty)
    };
    assert_eq!(module.discriminator(members), None);
}

/// A Pydantic discriminated union (`Annotated[Union[Cat, Dog], Field(discriminator="kind")]`),
/// as `model_json_schema()` writes it: `oneOf` of `$ref`s beside `discriminator`.
fn pydantic_pet(mapping: Value) -> Value {
    json!({
        "$defs": {
            "Cat": {"properties": {"kind": {"const": "cat", "title": "Kind", "type": "string"},
                                   "lives": {"title": "Lives", "type": "integer"}},
                    "required": ["kind", "lives"], "title": "Cat", "type": "object"},
            "Dog": {"properties": {"kind": {"enum": ["dog"], "title": "Kind", "type": "string"},
                                   "barks": {"title": "Barks", "type": "boolean"}},
                    "required": ["kind", "barks"], "title": "Dog", "type": "object"}
        },
        "properties": {"pet": {"discriminator": {"mapping": mapping, "propertyName": "kind"},
                               "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
                               "title": "Pet"}},
        "required": ["pet"], "title": "Owner", "type": "object"
    })
}

#[test]
fn an_imported_discriminator_is_a_discriminated_union_that_round_trips() {
    use tooldef::import::{self, Dialect, Options};
    let mappings = [
        json!({"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"}),
        json!({"cat": "#/$defs/Cat"}),
    ];
    for mapping in mappings {
        let m = import::import(
            &pydantic_pet(mapping),
            Dialect::JsonSchema,
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("refused: {e}"));
        // The printed source compiles to the imported model, whose union has the tag.
        let compiled = tooldef::compile(&m.source).expect("compiles").module;
        assert_eq!(compiled, m.module);
        let pet = compiled.tools[0].params.field("pet").expect("pet");
        let tooldef::model::Ty::AnyOf(members) = &pet.ty else {
            panic!("a union: {:?}\n{}", pet.ty, m.source)
        };
        assert_eq!(
            compiled.discriminator(members),
            Some(("kind", vec!["cat", "dog"]))
        );
        // Compiled and imported again (the target writes the named types inline and has no
        // `@title`), it is the same tool, with the same discriminated union.
        let out = tooldef::emit::tools(
            &compiled,
            tooldef::emit::Target::JsonSchema,
            &tooldef::emit::Options::default(),
        )
        .expect("emits");
        let again = import::import(&out.json, Dialect::JsonSchema, &Options::default())
            .unwrap_or_else(|e| panic!("re-import refused: {e}"));
        assert_eq!(
            tooldef::emit::parameters(&again.module, &again.module.tools[0]),
            tooldef::emit::parameters(&compiled, &compiled.tools[0])
        );
        let pet = again.module.tools[0].params.field("pet").expect("pet");
        let tooldef::model::Ty::AnyOf(members) = &pet.ty else {
            panic!("a union: {:?}\n{}", pet.ty, again.source)
        };
        assert_eq!(
            again.module.discriminator(members),
            Some(("kind", vec!["cat", "dog"]))
        );
    }
}

#[test]
fn a_mapping_or_branch_the_tags_disagree_with_is_an_error_at_its_pointer() {
    use tooldef::import::{self, Dialect, Options};
    use tooldef::Code;
    let at = |doc: &Value| -> Vec<(String, Code)> {
        let e = import::import(doc, Dialect::JsonSchema, &Options::default()).expect_err("refused");
        e.issues
            .iter()
            .map(|i| (i.pointer.clone(), i.code))
            .collect()
    };
    let swapped = pydantic_pet(json!({"cat": "#/$defs/Dog", "dog": "#/$defs/Cat"}));
    assert_eq!(
        at(&swapped),
        [(
            "/properties/pet/discriminator/mapping/cat".to_string(),
            Code::ImportInvalidKeyword
        )]
    );
    let unknown = pydantic_pet(json!({"cat": "#/$defs/Bird"}));
    assert_eq!(
        at(&unknown),
        [(
            "/properties/pet/discriminator/mapping/cat".to_string(),
            Code::ImportInvalidKeyword
        )]
    );
    // An inline branch without the tag.
    let untagged = json!({"type": "object", "properties": {"pet": {
    "discriminator": {"propertyName": "kind"},
    "anyOf": [
        {"type": "object", "properties": {"kind": {"const": "cat"}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]}
    ]}}});
    assert_eq!(
        at(&untagged),
        [(
            "/properties/pet/anyOf/1".to_string(),
            Code::ImportUnsupported
        )]
    );
}
