//! tooldef's strict check against jsonschema's compile-time generated validators, on the weather
//! and nested workloads of the main benchmarks. The generated validators are built from
//! `schemas/*.json`, the parameters schemas tooldef emits; the benchmark first checks that these
//! files are still exactly what tooldef emits, and that all validators agree on every instance.

#[path = "../../workloads/mod.rs"]
mod workloads;

use std::hint::black_box;

use criterion::{criterion_group, Criterion};
use serde_json::Value;
use tooldef::validate::Mode;

#[jsonschema::validator(path = "schemas/weather.json", draft = Draft202012)]
struct Weather;

#[jsonschema::validator(path = "schemas/nested.json", draft = Draft202012)]
struct Nested;

type Case = (workloads::Workload, &'static str, fn(&Value) -> bool);

fn cases() -> [Case; 2] {
    [
        (
            workloads::weather(),
            "schemas/weather.json",
            Weather::is_valid,
        ),
        (workloads::nested(), "schemas/nested.json", Nested::is_valid),
    ]
}

/// The counted loop: `callgrind --toggle-collect='*codegen*measured*'` counts this alone.
#[inline(never)]
fn measured(n: usize, mut once: impl FnMut() -> usize) -> usize {
    (0..n).map(|_| black_box(once())).sum()
}

/// `TOOLDEF_COUNT=SET:OP:N` (e.g. `nested/valid:generated:100`, OP one of `tooldef`,
/// `jsonschema`, `generated`): runs that check `N` times on the set, for instruction counts
/// (`benches/counts.sh codegen` in the main package).
fn count(spec: &str) {
    let [set, op, n] = spec.split(':').collect::<Vec<_>>()[..] else {
        panic!("TOOLDEF_COUNT is SET:OP:N, not {spec}");
    };
    let n: usize = n.parse().expect("N is a count");
    for (w, _, generated) in cases() {
        for s in w.sets.iter().filter(|s| s.name == set) {
            let subject = &w.subjects[0];
            let once = |i: &workloads::Instance| match op {
                "tooldef" => subject.ours.is_valid(black_box(&i.value), Mode::Strict),
                "jsonschema" => subject.theirs.is_valid(black_box(&i.value)),
                "generated" => generated(black_box(&i.value)),
                other => panic!("no operation {other}"),
            };
            s.instances.iter().for_each(|i| {
                once(i);
            });
            let total = measured(n, || s.instances.iter().filter(|i| once(i)).count());
            println!("{set} {op} x{n}: {total}");
        }
    }
}

fn bench(c: &mut Criterion) {
    let cases = cases();
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

fn main() {
    if let Ok(spec) = std::env::var("TOOLDEF_COUNT") {
        return count(&spec);
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
