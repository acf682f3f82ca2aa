//! `tooldef diff OLD NEW`: every change between two versions of a set of tools, classified as
//! `breaking`, `safety`, `model` or `compatible` ([`tooldef::diff_tools`]).

use std::path::PathBuf;

use serde_json::json;
use tooldef::{Change, ChangeKind, Toolset};

use crate::build_command::load;
use crate::read::InputLimits;
use crate::{to_stderr, to_stdout, Format, EXIT_ERRORS, EXIT_USAGE};

/// The arguments of `tooldef diff`.
#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The old version: a `.tool` file, or a folder searched for them recursively.
    old: PathBuf,
    /// The new version: a `.tool` file, or a folder searched for them recursively.
    new: PathBuf,
    /// How to print the changes (and, on standard error, diagnostics).
    #[arg(long, value_enum, default_value_t = ChangesFormat::Human)]
    format: ChangesFormat,
}

/// How `diff` and `lock --check` print.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ChangesFormat {
    /// One line per change (`class: tool path: message`); diagnostics with source snippets.
    Human,
    /// `{"changes": [{"tool", "path", "kind", "message"}]}`; diagnostics as one JSON array.
    Json,
}

impl ChangesFormat {
    /// The format of the diagnostics of sources that do not compile.
    pub(crate) fn diagnostics(self) -> Format {
        match self {
            ChangesFormat::Human => Format::Human,
            ChangesFormat::Json => Format::Json,
        }
    }
}

pub(crate) fn run(args: &DiffArgs, limits: &InputLimits) -> Result<u8, String> {
    let format = args.format.diagnostics();
    let Some(old) = load(std::slice::from_ref(&args.old), limits, format)? else {
        return Ok(EXIT_USAGE);
    };
    let Some(new) = load(std::slice::from_ref(&args.new), limits, format)? else {
        return Ok(EXIT_USAGE);
    };
    let changes = diff_sets(&old, &new);
    print_changes(&changes, args.format);
    Ok(exit_code(&changes))
}

/// Every change from one toolset to another.
fn diff_sets(old: &Toolset, new: &Toolset) -> Vec<Change> {
    let old: Vec<_> = old.tools().collect();
    let new: Vec<_> = new.tools().collect();
    tooldef::diff_tools(&old, &new)
}

/// 1 when a change needs review (`breaking` or `safety`), else 0.
pub(crate) fn exit_code(changes: &[Change]) -> u8 {
    if changes.iter().any(|c| c.kind.needs_review()) {
        EXIT_ERRORS
    } else {
        0
    }
}

/// The changes on standard output: one line each (`class: tool path: message`), or
/// `{"changes": [...]}`; in human form, a count by class on standard error.
pub(crate) fn print_changes(changes: &[Change], format: ChangesFormat) {
    match format {
        ChangesFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(&json!({ "changes": changes })).unwrap_or_default();
            text.push('\n');
            to_stdout(&text);
        }
        ChangesFormat::Human => {
            let mut text = String::new();
            for c in changes {
                text.push_str(&line(c));
                text.push('\n');
            }
            to_stdout(&text);
            to_stderr(&format!("{}\n", summary(changes)));
        }
    }
}

fn line(c: &Change) -> String {
    if c.path.is_empty() {
        format!("{}: {}: {}", c.kind.as_str(), c.tool, c.message)
    } else {
        format!("{}: {} {}: {}", c.kind.as_str(), c.tool, c.path, c.message)
    }
}

/// `3 changes: 1 breaking, 0 safety, 1 model, 1 compatible`, or `no changes`.
fn summary(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "no changes".into();
    }
    let count = |kind: ChangeKind| changes.iter().filter(|c| c.kind == kind).count();
    let classes = [
        ChangeKind::Breaking,
        ChangeKind::Safety,
        ChangeKind::Model,
        ChangeKind::Compatible,
    ]
    .map(|k| format!("{} {}", count(k), k.as_str()))
    .join(", ");
    let n = changes.len();
    format!("{n} change{}: {classes}", if n == 1 { "" } else { "s" })
}
