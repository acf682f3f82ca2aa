//! # tooldef
//!
//! A small declarative language for the tools (function-calling definitions) that LLMs call.
//! A `.tool` file is parsed (`grammar/tool.pest` → the parser → [`ast`]), checked (the checker,
//! every problem as a [`Diagnostic`]) into an immutable [`Module`], and emitted as JSON Schema
//! ([`emit`]). The arguments a model sends back are checked by a compiled [`validate::Validator`],
//! strictly or with documented coercions.
//!
//! ```
//! let source = r#"
//! /// Return the current weather for a city.
//! @read_only
//! tool get_weather {
//!   /// The city, e.g. "Paris".
//!   city: string @min_length(1)
//!   days?: integer @min(1) @max(14) = 1
//!   unit?: "celsius" | "fahrenheit"
//! }
//! "#;
//!
//! let compiled = tooldef::compile(source).expect("the example compiles");
//! let tool = compiled.module.tool("get_weather").unwrap();
//! assert_eq!(tool.hints.read_only, Some(true));
//!
//! let schema = tooldef::emit::parameters(&compiled.module, tool);
//! assert_eq!(schema["properties"]["days"]["maximum"], 14);
//! assert_eq!(schema["required"], serde_json::json!(["city"]));
//! assert_eq!(schema["additionalProperties"], false);
//!
//! // Every error of a file is reported at once, each with a stable code and a span.
//! let errors = tooldef::compile("tool t { a: strng }").unwrap_err();
//! let codes: Vec<&str> = errors.errors().map(|d| d.code.as_str()).collect();
//! assert_eq!(codes, ["missing-description", "unknown-type"]);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs, unreachable_pub)]

// The unit tests that share generators with `tests/` (`tests/support/`) call the crate by its
// name, as those do.
#[cfg(test)]
extern crate self as tooldef;

// The public namespaces: each module's own `pub use` lines choose what it shows.
pub mod analysis;
pub mod ast;
pub mod codegen;
pub mod emit;
pub mod envelope;
pub mod hidden;
pub mod import;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
#[cfg(feature = "cli")]
pub mod render;
pub mod runtime;
pub mod validate;

// The stages behind the facade.
mod check;
mod diagnostic;
mod diff;
mod dispatch;
mod modules;
mod pattern;
mod print;
mod shape;
mod source;
mod suggest;
mod syntax;
mod toolset;

/// The README's Rust examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub use diagnostic::{
    decode_source, Code, Diagnostic, Errors, Fix, LineIndex, Related, Severity, Source, Span,
};
pub use diff::{diff, diff_tools, Change, ChangeKind};
pub use dispatch::{CallReport, DispatchError, DispatchOptions, Dispatched, Verdict};
pub use model::Module;
pub use modules::{compile_with, project_root, FileLoader, Loader, MemoryLoader};
pub use print::{format, Unprintable};
pub use runtime::{
    Approval, Approver, Audit, CallError, CallErrorKind, CallOutcome, CancelToken, Handler, Reply,
    RunOptions, Runtime, ToolError,
};
pub use suggest::{did_you_mean, listed};
pub use toolset::{Answer, LoadError, Toolset};

/// The fixed limits of the language and its compiler (see `docs/limits.md`).
pub mod limits {
    pub use crate::check::{
        MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, MAX_SCHEMA_TEXT, MAX_UNION_DEPTH, MAX_VALUE_DEPTH,
    };
    pub use crate::emit::{MAX_INLINED_SCHEMAS, MAX_INLINED_TEXT};
    pub use crate::modules::{MAX_BUILD_BYTES, MAX_BUILD_FILES};
    pub use crate::pattern::MAX_PATTERN_MEMORY;
    pub use crate::syntax::MAX_NESTING;
}

/// A successfully compiled source: the module and any warnings.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The checked model.
    pub module: Module,
    /// Warnings (never errors), in source order.
    pub warnings: Vec<Diagnostic>,
}

/// Parses a source into its syntax tree, without semantic checks.
pub fn parse(source: &str) -> Result<ast::File, Errors> {
    syntax::parse(source).map_err(Errors::new)
}

/// Compiles a `.tool` source: parse, check, and build the model. On failure, every error found
/// (and every warning) is returned, in source order.
pub fn compile(source: &str) -> Result<Compiled, Errors> {
    let parsed = syntax::parse_recovering(source);
    if modules::has_imports(&parsed.file) {
        let mut diagnostics = parsed.errors;
        diagnostics.extend(modules::imports_need_a_loader(&parsed.file));
        diagnostics.sort_by_key(|d| (d.span.start, d.span.end));
        return Err(Errors::new(diagnostics));
    }
    // The items that parsed are checked even beside syntax errors, so that one round of fixes can
    // address every problem.
    let (module, checked) = check::check(&parsed.file, &parsed.broken_names);
    let mut diagnostics = parsed.errors;
    diagnostics.extend(checked);
    match module {
        Some(module) if !diagnostics.iter().any(Diagnostic::is_error) => Ok(Compiled {
            module,
            warnings: diagnostics,
        }),
        _ => Err(Errors::new(diagnostics)),
    }
}

/// Compiles source bytes, reporting invalid UTF-8 as a diagnostic.
pub fn compile_bytes(bytes: &[u8]) -> Result<Compiled, Errors> {
    let source = diagnostic::decode_source(bytes).map_err(|d| Errors::new(vec![d]))?;
    compile(source)
}
