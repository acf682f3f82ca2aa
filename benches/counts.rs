//! A driver for instruction counts: runs one operation of the benchmarks on one instance set, in a
//! loop inside `measured`, so that `valgrind --tool=callgrind` counts that loop alone (wall-clock
//! medians move by tens of percent on a shared machine; instruction counts repeat exactly).
//!
//! ```sh
//! cargo bench --bench counts --no-run          # prints nothing; builds the binary
//! benches/counts.sh                            # every operation on every set, a table
//! ```
//!
//! By hand: `counts SET OP N` runs `OP` on every instance of `SET` `N` times, e.g.
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured*' \
//!  target/release/deps/counts-* weather/valid ours_is_valid 100`.
//!
//! Sets: the sets of `workloads` (`weather/valid`, `weather/3_errors`, `nested/valid`,
//! `nested/5_errors`, `bfcl/valid`, `bfcl/invalid_twins`) and the sources `compile/weather`,
//! `compile/nested`, `compile/generated_1000`. Without arguments (as in `cargo test --benches`),
//! every operation runs once on the weather and nested sets and the compile sources.

mod workloads;

use std::hint::black_box;

use serde_json::Value;
use tooldef::validate::Mode;

use workloads::{Subject, Workload};

/// The operations on argument sets, as in `benches/validate.rs`.
const VALIDATE_OPS: [&str; 10] = [
    "ours_is_valid",
    "theirs_is_valid",
    "ours_validate_value",
    "theirs_iter_errors",
    "ours_validate_value_messages",
    "theirs_iter_errors_messages",
    "ours_validate_str_lax",
    "ours_validate_str_strict",
    "serde_json_from_str",
    "loop_only",
];

/// The operations on sources, as in `benches/compile.rs`.
const COMPILE_OPS: [&str; 4] = [
    "ours_compile_validators",
    "ours_compile",
    "ours_parse",
    "serde_json_parse_emitted",
];

/// One operation on one instance: its subject, the arguments as a value and as text.
type ValidateOp = fn(&Subject, &Value, &str) -> usize;

/// The operation named `op`, resolved once, outside the counted loop (matching its name for every
/// instance was counted too, the same for both sides, which drew every ratio toward 1).
fn validate_op(op: &str) -> ValidateOp {
    match op {
        "ours_is_valid" => |s, value, _| usize::from(s.ours.is_valid(value, Mode::Strict)),
        "theirs_is_valid" => |s, value, _| usize::from(s.theirs.is_valid(value)),
        "ours_validate_value" => |s, value, _| match s.ours.validate_value(value, Mode::Strict) {
            Ok(v) => usize::from(v.arguments.is_object()),
            Err(e) => e.errors.len(),
        },
        "theirs_iter_errors" => |s, value, _| s.theirs.iter_errors(value).collect::<Vec<_>>().len(),
        // Every error's message, and tooldef's one message for the model.
        "ours_validate_value_messages" => |s, value, _| workloads::ours_with_messages(s, value),
        "theirs_iter_errors_messages" => |s, value, _| workloads::theirs_with_messages(s, value),
        "ours_validate_str_lax" => {
            |s, _, text| usize::from(s.ours.validate_str(text, Mode::Lax).is_ok())
        }
        "ours_validate_str_strict" => {
            |s, _, text| usize::from(s.ours.validate_str(text, Mode::Strict).is_ok())
        }
        "serde_json_from_str" => {
            |_, _, text| usize::from(serde_json::from_str::<Value>(text).is_ok())
        }
        // The loop alone, which every operation's count includes.
        "loop_only" => |_, _, _| 0,
        other => panic!("unknown operation {other}; one of {VALIDATE_OPS:?}"),
    }
}

fn compile_op(op: &str, source: &str, json: &str) -> usize {
    match op {
        "ours_compile_validators" => workloads::validators(source),
        "ours_compile" => usize::from(tooldef::compile(source).is_ok()),
        "ours_parse" => usize::from(tooldef::parse(source).is_ok()),
        "serde_json_parse_emitted" => usize::from(serde_json::from_str::<Value>(json).is_ok()),
        other => panic!("unknown operation {other}; one of {COMPILE_OPS:?}"),
    }
}

/// The counted loop: `callgrind --toggle-collect='*measured*'` counts this function alone.
#[inline(never)]
fn measured(n: usize, mut once: impl FnMut() -> usize) -> usize {
    let mut total = 0;
    for _ in 0..n {
        total += black_box(once());
    }
    total
}

fn run_set(w: &Workload, set: &str, op: &str, n: usize) -> usize {
    let set = w
        .sets
        .iter()
        .find(|s| s.name == set)
        .unwrap_or_else(|| panic!("no set {set} in {}", w.name));
    let pairs: Vec<_> = set
        .instances
        .iter()
        .map(|i| (&w.subjects[i.subject], i))
        .collect();
    let op = validate_op(op);
    // Once outside the count: caches (the shared regexes, lazily built tables) are warm.
    for (s, i) in &pairs {
        op(s, &i.value, &i.text);
    }
    measured(n, || {
        pairs
            .iter()
            .map(|(s, i)| op(s, black_box(&i.value), black_box(&i.text)))
            .sum()
    })
}

fn run_source(name: &str, op: &str, n: usize) -> usize {
    let short = name.strip_prefix("compile/").unwrap_or(name);
    let (_, source) = workloads::compile_sources()
        .into_iter()
        .find(|(n, _)| *n == short)
        .unwrap_or_else(|| panic!("no source {name}"));
    let (_, json) = workloads::emitted(&source);
    compile_op(op, &source, &json);
    measured(n, || compile_op(op, black_box(&source), black_box(&json)))
}

fn workload(set: &str) -> Workload {
    match set.split('/').next() {
        Some("weather") => workloads::weather(),
        Some("nested") => workloads::nested(),
        Some("bfcl") => match workloads::bfcl() {
            Some((w, _)) => w,
            None => std::process::exit(0),
        },
        _ => panic!("no workload for {set}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match args.as_slice() {
        [set, op, n] => {
            let n: usize = n.parse().expect("N is a count");
            let total = if set.starts_with("compile/") {
                run_source(set, op, n)
            } else {
                run_set(&workload(set), set, op, n)
            };
            println!("{set} {op} x{n}: {total}");
        }
        [] => {
            for w in [workloads::weather(), workloads::nested()] {
                for set in &w.sets {
                    for op in VALIDATE_OPS {
                        run_set(&w, &set.name, op, 1);
                    }
                    // The counted checks give the set's verdict on every instance.
                    let want = if set.valid { set.instances.len() } else { 0 };
                    for op in ["ours_is_valid", "theirs_is_valid", "ours_validate_str_lax"] {
                        assert_eq!(run_set(&w, &set.name, op, 1), want, "{} {op}", set.name);
                    }
                }
            }
            for name in ["compile/weather", "compile/nested"] {
                for op in COMPILE_OPS {
                    assert!(run_source(name, op, 1) > 0, "{name} {op}");
                }
            }
        }
        _ => panic!("usage: counts [SET OP N]"),
    }
}
