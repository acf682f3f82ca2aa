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

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use tooldef::validate::Validator;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are updated.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`, returning its result, the peak of live bytes above the starting point while it ran,
/// and the bytes still live (above the starting point) once it returned.
fn measure<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    let peak = PEAK.load(Relaxed) - base;
    let live = LIVE.load(Relaxed).saturating_sub(base);
    (out, peak, live)
}

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
