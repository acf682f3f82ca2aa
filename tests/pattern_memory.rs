//! The memory a validator's patterns keep while matching hostile arguments, counted by a global
//! allocator (exact, unlike the resident set size). A pattern matched by its regex builds a lazy
//! DFA as it reads, and keeps it for the next match: before these searches were counted in the
//! pattern budget, 1,000 small patterns that the checker accepted kept 723 MB after one call of
//! 4 MB. One test in this file, so that no other test's allocations are counted.

#[path = "support/counting.rs"]
mod counting;
#[path = "support/random_text.rs"]
mod random_text;

use counting::{measure, Counting};
use tooldef::limits::MAX_PATTERN_MEMORY;
use tooldef::validate::{Mode, Validator};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The repetition of field `i`'s pattern: each field's text differs, and each one's DFA has
/// about 2^k states, too many to build ahead, so the regex matches it.
fn repetition(i: usize) -> usize {
    20 + i % 20
}

/// A tool of `n` string fields, field `i` with the pattern `^(a|b)*a(a|b){k}c{j}d` (`k` from
/// [`repetition`], `j = i / 20`): a few dozen bytes of source each.
fn exploding_patterns(n: usize) -> String {
    let mut s = String::from("/// Patterns.\ntool t {\n");
    for i in 0..n {
        s.push_str(&format!(
            "  f{i}: string @pattern(\"^(a|b)*a(a|b){{{}}}c{{{}}}d\")\n",
            repetition(i),
            i / 20
        ));
    }
    s.push_str("}\n");
    s
}

/// Arguments that every pattern of [`exploding_patterns`] matches only at their end, `total`
/// bytes of random `a` and `b` shared among the fields: each pattern's search reads its whole
/// string through states it has not seen.
fn hostile_arguments(n: usize, total: usize) -> String {
    let mut seed = 0x2545_F491_4F6C_DD1D_u64;
    let len = total / n;
    let mut args = serde_json::Map::new();
    for i in 0..n {
        let mut s = random_text::random_text(len, &['a', 'b'], &mut seed).into_bytes();
        let k = repetition(i);
        s[len - k - 1] = b'a';
        s.extend(std::iter::repeat_n(b'c', i / 20));
        s.push(b'd');
        let s = String::from_utf8(s).expect("ASCII");
        args.insert(format!("f{i}"), serde_json::Value::String(s));
    }
    serde_json::to_string(&serde_json::Value::Object(args)).expect("JSON")
}

#[test]
fn patterns_keep_their_budget_while_matching_hostile_arguments() {
    const TEXT: usize = 2 << 20;
    let mut largest = 0;
    for n in [16, 32, 64, 128, 256, 512] {
        let source = exploding_patterns(n);
        let compiled = match tooldef::compile(&source) {
            Ok(compiled) => compiled,
            Err(e) => {
                let message = e.to_string();
                assert!(
                    message.contains("more than 32 MiB"),
                    "{n} patterns: {message}"
                );
                continue;
            }
        };
        largest = n;
        let module = compiled.module;
        let validator = Validator::new(&module, &module.tools[0]).expect("a validator");
        let text = hostile_arguments(n, TEXT);
        let (valid, peak, kept) = measure(|| validator.is_valid(text.as_str(), Mode::Strict));
        assert!(valid, "{n}");
        // What the searches keep is within the budget; at the peak, the pass over the text
        // also holds what it read.
        assert!(
            kept <= MAX_PATTERN_MEMORY,
            "{n} patterns kept {kept} bytes after one call"
        );
        assert!(
            peak <= MAX_PATTERN_MEMORY + 2 * text.len(),
            "{n} patterns took {peak} bytes at the peak of one call of {} bytes",
            text.len()
        );
    }
    // Many such patterns fit in a module, and doubling them passes the budget.
    assert!((128..512).contains(&largest), "{largest} patterns compiled");
}
