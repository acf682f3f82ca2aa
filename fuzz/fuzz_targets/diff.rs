//! Arbitrary bytes as two `.tool` sources, split at the first zero byte: the old and the new
//! version of a tool set, compared as `tooldef diff` compares them.
//!
//! Invariants, for every pair that compiles:
//! - `diff` finishes without panicking, in both directions;
//! - a module compared with itself, or with its printed source compiled again, has no change
//!   (but for types too large to compare, which `diff` reports as breaking on purpose);
//! - every change names a tool of one side or the other.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tooldef::Module;

fn compiled(bytes: &[u8]) -> Option<Module> {
    tooldef::compile_bytes(bytes).ok().map(|c| c.module)
}

/// No change between `a` and `b`, except where the types were too large for the comparison to
/// decide: `diff` then reports them as breaking on purpose (the cautious answer), even between
/// equal types.
fn no_change(a: &Module, b: &Module, what: &str) {
    let changes: Vec<_> = tooldef::diff(a, b)
        .into_iter()
        .filter(|c| !c.message.contains("too large to compare"))
        .collect();
    assert!(changes.is_empty(), "{what}: {changes:#?}");
}

fuzz_target!(|data: &[u8]| {
    let (old, new) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    let (Some(old), Some(new)) = (compiled(old), compiled(new)) else {
        return;
    };
    no_change(&old, &old, "the old module against itself");
    let printed = old.to_source().expect("a compiled model prints");
    let reprinted = tooldef::compile(&printed).expect("the printed model compiles");
    no_change(&old, &reprinted.module, "the old module against its printed source");

    let names = |m: &Module| m.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    let (old_names, new_names) = (names(&old), names(&new));
    for (a, b) in [(&old, &new), (&new, &old)] {
        for change in tooldef::diff(a, b) {
            assert!(
                old_names.contains(&change.tool) || new_names.contains(&change.tool),
                "a change names no tool: {change:?}"
            );
        }
    }
});
