//! Printing: syntax trees and models → canonical `.tool` source.
//!
//! One printer lays out syntax trees ([`file()`]); the formatter ([`format()`]) runs it over a
//! parsed source with the source's `//` comments put back by byte offset; the model printer
//! ([`syntax_tree`]) first turns a [`Module`] into a syntax tree, so that a printed model compiles
//! back to the same model (`compile(print(m)).module == m`).
//!
//! The canonical layout: items separated by one blank line; `///` docs, then the attributes of
//! an item on one line, then its header; one field or enum value per line, indented by two
//! spaces; inline objects broken over lines the same way; `A | B` with single spaces; constraints
//! after the type they constrain; field annotations, then `= default`. Blank lines between
//! fields are kept (at most one).

mod comments;
mod from_model;
mod layout;

use crate::ast::File;
use crate::diagnostic::{Errors, Span};
use crate::model::Module;

use comments::comments;
use from_model::to_ast;
use layout::Printer;

/// Prints a syntax tree in canonical layout, without comments.
pub(crate) fn file(f: &File) -> String {
    let mut p = Printer::new("", Vec::new());
    p.file(f);
    p.finish()
}

/// Formats a source: parses it, prints it in canonical layout, and puts every `//` comment back
/// (a comment on its own line stays before the same member; a comment after code stays at the
/// end of that line). `///` doc comments are part of the syntax tree and printed with it.
///
/// Line breaks are written as the source's first one is (CRLF or LF, as rustfmt's default
/// does), and a byte-order mark the source starts with is kept: a file checked out with
/// Windows line endings is not rewritten, or reported by `fmt --check`, for its line ends.
///
/// The result is checked before it is returned: it must parse to the same syntax tree as the
/// source (spans aside), so formatting can never change what a file means.
pub fn format(source: &str) -> Result<String, Errors> {
    let f = crate::parse(source)?;
    let comments = comments(source);
    let expected = comments.len();
    let mut p = Printer::new(source, comments);
    p.file(&f);
    let out = written_as(source, p.finish());
    let same = crate::parse(&out).is_ok_and(|g| g == f) && self::comments(&out).len() == expected;
    if !same {
        return Err(Errors::new(vec![crate::Diagnostic::error(
            crate::Code::Syntax,
            Span::new(0, 0),
            "the formatter could not lay this file out without changing it; the file was left alone",
        )
        .with_label("not formatted")]));
    }
    Ok(out)
}

/// The line break a source writes: its first line's, CRLF or LF (LF for a source of one line).
pub(crate) fn line_break(source: &str) -> &'static str {
    match source.find('\n') {
        Some(i) if source[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// `out` (LF line breaks, no byte-order mark) with the line breaks of `source`'s first line
/// and its byte-order mark, if it has them.
fn written_as(source: &str, out: String) -> String {
    let bom = source.starts_with('\u{feff}');
    let out = match line_break(source) {
        "\n" => out,
        crlf => out.replace('\n', crlf),
    };
    if bom {
        format!("\u{feff}{out}")
    } else {
        out
    }
}

/// Why a model has no `.tool` spelling.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unprintable(pub String);

/// The syntax tree a model prints as: [`Module::to_source`] is [`file()`] of it. The tree keeps the
/// spans of the model's fields and constraints, which the importer uses as tags
/// (`import::origins`); the printer reads no span of a tree it did not parse.
pub(crate) fn syntax_tree(m: &Module) -> Result<File, Unprintable> {
    to_ast(m)
}

impl Module {
    /// Prints the model as canonical source: named types and enums first, then the tools (in
    /// source order when the model was compiled from a source). The printed source compiles
    /// back to the same model.
    ///
    /// Fails only for model details the language has no spelling for: literal types whose value
    /// is an array or an object, `@meta` keys that are not identifiers, named types whose name
    /// is not an identifier, or enum values that are neither strings nor integers in a named
    /// `enum`.
    pub fn to_source(&self) -> Result<String, Unprintable> {
        Ok(file(&to_ast(self)?))
    }
}
