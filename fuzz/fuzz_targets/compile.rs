//! Arbitrary bytes as a `.tool` source. For every source that compiles:
//! - every target's `emit::tools`, and a validator for each tool's parameters and output, finish
//!   without panicking (errors are fine: a target may be unable to represent a tool);
//! - the model prints (`print::module`: a compiled model always has a spelling), the printed
//!   source compiles, prints to itself, and emits the same `json-schema` document.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if let Ok(compiled) = tooldef::compile_bytes(data) {
        common::check_module(&compiled.module, tooldef::emit::Target::ALL);
    }
});
