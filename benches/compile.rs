//! Compiling `.tool` source against parsing the JSON Schema it emits (the same content, as
//! `serde_json::Value`): the compiler should cost no more than twice what reading the equivalent
//! JSON costs.
//!
//! - `tooldef_compile`: source → checked model;
//! - `tooldef_compile_validators`: source → model → one compiled validator per tool;
//! - `tooldef_parse_only`: source → syntax tree (the grammar alone);
//! - `serde_json_parse_emitted_schema`: the emitted JSON Schema tool list → `Value`.

mod workloads;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tooldef::validate::Validator;

fn example(name: &str) -> String {
    std::fs::read_to_string(workloads::manifest_dir().join(name)).expect("example")
}

fn validators(source: &str) -> usize {
    let compiled = match tooldef::compile(source) {
        Ok(c) => c,
        Err(_) => return 0,
    };
    let m = &compiled.module;
    m.tools
        .iter()
        .filter(|t| Validator::new(m, t).is_ok())
        .count()
}

fn bench(c: &mut Criterion) {
    for (name, source) in [
        ("weather", example("examples/weather.tool")),
        ("nested", example("benches/workloads/nested.tool")),
        ("generated_1000", workloads::generated(1000)),
    ] {
        let compiled = tooldef::compile(&source).expect("compiles");
        let tools = compiled.module.tools.len();
        assert_eq!(
            validators(&source),
            tools,
            "{name}: every tool gets a validator"
        );
        let options = tooldef::emit::Options::default();
        let emitted = tooldef::emit::tools(
            &compiled.module,
            tooldef::emit::Target::JsonSchema,
            &options,
        )
        .expect("emits");
        let json = serde_json::to_string(&emitted.json).expect("json");
        // Same content: the parsed JSON is what was emitted, one entry per tool.
        let reparsed: serde_json::Value = serde_json::from_str(&json).expect("reparses");
        assert_eq!(
            reparsed, emitted.json,
            "{name}: the emitted JSON round-trips"
        );
        let mut group = c.benchmark_group(format!("compile/{name}"));
        group.bench_function("tooldef_compile", |b| {
            b.iter(|| tooldef::compile(black_box(&source)).is_ok())
        });
        group.bench_function("tooldef_compile_validators", |b| {
            b.iter(|| validators(black_box(&source)))
        });
        group.bench_function("tooldef_parse_only", |b| {
            b.iter(|| tooldef::parse(black_box(&source)).is_ok())
        });
        group.bench_function("serde_json_parse_emitted_schema", |b| {
            b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&json)).is_ok())
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
