//! tooldef's strict check against jsonschema's compile-time generated validators, on the weather
//! and nested workloads of the main benchmarks. The generated validators are built from
//! `schemas/*.json`, the parameters schemas tooldef emits; the benchmark first checks that these
//! files are still exactly what tooldef emits, and that all validators agree on every instance.

#[path = "../../workloads/mod.rs"]
mod workloads;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::Value;
use tooldef::validate::Mode;

#[jsonschema::validator(path = "schemas/weather.json", draft = Draft202012)]
struct Weather;

#[jsonschema::validator(path = "schemas/nested.json", draft = Draft202012)]
struct Nested;

fn bench(c: &mut Criterion) {
    let cases: [(workloads::Workload, &str, fn(&Value) -> bool); 2] = [
        (
            workloads::weather(),
            "schemas/weather.json",
            Weather::is_valid,
        ),
        (workloads::nested(), "schemas/nested.json", Nested::is_valid),
    ];
    for (w, file, generated) in &cases {
        workloads::check(w);
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).expect("schema file");
        let saved: Value = serde_json::from_str(&text).expect("schema JSON");
        assert_eq!(
            saved, w.subjects[0].schema,
            "{file} is stale: write the schema tooldef emits there"
        );
        for set in &w.sets {
            for i in &set.instances {
                assert_eq!(generated(&i.value), set.valid, "generated: {}", set.name);
            }
            let s = &w.subjects[0];
            let mut g = c.benchmark_group(format!("codegen/{}", set.name));
            g.bench_function("tooldef_is_valid", |b| {
                b.iter(|| {
                    set.instances
                        .iter()
                        .filter(|i| s.ours.is_valid(black_box(&i.value), Mode::Strict))
                        .count()
                })
            });
            g.bench_function("jsonschema_is_valid", |b| {
                b.iter(|| {
                    set.instances
                        .iter()
                        .filter(|i| s.theirs.is_valid(black_box(&i.value)))
                        .count()
                })
            });
            g.bench_function("jsonschema_generated_is_valid", |b| {
                b.iter(|| {
                    set.instances
                        .iter()
                        .filter(|i| generated(black_box(&i.value)))
                        .count()
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
