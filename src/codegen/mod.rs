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
mod typescript;

pub use rust::{rust, rust_module};
pub use typescript::{typescript, typescript_module};

use crate::model::{KeyGroup, ObjectTy, Ty};

/// What tooldef checks of a value of `ty` that its Rust type does not say.
pub(crate) fn notes(ty: &Ty) -> Vec<String> {
    let mut out = Vec::new();
    match ty {
        Ty::Never => out.push("no value is valid: the key must be absent".to_string()),
        Ty::Integer(r) | Ty::Number(r) => {
            if let Some(b) = r.lower() {
                out.push(format!("at least {b}"));
            }
            if let Some(b) = r.upper() {
                out.push(format!("at most {b}"));
            }
            if let Some(m) = &r.multiple_of {
                out.push(format!("a multiple of {}", m.value));
            }
        }
        Ty::String(r) => {
            if let Some(m) = &r.min_length {
                out.push(format!("at least {} characters", m.value));
            }
            if let Some(m) = &r.max_length {
                out.push(format!("at most {} characters", m.value));
            }
            if let Some(p) = &r.pattern {
                out.push(format!("matches `{}`", p.value.replace('`', "\\`")));
            }
            if let Some(f) = &r.format {
                out.push(format!("format `{}`", f.value.as_str()));
            }
        }
        Ty::Array(a) => {
            if let Some(m) = &a.min_items {
                out.push(format!("at least {} items", m.value));
            }
            if let Some(m) = &a.max_items {
                out.push(format!("at most {} items", m.value));
            }
            if a.unique.as_ref().is_some_and(|u| u.value) {
                out.push("no two items equal".to_string());
            }
            for n in notes(&a.items) {
                out.push(format!("each item: {n}"));
            }
        }
        Ty::Nullable(inner) => out.extend(notes(inner)),
        _ => {}
    }
    out
}

/// A doc text followed by the checks its type does not make.
pub(crate) fn doc_with_notes(doc: &str, notes: &[String]) -> String {
    if notes.is_empty() {
        return doc.to_string();
    }
    join(
        doc,
        &format!(
            "Checked by tooldef, not by this type: {}.",
            notes.join("; ")
        ),
    )
}

/// Two paragraphs.
pub(crate) fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}\n\n{b}")
    }
}

/// The rules across an object's keys, which no generated type checks.
pub(crate) fn key_rules(o: &ObjectTy) -> Vec<String> {
    let mut rules = Vec::new();
    if let Some(m) = &o.rules.min_properties {
        rules.push(format!("at least {} keys", m.value));
    }
    if let Some(m) = &o.rules.max_properties {
        rules.push(format!("at most {} keys", m.value));
    }
    for g in &o.rules.groups {
        rules.push(match &g.value {
            KeyGroup::ExactlyOneOf(k) => format!("exactly one of `{}`", k.join("`, `")),
            KeyGroup::AtMostOneOf(k) => format!("at most one of `{}`", k.join("`, `")),
            KeyGroup::Requires { key, needs } => {
                format!("`{key}` requires `{}`", needs.join("`, `"))
            }
        });
    }
    rules
}

/// `text` on one line, for a generated file's header: control characters become spaces.
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
