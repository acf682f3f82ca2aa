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

fn bench(c: &mut Criterion) {
    for (name, source) in workloads::compile_sources() {
        let compiled = tooldef::compile(&source).expect("compiles");
        let tools = compiled.module.tools.len();
        assert_eq!(
            workloads::validators(&source),
            tools,
            "{name}: every tool gets a validator"
        );
        let (emitted, json) = workloads::emitted(&source);
        // Same content: the parsed JSON is what was emitted, one entry per tool.
        let reparsed: serde_json::Value = serde_json::from_str(&json).expect("reparses");
        assert_eq!(reparsed, emitted, "{name}: the emitted JSON round-trips");
        let mut group = c.benchmark_group(format!("compile/{name}"));
        group.bench_function("tooldef_compile", |b| {
            b.iter(|| tooldef::compile(black_box(&source)).is_ok())
        });
        group.bench_function("tooldef_compile_validators", |b| {
            b.iter(|| workloads::validators(black_box(&source)))
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
