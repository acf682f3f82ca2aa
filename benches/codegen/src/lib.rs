//! Empty: the benchmark is in `benches/codegen.rs`.
