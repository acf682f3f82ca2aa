//! Arbitrary text through the formatter. When `print::format(s)` succeeds:
//! - formatting is idempotent: `format(format(s)) == format(s)`;
//! - formatting keeps the meaning: `compile(s)` and `compile(format(s))` both fail, or both
//!   succeed and emit the same `json-schema` document (or both fail to emit it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tooldef::emit::{self, Options, Target};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(once) = tooldef::format(source) else {
        return;
    };
    let twice = tooldef::format(&once)
        .unwrap_or_else(|e| panic!("formatted output does not format: {e:?}\n{once}"));
    assert_eq!(once, twice, "formatting is not idempotent");
    let options = Options { warnings: false };
    match (tooldef::compile(source), tooldef::compile(&once)) {
        (Err(_), Err(_)) => {}
        (Ok(a), Ok(b)) => {
            let a = emit::tools(&a.module, Target::JsonSchema, &options).map(|e| e.json);
            let b = emit::tools(&b.module, Target::JsonSchema, &options).map(|e| e.json);
            assert_eq!(a.is_ok(), b.is_ok(), "emission differs after formatting");
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_eq!(a, b, "formatting changed the schema\n{once}");
            }
        }
        (a, b) => panic!(
            "formatting changed whether the file compiles: before {}, after {}\n{once}",
            a.is_ok(),
            b.is_ok()
        ),
    }
});
