//! Names and the texts a model reads: tool names, descriptions, and the hidden-character guard on
//! every text a target puts in front of the model (folded defaults and examples included).

use serde_json::Value;

use crate::ast;
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::emit::{self, fold::Folded};
use crate::hidden;
use crate::model::*;

use super::{Checker, HIDDEN_HELP};

impl Checker {
    pub(super) fn tool_name(&mut self, name: &ast::Name) {
        let ok = !name.text.is_empty()
            && name.text.len() <= 128
            && name
                .text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !ok {
            let rule = "tool names are 1 to 128 characters from A-Z, a-z, 0-9, `_`, `-` and `.`";
            // A hidden character is named, so that the message shows what the source does not.
            let help = match hidden::find(&name.text, hidden::Text::Line) {
                Some(h) => format!(
                    "{rule}; this one contains the invisible or control character {} ({})",
                    h.code_point(),
                    h.class.describe()
                ),
                None => rule.to_string(),
            };
            self.error(
                Diagnostic::error(
                    Code::InvalidName,
                    name.span,
                    format!("`{}` is not a valid tool name", hidden::reveal(&name.text)),
                )
                .with_label("invalid tool name")
                .with_help(help),
            );
        }
    }

    /// The description from a doc comment, checked for forbidden characters; `None` when absent
    /// or blank.
    pub(super) fn description(&mut self, doc: Option<&ast::Doc>) -> Option<String> {
        let doc = doc?;
        if doc.text.trim().is_empty() {
            return None;
        }
        self.shown_text(&doc.text, doc.span, "description");
        Some(doc.text.clone())
    }

    /// Rejects characters that hide text from a human reviewer but not from a model (a guard
    /// against tool poisoning; the rule is [`crate::hidden`]).
    pub(super) fn shown_text(&mut self, text: &str, span: Span, what: &str) {
        let kind = if what == "description" {
            hidden::Text::Prose
        } else {
            hidden::Text::Line
        };
        if let Some(h) = hidden::find(text, kind) {
            self.error(
                Diagnostic::error(
                    Code::ForbiddenCharacter,
                    span,
                    format!(
                        "{what} contains the invisible or control character {}",
                        h.code_point()
                    ),
                )
                .with_label("forbidden character")
                .with_help(HIDDEN_HELP),
            );
        }
    }

    /// Rejects hidden characters in the strings of a value (a default, an example, an enum
    /// value) that targets write into a description as JSON, where the model reads it as text.
    /// A value no target folds is data, and stays exempt.
    pub(super) fn folded_value(&mut self, value: &Value, span: Span, folded: Folded) {
        let targets = emit::fold::folding_targets(folded);
        if targets.is_empty() {
            return;
        }
        let Some((inside, h)) = hidden::find_in_value(value) else {
            return;
        };
        let what = folded.noun();
        let at = if inside.is_empty() {
            String::new()
        } else {
            format!(" (at {inside} in the value)")
        };
        let names: Vec<&str> = targets.iter().map(|t| t.as_str()).collect();
        self.error(
            Diagnostic::error(
                Code::ForbiddenCharacter,
                span,
                format!(
                    "{what} contains the invisible or control character {}{at}",
                    h.code_point()
                ),
            )
            .with_label("forbidden character")
            .with_help(format!(
                "this {what} is folded into the description by targets {}, where the model reads it; {HIDDEN_HELP}",
                names.join(", ")
            )),
        );
    }
}

pub(super) fn duplicate(what: &str, name: &str, span: Span, first: Span) -> Diagnostic {
    Diagnostic::error(
        Code::DuplicateName,
        span,
        format!("the {what} `{name}` is defined more than once"),
    )
    .with_label(format!("duplicate {what}"))
    .with_related(first, "first defined here")
    .with_help(format!(
        "rename or remove one of the two; {what} names must be unique"
    ))
}

pub(super) fn first_line(s: &str) -> &str {
    s.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map_or_else(
            || s.lines().next().unwrap_or(s),
            |l| l.trim_start_matches("error:").trim(),
        )
}

/// How targets fold an enum's values into descriptions, if any does
/// ([`emit::fold::enum_folding`]).
pub(super) fn enum_folding(members: &[EnumMember]) -> Option<Folded> {
    emit::fold::enum_folding(
        members.iter().map(|m| &m.value),
        members.iter().any(|m| m.description.is_some()),
    )
}
