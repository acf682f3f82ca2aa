//! Limits that hold through recursion and alias chains: sources built to double in size at each
//! step are rejected by the checker with the limit's code, on a 2 MiB thread stack (a library
//! caller's spawned thread), before any later stage could take exponential time or overflow the
//! stack.

use tooldef::Code;

/// Runs `f` on a thread with a 2 MiB stack.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no stack overflow")
}

fn codes(source: String) -> Vec<Code> {
    small_stack(move || match tooldef::compile(&source) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors().map(|d| d.code).collect(),
    })
}

/// `T_i { a?: T_{i-1}, b?: T_{i-1} }` doubles the inlined schema per level; hidden under a
/// recursive type, the body used to be counted as one schema and compiling took gigabytes.
fn doubling_under_recursion(levels: usize) -> String {
    let mut s = String::from("type T0 { x: string }\n");
    for i in 1..=levels {
        s.push_str(&format!("type T{i} {{ a?: T{}, b?: T{} }}\n", i - 1, i - 1));
    }
    s.push_str(&format!(
        "type R {{ next?: R, b?: T{levels} }}\n/// Boom.\ntool boom {{ r: R }}\n"
    ));
    s
}

fn alias_chain(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("type A{i} = A{}\n", i + 1));
    }
    s.push_str(&format!(
        "type A{n} = string\n/// Chain.\ntool chain {{ a: A0 }}\n"
    ));
    s
}

fn objects_under_recursion(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("type O{i} {{ x?: O{} }}\n", i + 1));
    }
    s.push_str(&format!(
        "type O{n} {{ y: string }}\ntype R {{ next?: R, o?: O0 }}\n/// Hide.\ntool hide {{ r: R }}\n"
    ));
    s
}

#[test]
fn a_large_body_behind_a_recursive_type_counts() {
    // 2^12 schemas fit the limit of 20,000; 2^15 do not. Each step doubles the schema.
    assert_eq!(codes(doubling_under_recursion(12)), []);
    for levels in [15, 16, 20, 30] {
        assert_eq!(
            codes(doubling_under_recursion(levels)),
            [Code::SchemaTooLarge],
            "{levels} levels"
        );
    }
    // Deeper still, the depth limit binds first.
    assert_eq!(codes(doubling_under_recursion(60)), [Code::SchemaTooDeep]);
}

#[test]
fn alias_chains_count_as_depth() {
    assert_eq!(codes(alias_chain(30)), []);
    for n in [64, 1_000, 2_000, 4_000, 8_000, 16_000] {
        assert_eq!(codes(alias_chain(n)), [Code::SchemaTooDeep], "{n} aliases");
    }
}

#[test]
fn deep_object_chains_behind_a_recursive_type_count() {
    assert_eq!(codes(objects_under_recursion(20)), []);
    for n in [50, 500, 1_000, 2_000, 4_000, 8_000] {
        assert_eq!(
            codes(objects_under_recursion(n)),
            [Code::SchemaTooDeep],
            "{n} objects"
        );
    }
}

/// What passes the checker stays within the emitters' own guard, for every target.
#[test]
fn what_the_checker_accepts_every_target_emits() {
    for source in [
        doubling_under_recursion(12),
        alias_chain(30),
        objects_under_recursion(20),
    ] {
        small_stack(move || {
            let module = tooldef::compile(&source).expect("within the limits").module;
            for &target in tooldef::emit::Target::ALL {
                if let Err(e) =
                    tooldef::emit::tools(&module, target, &tooldef::emit::Options::default())
                {
                    // A provider's own limits may refuse it; the emitters' guard on the
                    // inlined size must not.
                    assert!(
                        e.errors()
                            .all(|d| !d.message.contains("once named types are inlined")),
                        "{}: {e}",
                        target.as_str()
                    );
                }
            }
            for tool in &module.tools {
                tooldef::validate::Validator::new(&module, tool).expect("a validator");
            }
        });
    }
}
