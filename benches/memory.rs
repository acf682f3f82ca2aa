//! The memory of a compiled 1,000-tool set, counted by a global allocator that tracks the live
//! and the peak number of heap bytes (exact, unlike the resident set size).
//!
//! Reports, for the generated 1,000-tool file of the benchmarks:
//! - tooldef: the peak while compiling the source to a model and one validator per tool, and
//!   what stays live afterwards (the model and the validators; the source text is not counted);
//! - for comparison, the jsonschema crate: the emitted schemas as `serde_json::Value`s and one
//!   compiled validator per tool, peak and live.
//!
//! `cargo bench --bench memory` prints the numbers; `cargo test --benches` runs the same
//! measurement once.

mod workloads;

#[path = "../tests/support/counting.rs"]
mod counting;

use counting::{measure, Counting};
use tooldef::validate::Validator;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn mib(bytes: usize) -> String {
    format!("{:.2} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn main() {
    const TOOLS: usize = 1000;
    let source = workloads::generated(TOOLS);

    // Warm up once, so that lazily built statics are not counted.
    drop(tooldef::compile(&source).expect("compiles"));

    let (module, model_peak, model_live) =
        measure(|| tooldef::compile(&source).expect("compiles").module);
    let (validators, validators_peak, validators_live) = measure(|| {
        module
            .tools
            .iter()
            .map(|t| Validator::new(&module, t).expect("validator"))
            .collect::<Vec<_>>()
    });
    assert_eq!(validators.len(), TOOLS);
    assert!(
        model_live > 0 && model_peak >= model_live,
        "the counter counts"
    );
    println!(
        "tooldef: {TOOLS} tools ({} of source): peak {} while compiling the model, then {} while compiling the validators; {} live after (model {}, validators {})",
        mib(source.len()),
        mib(model_peak),
        mib(model_live + validators_peak),
        mib(model_live + validators_live),
        mib(model_live),
        mib(validators_live),
    );

    let schemas: Vec<serde_json::Value> = module
        .tools
        .iter()
        .map(|t| tooldef::emit::parameters(&module, t))
        .collect();
    let texts: Vec<String> = schemas.iter().map(|s| s.to_string()).collect();
    drop(schemas);
    let (theirs, peak, live) = measure(|| {
        let schemas: Vec<serde_json::Value> = texts
            .iter()
            .map(|t| serde_json::from_str(t).expect("schema JSON"))
            .collect();
        let validators: Vec<jsonschema::Validator> = schemas
            .iter()
            .map(|s| jsonschema::draft202012::new(s).expect("jsonschema compiles"))
            .collect();
        (schemas, validators)
    });
    assert_eq!(theirs.1.len(), TOOLS);
    println!(
        "jsonschema: {TOOLS} emitted schemas ({} of JSON text) parsed and compiled: peak {}, {} live after",
        mib(texts.iter().map(String::len).sum()),
        mib(peak),
        mib(live)
    );
    drop(validators);
}
