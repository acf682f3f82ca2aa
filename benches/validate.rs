//! Validating tool arguments: tooldef against the jsonschema crate on the draft 2020-12 schema
//! tooldef emits (compiled once, outside the timed loop), and against `serde_json` parsing alone.
//!
//! For every instance set (see `workloads`):
//! - `strict/*`: the fast accept/reject check on a parsed value, tooldef's `is_valid` against
//!   jsonschema's `is_valid`;
//! - `errors/*`: the full validation with every error collected (tooldef: each error with its
//!   path, code and what its texts are made from, written on demand as jsonschema's are; on
//!   valid instances, the normalized arguments, borrowed when the value is already normal)
//!   against jsonschema's `iter_errors` collected into a `Vec`; and, to compare messages with
//!   messages, tooldef with every error's message and the one message for the model written
//!   out against `iter_errors` collected into a `Vec` of path and message strings;
//! - `text/*`: tooldef's parse + validate + coerce of the argument text (lax mode) against
//!   `serde_json::from_str::<Value>` of the same text alone.
//!
//! - `lenient/*` (valid sets only): lax mode on the valid JSON text, on the same text as
//!   almost-JSON (in a markdown code fence, a trailing comma before the last `}`), and
//!   `serde_json::from_str::<Value>` of the JSON text: valid JSON costs what it did, since the
//!   lenient reader only runs on text the JSON reader refused.
//!
//! Before anything is timed, both sides are checked to agree on every instance (the binary panics
//! otherwise); `cargo test --benches` runs these checks and each benchmark once.

mod workloads;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::Value;
use tooldef::validate::Mode;

use workloads::{Set, Workload};

fn bench_set(c: &mut Criterion, w: &Workload, set: &Set) {
    let pairs: Vec<_> = set
        .instances
        .iter()
        .map(|i| (&w.subjects[i.subject], i))
        .collect();

    let mut g = c.benchmark_group(format!("strict/{}", set.name));
    g.bench_function("tooldef_is_valid", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, i) in &pairs {
                n += usize::from(s.ours.is_valid(black_box(&i.value), Mode::Strict));
            }
            n
        })
    });
    g.bench_function("jsonschema_is_valid", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, i) in &pairs {
                n += usize::from(s.theirs.is_valid(black_box(&i.value)));
            }
            n
        })
    });
    g.finish();

    let mut g = c.benchmark_group(format!("errors/{}", set.name));
    g.bench_function("tooldef_validate_value", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, i) in &pairs {
                match s.ours.validate_value(black_box(&i.value), Mode::Strict) {
                    Ok(v) => n += usize::from(v.arguments.is_object()),
                    Err(e) => n += e.errors.len(),
                }
            }
            n
        })
    });
    g.bench_function("tooldef_validate_value_messages", |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|(s, i)| workloads::ours_with_messages(s, black_box(&i.value)))
                .sum::<usize>()
        })
    });
    g.bench_function("jsonschema_iter_errors", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, i) in &pairs {
                let errors: Vec<_> = s.theirs.iter_errors(black_box(&i.value)).collect();
                n += errors.len();
            }
            n
        })
    });
    g.bench_function("jsonschema_iter_errors_messages", |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|(s, i)| workloads::theirs_with_messages(s, black_box(&i.value)))
                .sum::<usize>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group(format!("text/{}", set.name));
    g.bench_function("tooldef_validate_str_lax", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, i) in &pairs {
                n += usize::from(s.ours.validate_str(black_box(&i.text), Mode::Lax).is_ok());
            }
            n
        })
    });
    g.bench_function("tooldef_validate_str_strict", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, i) in &pairs {
                n += usize::from(
                    s.ours
                        .validate_str(black_box(&i.text), Mode::Strict)
                        .is_ok(),
                );
            }
            n
        })
    });
    g.bench_function("serde_json_from_str_value", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (_, i) in &pairs {
                n += usize::from(serde_json::from_str::<Value>(black_box(&i.text)).is_ok());
            }
            n
        })
    });
    g.finish();
}

/// A valid text as almost-JSON: in a code fence, with a trailing comma before its last `}`.
fn almost_json(text: &str) -> String {
    let inner = match text.rfind('}') {
        Some(i) if !text[..i].trim_end().ends_with(['{', ',']) => {
            format!("{},{}", &text[..i], &text[i..])
        }
        _ => text.to_string(),
    };
    format!("Here is the call:\n```json\n{inner}\n```\n")
}

fn bench_lenient(c: &mut Criterion, w: &Workload, set: &Set) {
    let pairs: Vec<_> = set
        .instances
        .iter()
        .map(|i| {
            (
                &w.subjects[i.subject],
                i.text.as_str(),
                almost_json(&i.text),
            )
        })
        .collect();
    // Both readings give the same arguments, and only the almost-JSON one records repairs.
    for (s, text, almost) in &pairs {
        let a = s.ours.validate_str(text, Mode::Lax).expect("valid");
        let b = s.ours.validate_str(almost, Mode::Lax).expect("repaired");
        assert_eq!(a.arguments, b.arguments, "{}: {almost}", set.name);
        assert!(a.repairs.is_empty() && !b.repairs.is_empty(), "{almost}");
    }
    let mut g = c.benchmark_group(format!("lenient/{}", set.name));
    g.bench_function("tooldef_lax_json", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, text, _) in &pairs {
                n += usize::from(s.ours.validate_str(black_box(text), Mode::Lax).is_ok());
            }
            n
        })
    });
    g.bench_function("tooldef_lax_almost_json", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (s, _, almost) in &pairs {
                n += usize::from(s.ours.validate_str(black_box(almost), Mode::Lax).is_ok());
            }
            n
        })
    });
    g.bench_function("serde_json_from_str_value", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for (_, text, _) in &pairs {
                n += usize::from(serde_json::from_str::<Value>(black_box(text)).is_ok());
            }
            n
        })
    });
    g.finish();
}

/// The single pass over text and the path of a parsed value give the same result on every
/// instance (whose text is its value written out), valid or not, in both modes; panics
/// otherwise. (On random and broken texts, `src/validate/agreement.rs` compares the single pass
/// with the crate's full path over text.)
fn check_single_pass(w: &Workload) {
    for set in &w.sets {
        for inst in &set.instances {
            let s = &w.subjects[inst.subject];
            for mode in [Mode::Strict, Mode::Lax] {
                let fast = s.ours.validate_str(&inst.text, mode);
                let full = s.ours.validate_value(&inst.value, mode);
                assert_eq!(fast, full, "{} {mode:?}: {}", set.name, inst.text);
                if let (Ok(a), Ok(b)) = (&fast, &full) {
                    assert_eq!(
                        serde_json::to_string(&a.arguments).ok(),
                        serde_json::to_string(&b.arguments).ok(),
                        "{} {mode:?}, key order: {}",
                        set.name,
                        inst.text
                    );
                }
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let weather = workloads::weather();
    workloads::check(&weather);
    workloads::check_error_count(&weather, "weather/3_errors", 3);
    let nested = workloads::nested();
    workloads::check(&nested);
    workloads::check_error_count(&nested, "nested/5_errors", 5);
    let mut all = vec![weather, nested];
    if let Some((bfcl, stats)) = workloads::bfcl() {
        eprintln!("BFCL: {stats:?}");
        workloads::check(&bfcl);
        all.push(bfcl);
    }
    for w in &all {
        check_single_pass(w);
    }
    for w in &all {
        for set in &w.sets {
            bench_set(c, w, set);
            if set.name.ends_with("/valid") {
                bench_lenient(c, w, set);
            }
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
