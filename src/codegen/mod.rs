//! Typed code generated from a checked toolset: the types of every tool's arguments (as a
//! handler receives them, validated and normalized) and output, of every named type, enum and
//! union, and the glue that registers typed handlers with the [`crate::runtime::Runtime`].
//!
//! Generation reads the checked model only ([`crate::model`]), never the syntax, so what the
//! generated types say is what the validator checks. What a language cannot say (a pattern, a
//! bound, a rule across keys) is said in a comment at the field, never claimed as a check.
//!
//! ```
//! let toolset = tooldef::Toolset::from_source(
//!     "/// Greet someone.\ntool greet -> string {\n  name: string\n  times?: integer = 1\n}",
//! )
//! .unwrap();
//! let code = tooldef::codegen::rust(&toolset, "greet.tool");
//! assert!(code.contains("pub struct GreetArgs"));
//! assert!(code.contains("pub times: i64,"));
//! assert!(code.contains("fn greet(&self, args: GreetArgs)"));
//! ```

mod names;
mod rust;

pub use rust::{rust, rust_module};
