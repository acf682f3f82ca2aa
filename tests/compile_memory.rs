//! The memory that compiling a source takes, counted by a global allocator (exact, unlike the
//! resident set size): it grows in proportion to the source, whatever the source holds, and
//! drawing its diagnostics holds one report at a time. One test in this file, so that no other
//! test's allocations are counted.

#[path = "support/counting.rs"]
mod counting;

use counting::{measure, Counting};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A source of size `n`.
type Source = fn(usize) -> String;

/// Sources that grow with `n`, each a shape that makes the most of something: fields, named
/// types, diagnostics, the parser's tokens.
const SHAPES: [(&str, Source); 5] = [
    ("a tool of n valid fields", |n| {
        let mut s = String::from("/// T.\ntool t {\n");
        for i in 0..n {
            s.push_str(&format!("  /// F.\n  f{i}?: integer @min(0) = 1\n"));
        }
        s + "}\n"
    }),
    ("n fields of an unknown type (a diagnostic each)", |n| {
        let mut s = String::from("/// T.\ntool t {\n");
        for i in 0..n {
            s.push_str(&format!("  a{i}: q\n"));
        }
        s + "}\n"
    }),
    ("n aliases of an unknown type, without descriptions", |n| {
        (0..n).map(|i| format!("type A{i} = q\n")).collect()
    }),
    ("a rule naming one field n times (a diagnostic each)", |n| {
        let names = vec!["a"; n].join(", ");
        format!(
            "/// T.\n@exactly_one_of(a, b, {names})\ntool t {{\n  a?: string\n  b?: string\n}}\n"
        )
    }),
    ("an attribute of n arguments", |n| {
        let args = vec!["1"; n].join(",");
        format!("/// T.\ntool t {{\n  /// A.\n  a: string @min_length({args})\n}}\n")
    }),
];

/// The most memory a byte of source may take while it is compiled, at the peak. The measured
/// ratios lie between about 100 and 200 (the parser's tokens and the syntax tree); a shape that
/// grows faster than its source passes this at the sizes below.
const PEAK_PER_SOURCE_BYTE: usize = 300;

#[test]
fn compiling_takes_memory_in_proportion_to_the_source() {
    for (shape, source) in SHAPES {
        let mut last: Option<(usize, usize)> = None;
        // Each size twice the one before.
        for n in [2_500, 5_000, 10_000, 20_000] {
            let text = source(n);
            let (_, peak, _) = measure(|| drop(tooldef::compile(&text)));
            let per_byte = peak / text.len();
            eprintln!(
                "{shape}, n = {n}: {} bytes of source, peak {peak} ({per_byte} a byte)",
                text.len()
            );
            assert!(
                per_byte <= PEAK_PER_SOURCE_BYTE,
                "{shape}, n = {n}: {peak} bytes at the peak for {} bytes of source",
                text.len()
            );
            if let Some((bytes, before)) = last {
                // Twice the source: at most about twice the memory (a vector that doubles its
                // room may take up to half as much again, once).
                let growth = peak as f64 / before as f64;
                let source_growth = text.len() as f64 / bytes as f64;
                assert!(
                    growth <= 1.5 * source_growth,
                    "{shape}, n = {n}: the peak grew {growth:.2}× for {source_growth:.2}× the source"
                );
            }
            last = Some((text.len(), peak));
        }
    }
    #[cfg(feature = "cli")]
    reports_are_written_one_at_a_time();
}

/// `render::write_reports` holds one report at a time: drawing the diagnostics of eight times
/// the problems takes no more memory at the peak, beyond the source's line index, where drawing
/// them all into one string took memory in proportion to what was drawn.
#[cfg(feature = "cli")]
fn reports_are_written_one_at_a_time() {
    use std::io::Write;
    use tooldef::render::{write_reports, Style};

    /// A writer that keeps nothing, counting what it was given.
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    let mut first: Option<usize> = None;
    for n in [500, 4_000] {
        let text = (SHAPES[3].1)(n);
        let errors = tooldef::compile(&text).expect_err("the names repeat");
        assert!(errors.diagnostics.len() >= n, "{n}");
        let mut out = Count(0);
        let (written, peak, _) =
            measure(|| write_reports(&mut out, &errors.diagnostics, "t.tool", &text, Style::Plain));
        written.expect("a count never fails");
        eprintln!("{n} reports: {} bytes drawn, peak {peak}", out.0);
        assert!(
            peak < out.0 / 20,
            "{n} reports: {peak} bytes at the peak to draw {} bytes",
            out.0
        );
        let first = *first.get_or_insert(peak);
        assert!(
            peak <= 2 * first,
            "{n} reports: {peak} bytes at the peak, {first} for 500"
        );
    }
}
