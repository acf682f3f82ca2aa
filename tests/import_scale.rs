//! A set of files that import each other costs in proportion to the files, not to how often
//! each is reached: every file is read, parsed and checked once per build. A chain of 1,000 files
//! that each import the next once took 37 s and 1 GB to build, since each file was compiled as a
//! root of its own with everything it reaches. One test in this file, so that no other test's
//! allocations are counted.

#[path = "support/counting.rs"]
mod counting;

use std::cell::Cell;

use counting::{allocations, measure, Counting};
use tooldef::{Loader, MemoryLoader, Source, Toolset};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A loader that counts what it reads.
struct Counted {
    inner: MemoryLoader,
    loads: Cell<usize>,
}

impl Loader for Counted {
    fn load(&self, name: &str) -> Result<String, String> {
        self.loads.set(self.loads.get() + 1);
        self.inner.load(name)
    }
}

/// File `i` of a chain of `n`: it imports a type of the next file and uses it in its tool; with
/// `linked`, its own type refers to the next one too, so that each tool reaches the rest of the
/// chain through its types (too deep a schema past 40 files: an error for each such tool).
fn chain_file(i: usize, n: usize, linked: bool) -> String {
    let mut s = String::new();
    if i + 1 < n {
        s.push_str(&format!(
            "import {{ T{} }} from \"./f{}.tool\"\n",
            i + 1,
            i + 1
        ));
    }
    let next = if i + 1 < n && linked {
        format!(", next?: T{}", i + 1)
    } else {
        String::new()
    };
    s.push_str(&format!("type T{i} = {{ v: string{next} }}\n"));
    let arg = if i + 1 < n { i + 1 } else { i };
    s.push_str(&format!(
        "/// Tool {i}.\n@allow(undescribed-field)\ntool t{i} {{ x: T{arg} }}\n"
    ));
    s
}

/// Builds the whole chain as one set (every file named, as `build DIR` names them); returns the
/// loads, the peak of live bytes and the allocations it made.
fn build(n: usize, linked: bool) -> (usize, usize, usize) {
    let mut files = MemoryLoader::new();
    let mut roots = Vec::new();
    for i in 0..n {
        let text = chain_file(i, n, linked);
        files.insert(format!("f{i}.tool"), text.clone());
        roots.push(Source::new(format!("f{i}.tool"), text));
    }
    let loader = Counted {
        inner: files,
        loads: Cell::new(0),
    };
    let before = allocations();
    let (set, peak, _) = measure(|| Toolset::with_loader(roots, &loader));
    let made = allocations() - before;
    match set {
        Ok(set) => {
            assert!(!linked);
            assert_eq!(set.len(), n, "a tool for every file");
        }
        Err(e) => {
            assert!(linked, "the chain compiles: {:?}", e.diagnostics.first());
            // Each tool of the first n - 40 files is too deep, and said so once.
            assert_eq!(e.diagnostics.len(), n - 40, "{:?}", e.diagnostics.first());
        }
    }
    (loader.loads.get(), peak, made)
}

#[test]
fn a_chain_of_imports_costs_in_proportion_to_its_files() {
    for linked in [false, true] {
        let mut last: Option<(usize, usize)> = None;
        // Each chain twice as long as the one before.
        for n in [250, 500, 1_000, 2_000] {
            let (loads, peak, made) = build(n, linked);
            eprintln!("linked: {linked}, {n} files: peak {peak} bytes, {made} allocations");
            // Every file is named, so none is read through the loader: each is parsed once.
            assert_eq!(loads, 0, "{n} files named and imported were read again");
            if let Some((peak_before, made_before)) = last {
                let grew = peak as f64 / peak_before as f64;
                let work = made as f64 / made_before as f64;
                // Twice the files: about twice the memory and the work (quadratic would be 4×).
                assert!(
                    grew <= 2.6,
                    "linked: {linked}, {n} files: the peak grew {grew:.2}×"
                );
                assert!(
                    work <= 2.6,
                    "linked: {linked}, {n} files: the work grew {work:.2}×"
                );
            }
            last = Some((peak, made));
        }
    }
    only_the_first_named_reads_the_rest_once();
}

/// The first file alone, its imports read through the loader: each file once.
fn only_the_first_named_reads_the_rest_once() {
    let n = 500;
    let mut files = MemoryLoader::new();
    for i in 0..n {
        files.insert(format!("f{i}.tool"), chain_file(i, n, false));
    }
    let loader = Counted {
        inner: files,
        loads: Cell::new(0),
    };
    let root = Source::new("f0.tool", chain_file(0, n, false));
    let set = Toolset::with_loader([root], &loader).expect("compiles");
    assert_eq!(set.len(), 1, "only the named file's tools");
    assert_eq!(loader.loads.get(), n - 1, "each imported file read once");
}
