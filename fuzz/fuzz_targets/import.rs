//! Arbitrary bytes as an import document (`import::parse_input`), imported in every dialect,
//! with objects closed and kept open. When an import succeeds:
//! - its `.source` compiles, to a model that prints back to exactly `.source` and emits the
//!   same `json-schema` document as the imported model;
//! - its canonical schema, exported as an MCP `tools/list` (the `json-schema` parameters in
//!   MCP's envelope, the one export every tool survives) and imported again with
//!   `--from mcp --keep-open`, succeeds and gives every tool the same `json-schema` parameters;
//! - that second import is a fixpoint: exporting and importing it once more gives the same
//!   source. (The first import may not be one: `@meta`, `@retry` and non-object outputs are not
//!   exported, and the dialects close open objects, so only the second source is stable.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tooldef::emit::{self, Target};
use tooldef::import::{self, Dialect, Options};
use tooldef::Module;

fn mcp(m: &Module) -> Value {
    emit::tools(m, Target::Mcp, &emit::Options { warnings: false })
        .expect("a module that emits json-schema emits mcp")
        .json
}

fn parameters(m: &Module) -> Vec<Value> {
    m.tools
        .iter()
        .map(|t| emit::parameters(m, t))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(doc) = import::parse_input(text) else {
        return;
    };
    let open = Options {
        name: None,
        keep_open: true,
        ..Options::default()
    };
    for &dialect in Dialect::ALL {
        for keep_open in [false, true] {
            let options = Options {
                name: None,
                keep_open,
                ..Options::default()
            };
            let Ok(imported) = import::import(&doc, dialect, &options) else {
                continue;
            };
            let source = &imported.source;
            let compiled = tooldef::compile(source).unwrap_or_else(|e| {
                panic!("{dialect:?}: the source does not compile: {e:?}\n{source}")
            });
            assert_eq!(
                &compiled.module.to_source().expect("prints"),
                source,
                "{dialect:?}: the source does not print back to itself"
            );
            let eo = emit::Options { warnings: false };
            let a = emit::tools(&imported.module, Target::JsonSchema, &eo).map(|e| e.json);
            let b = emit::tools(&compiled.module, Target::JsonSchema, &eo).map(|e| e.json);
            assert_eq!(a.is_ok(), b.is_ok());
            let (Ok(a), Ok(b)) = (a, b) else {
                continue;
            };
            assert_eq!(
                a, b,
                "{dialect:?}: the model is not what its source compiles to"
            );

            let export = mcp(&imported.module);
            let second = import::import(&export, Dialect::Mcp, &open).unwrap_or_else(|e| {
                panic!("{dialect:?}: the mcp export does not import: {e}\n{source}\n{export:#}")
            });
            assert_eq!(
                parameters(&imported.module),
                parameters(&second.module),
                "{dialect:?}: the round trip changed a schema\n{source}\n---\n{}",
                second.source
            );
            let third = import::import(&mcp(&second.module), Dialect::Mcp, &open)
                .unwrap_or_else(|e| panic!("{dialect:?}: the second export does not import: {e}"));
            assert_eq!(
                second.source, third.source,
                "{dialect:?}: importing the export is not a fixpoint"
            );
        }
    }
});
