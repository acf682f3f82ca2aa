//! Compiling `.tool` source against parsing the JSON Schema it emits: the compiler should cost
//! no more than twice what reading the equivalent JSON costs.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR")))
        .expect("example")
}

/// A file of `n` tools shaped like the weather example.
fn generated(n: usize) -> String {
    let mut s =
        String::from("/// Unit.\nenum Unit {\n  /// C.\n  celsius\n  /// F.\n  fahrenheit\n}\n");
    for i in 0..n {
        s.push_str(&format!(
            "/// Tool number {i}: returns the weather.\n@read_only\ntool tool_{i} {{\n  /// The city.\n  city: string @min_length(1)\n  state?: string\n  unit?: Unit = \"celsius\"\n  /// Days.\n  days?: integer @min(1) @max(14) = 1\n  tags?: string[] @max_items(10) @unique\n  at?: {{ lat: number @min(-90) @max(90), lon: number }} | null\n}}\n"
        ));
    }
    s
}

fn bench(c: &mut Criterion) {
    for (name, source) in [
        ("weather", example("weather.tool")),
        ("generated_100", generated(100)),
    ] {
        let compiled = tooldef::compile(&source).expect("compiles");
        let options = tooldef::emit::Options::default();
        let emitted = tooldef::emit::tools(
            &compiled.module,
            tooldef::emit::Target::JsonSchema,
            &options,
        )
        .expect("emits");
        let json = serde_json::to_string(&emitted.json).expect("json");
        let mut group = c.benchmark_group(format!("compile/{name}"));
        group.bench_function("tooldef_compile", |b| {
            b.iter(|| tooldef::compile(black_box(&source)).is_ok())
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
