//! `@provider(target: {...})`: extra fields of a target's tool object.

use serde_json::json;
use tooldef::emit::{self, Options, Target};
use tooldef::{compile, Code};

const SOURCE: &str = r#"/// Look a word up.
@provider(anthropic: {"cache_control": {"type": "ephemeral"}}, "gemini-openapi": {"behavior": "NON_BLOCKING"})
tool define {
  /// The word.
  word: string
}
"#;

#[test]
fn the_fields_are_merged_into_their_targets_tool_object_only() {
    let module = compile(SOURCE).expect("compiles").module;
    let anthropic = emit::tools(&module, Target::Anthropic, &Options::default()).expect("emits");
    assert_eq!(
        anthropic.json[0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    let gemini = emit::tools(&module, Target::GeminiOpenApi, &Options::default()).expect("emits");
    assert_eq!(
        gemini.json[0]["functionDeclarations"][0]["behavior"],
        "NON_BLOCKING"
    );
    for target in [Target::OpenAi, Target::Gemini, Target::Mcp] {
        let other = emit::tools(&module, target, &Options::default()).expect("emits");
        let text = other.json.to_string();
        assert!(
            !text.contains("cache_control") && !text.contains("NON_BLOCKING"),
            "{text}"
        );
    }
}

#[test]
fn a_field_the_tool_object_has_is_refused_for_that_target() {
    let source = "/// T.\n@provider(anthropic: {\"input_schema\": {}})\ntool t {\n  /// A.\n  a: string\n}\n";
    let module = compile(source).expect("compiles").module;
    let e = emit::tools(&module, Target::Anthropic, &Options::default()).expect_err("refused");
    assert!(
        e.diagnostics
            .iter()
            .any(|d| d.code == Code::InvalidAttributeArgument && d.message.contains("input_schema")),
        "{e}"
    );
    // Other targets are unaffected.
    assert!(emit::tools(&module, Target::OpenAi, &Options::default()).is_ok());
}

#[test]
fn targets_and_values_are_checked() {
    for (bad, says) in [
        ("@provider(antropic: {})", "did you mean `anthropic`?"),
        ("@provider(anthropic: 3)", "an object of fields"),
        ("@provider({})", "named arguments"),
        ("@provider", "takes a target"),
    ] {
        let source = format!("/// T.\n{bad}\ntool t {{\n  /// A.\n  a: string\n}}\n");
        let e = compile(&source).expect_err(&source);
        assert!(
            e.diagnostics
                .iter()
                .any(|d| d.code == Code::InvalidAttributeArgument && d.message.contains(says)),
            "{bad}: {e}"
        );
    }
}

#[test]
fn provider_fields_print_and_read_back() {
    let module = compile(SOURCE).expect("compiles").module;
    let printed = module.to_source().expect("printable");
    let again = compile(&printed)
        .unwrap_or_else(|e| panic!("{e}\n{printed}"))
        .module;
    assert_eq!(module.tools, again.tools, "{printed}");
    assert!(printed.contains("\"gemini-openapi\": {"), "{printed}");
}
