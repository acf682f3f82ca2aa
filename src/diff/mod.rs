//! Comparing two versions of a set of tools: every change, classified by what it does to the
//! callers of the tools (`docs/diff-and-lock.md`).
//!
//! - [`ChangeKind::Breaking`]: a call that was valid is rejected now (decided by the relation
//!   "does the new type accept every value the old one accepts?", over the model's types).
//! - [`ChangeKind::Safety`]: a safety attribute was weakened (`@read_only`, `@idempotent` or
//!   `@requires_approval` removed, `@destructive` or `@open_world` added).
//! - [`ChangeKind::Model`]: what the model reads changed (a description, title, example or
//!   default).
//! - [`ChangeKind::Compatible`]: everything else (an optional field added, a type widened).
//!
//! Each change has a path: a JSON pointer into the tool's MCP `Tool` JSON
//! (`/inputSchema/properties/unit`, `/description`, `/annotations/readOnlyHint`), with named types
//! inlined as the emitters inline them; the empty path is the whole tool. What MCP does not carry
//! is named after its attribute (`/requires_approval`, `/mode`, `/formats`).
//!
//! ```
//! use tooldef::{diff, ChangeKind};
//!
//! let old = tooldef::compile("/// Add.\ntool add { a: integer, b?: integer }").unwrap().module;
//! let new = tooldef::compile("/// Add.\ntool add { a: integer, b: integer }").unwrap().module;
//! let changes = diff(&old, &new);
//! assert_eq!(changes.len(), 1);
//! assert_eq!(changes[0].kind, ChangeKind::Breaking);
//! assert_eq!(changes[0].path, "/inputSchema/properties/b");
//! ```

mod relation;
mod tool;
mod walk;

use std::collections::HashMap;

use crate::model::{Module, Tool};
use crate::suggest::Budget;

/// How a change affects the callers of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// A call that was valid is rejected now.
    Breaking,
    /// A safety attribute was weakened.
    Safety,
    /// What the model reads changed: a description, title, example or default.
    Model,
    /// Anything else: old calls stay valid.
    Compatible,
}

impl ChangeKind {
    /// The class's name: `breaking`, `safety`, `model` or `compatible`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Breaking => "breaking",
            ChangeKind::Safety => "safety",
            ChangeKind::Model => "model",
            ChangeKind::Compatible => "compatible",
        }
    }

    /// Whether a change of this class needs someone to look (`breaking` and `safety`).
    pub fn needs_review(self) -> bool {
        matches!(self, ChangeKind::Breaking | ChangeKind::Safety)
    }
}

/// One change between two versions of a tool.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Change {
    /// The tool's name (the old one's, for a tool removed).
    pub tool: String,
    /// Where: a JSON pointer into the tool's MCP `Tool` JSON; empty for the whole tool.
    pub path: String,
    /// The class.
    pub kind: ChangeKind,
    /// What changed, in words.
    pub message: String,
}

/// Every change from the tools of `old` to the tools of `new`, tool by tool (in `old`'s order,
/// then the tools only `new` has), each tool's in the order of its definition.
pub fn diff(old: &Module, new: &Module) -> Vec<Change> {
    diff_tools(&pairs(old), &pairs(new))
}

/// Each tool of a module, with the module.
fn pairs(module: &Module) -> Vec<(&Module, &Tool)> {
    module.tools.iter().map(|t| (module, t)).collect()
}

/// [`diff`] over tools that may come from several modules each (a [`crate::Toolset`]'s
/// [`tools`](crate::Toolset::tools)): a tool is matched by name.
pub fn diff_tools(old: &[(&Module, &Tool)], new: &[(&Module, &Tool)]) -> Vec<Change> {
    let (old_names, new_names) = (by_name(old), by_name(new));
    // The new tools no old tool is called: what a removed tool may have been renamed to.
    let added: Vec<&str> = new
        .iter()
        .map(|(_, t)| t.name.as_str())
        .filter(|n| !old_names.contains_key(n))
        .collect();
    let mut suggestions = Budget::default();
    let mut changes = Vec::new();
    for &(old_module, old_tool) in old {
        match new_names.get(old_tool.name.as_str()) {
            Some(&(new_module, new_tool)) => {
                changes.extend(tool::compare(old_module, old_tool, new_module, new_tool));
            }
            None => changes.push(Change {
                tool: old_tool.name.clone(),
                path: String::new(),
                kind: ChangeKind::Breaking,
                message: removed_message(old_tool, &added, &mut suggestions),
            }),
        }
    }
    for &(_, new_tool) in new {
        if !old_names.contains_key(new_tool.name.as_str()) {
            changes.push(Change {
                tool: new_tool.name.clone(),
                path: String::new(),
                kind: ChangeKind::Compatible,
                message: "tool added".into(),
            });
        }
    }
    changes
}

/// The tools by name, the first of a name kept: one lookup a tool when the versions are paired.
fn by_name<'a>(tools: &[(&'a Module, &'a Tool)]) -> HashMap<&'a str, (&'a Module, &'a Tool)> {
    let mut by_name = HashMap::with_capacity(tools.len());
    for &(module, tool) in tools {
        by_name.entry(tool.name.as_str()).or_insert((module, tool));
    }
    by_name
}

/// "tool removed", naming the added tool it may have been renamed to while `suggestions` last
/// (n tools removed and n added would otherwise cost n² comparisons of names).
fn removed_message(old_tool: &Tool, added: &[&str], suggestions: &mut Budget) -> String {
    match suggestions.did_you_mean(&old_tool.name, added.iter().copied()) {
        Some(name) => format!("tool removed (renamed to `{name}`?): calls to it fail"),
        None => "tool removed: calls to it fail".into(),
    }
}
