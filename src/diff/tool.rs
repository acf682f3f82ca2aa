//! Two versions of one tool: its attributes, its parameters and its output.

use super::relation::{Relation, Side};
use super::walk::{text_change, Report, Walker};
use super::{Change, ChangeKind};
use crate::model::{Formats, Mode, Module, Tool};

/// Every change from `old` (a tool of `old_module`) to `new` (of `new_module`).
pub(super) fn compare(
    old_module: &Module,
    old: &Tool,
    new_module: &Module,
    new: &Tool,
) -> Vec<Change> {
    let old_side = Side {
        module: old_module,
        formats: old.formats,
    };
    let new_side = Side {
        module: new_module,
        formats: new.formats,
    };
    let mut changes = Vec::new();
    let mut push = |kind: ChangeKind, path: &str, message: String| {
        changes.push(Change {
            tool: new.name.clone(),
            path: path.to_string(),
            kind,
            message,
        });
    };
    texts(old, new, &mut push);
    hints(old, new, &mut push);
    policies(old, new, &mut push);
    let mut walker = Walker::new(old_side, new_side, &new.name, Report::Everything);
    walker.object("/inputSchema", &old.params, &new.params);
    let found_breaking = walker
        .changes
        .iter()
        .any(|c| c.kind == ChangeKind::Breaking);
    // The walker reports where the versions differ; the relation has the last word on whether
    // every old call is still valid, so nothing it finds can go unreported.
    if !found_breaking {
        if let Err(why) = Relation::new(old_side, new_side).objects(&old.params, &new.params) {
            walker.changes.push(Change {
                tool: new.name.clone(),
                path: "/inputSchema".into(),
                kind: ChangeKind::Breaking,
                message: why.text(),
            });
        }
    }
    changes.extend(walker.changes);
    changes.extend(output(old_side, old, new_side, new));
    changes
}

/// The tool's description and title.
fn texts(old: &Tool, new: &Tool, push: &mut impl FnMut(ChangeKind, &str, String)) {
    if old.description != new.description {
        push(
            ChangeKind::Model,
            "/description",
            format!("description changed to {:?}", new.description),
        );
    }
    if old.title != new.title {
        push(
            ChangeKind::Model,
            "/title",
            text_change("title", &old.title, &new.title),
        );
    }
    if old.deprecated != new.deprecated {
        let message = if new.deprecated {
            "tool deprecated"
        } else {
            "tool no longer deprecated"
        };
        push(ChangeKind::Model, "/deprecated", message.into());
    }
}

/// How much a hint promises harm: `false` least, unsaid (MCP's default) more, `true` most.
fn danger(hint: Option<bool>) -> u8 {
    match hint {
        Some(false) => 0,
        None => 1,
        Some(true) => 2,
    }
}

/// The MCP hints and `@requires_approval`: a weakened one is a safety change.
fn hints(old: &Tool, new: &Tool, push: &mut impl FnMut(ChangeKind, &str, String)) {
    let guarantees = [
        (
            "readOnlyHint",
            "@read_only",
            old.hints.read_only,
            new.hints.read_only,
        ),
        (
            "idempotentHint",
            "@idempotent",
            old.hints.idempotent,
            new.hints.idempotent,
        ),
    ];
    for (key, attribute, was, is) in guarantees {
        if was == is {
            continue;
        }
        let path = format!("/annotations/{key}");
        if was == Some(true) {
            push(ChangeKind::Safety, &path, format!("{attribute} removed"));
        } else {
            push(
                ChangeKind::Compatible,
                &path,
                format!("{attribute} is now {is:?}"),
            );
        }
    }
    let risks = [
        (
            "destructiveHint",
            "@destructive",
            old.hints.destructive,
            new.hints.destructive,
        ),
        (
            "openWorldHint",
            "@open_world",
            old.hints.open_world,
            new.hints.open_world,
        ),
    ];
    for (key, attribute, was, is) in risks {
        if was == is {
            continue;
        }
        let path = format!("/annotations/{key}");
        if danger(is) > danger(was) {
            let message = match is {
                Some(true) => format!("{attribute} added"),
                _ => format!("{attribute}(false) removed: MCP's default ({attribute}) applies"),
            };
            push(ChangeKind::Safety, &path, message);
        } else {
            push(
                ChangeKind::Compatible,
                &path,
                format!("{attribute} is now {is:?}"),
            );
        }
    }
    if old.requires_approval != new.requires_approval {
        if old.requires_approval {
            push(
                ChangeKind::Safety,
                "/requires_approval",
                "@requires_approval removed: calls run without a human's approval".into(),
            );
        } else {
            push(
                ChangeKind::Compatible,
                "/requires_approval",
                "@requires_approval added".into(),
            );
        }
    }
}

/// The validation mode, formats and the runtime's policies and metadata.
fn policies(old: &Tool, new: &Tool, push: &mut impl FnMut(ChangeKind, &str, String)) {
    let mode = |t: &Tool| t.mode.unwrap_or(Mode::Strict);
    match (mode(old), mode(new)) {
        (Mode::Lax, Mode::Strict) => push(
            ChangeKind::Breaking,
            "/mode",
            "validation is now strict: a call that needed a coercion is rejected".into(),
        ),
        (Mode::Strict, Mode::Lax) => push(
            ChangeKind::Compatible,
            "/mode",
            "validation is now lax".into(),
        ),
        _ => {}
    }
    if old.formats != new.formats {
        let message = match new.formats {
            Formats::Assert => "@format is now asserted",
            Formats::Annotate => "@format is now an annotation only",
        };
        push(ChangeKind::Compatible, "/formats", message.into());
    }
    let others = [
        ("/scope", "@scope", old.scope != new.scope),
        ("/on_error", "@on_error", old.on_error != new.on_error),
        ("/retry", "@retry", old.retry != new.retry),
        (
            "/on_invalid",
            "@on_invalid",
            old.on_invalid != new.on_invalid,
        ),
        ("/cache", "@cache", old.cache != new.cache),
        ("/meta", "@meta", old.meta != new.meta),
        ("/provider", "@provider", old.provider != new.provider),
    ];
    for (path, attribute, changed) in others {
        if changed {
            push(ChangeKind::Compatible, path, format!("{attribute} changed"));
        }
    }
}

/// The output type: a caller reads it, so it breaks callers when it widens.
fn output(old_side: Side<'_>, old: &Tool, new_side: Side<'_>, new: &Tool) -> Vec<Change> {
    let change = |kind: ChangeKind, message: String| Change {
        tool: new.name.clone(),
        path: "/outputSchema".into(),
        kind,
        message,
    };
    match (&old.output, &new.output) {
        (None, None) => Vec::new(),
        (None, Some(_)) => vec![change(ChangeKind::Compatible, "output type added".into())],
        (Some(_), None) => vec![change(
            ChangeKind::Breaking,
            "output type removed: callers can no longer rely on its shape".into(),
        )],
        (Some(a), Some(b)) => {
            let mut walker = Walker::new(old_side, new_side, &new.name, Report::Texts);
            walker.ty("/outputSchema", a, b);
            let mut changes = Vec::new();
            if let Err(why) = Relation::new(new_side, old_side).covers(b, a) {
                changes.push(change(
                    ChangeKind::Breaking,
                    format!(
                        "the output may now hold values it could not before (read from the new type to the old: {})",
                        why.text()
                    ),
                ));
            } else if Relation::new(old_side, new_side).covers(a, b).is_err() {
                changes.push(change(
                    ChangeKind::Compatible,
                    "output type narrowed".into(),
                ));
            }
            changes.extend(walker.changes);
            changes
        }
    }
}
