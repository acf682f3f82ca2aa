//! Walking two versions of a tool's types side by side, reporting each change at its path:
//! fields added, removed and made required, enum values, and the texts the model reads. Whether
//! a type narrowed is the relation's question ([`Relation::covers`]); the walker only descends
//! where both versions have the same structure, and asks the relation everywhere else.

use std::collections::HashSet;

use serde_json::Value;

use super::relation::{property, required_field, Relation, Side};
use super::{Change, ChangeKind};
use crate::model::{Additional, EnumMember, Field, Module, ObjectTy, Ty, TypeId};
use crate::validate::{type_text, Positions};

/// How deep the walker descends, type inside type, before it compares the rest whole.
const MAX_REPORTED_DEPTH: usize = 100;

/// What the walker reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Report {
    /// Every change, types included: the parameters, whose callers send values.
    Everything,
    /// Only what the model reads (descriptions, defaults, examples): an output, whose type
    /// changes the tool itself classifies.
    Texts,
}

pub(super) struct Walker<'a> {
    old: Side<'a>,
    new: Side<'a>,
    tool: &'a str,
    report: Report,
    /// Pairs of named types already walked: a recursive type is walked once.
    seen: HashSet<(TypeId, TypeId)>,
    /// How many types are being walked, one inside the other.
    depth: usize,
    pub(super) changes: Vec<Change>,
}

impl<'a> Walker<'a> {
    pub(super) fn new(old: Side<'a>, new: Side<'a>, tool: &'a str, report: Report) -> Self {
        Walker {
            old,
            new,
            tool,
            report,
            seen: HashSet::new(),
            depth: 0,
            changes: Vec::new(),
        }
    }

    fn push(&mut self, kind: ChangeKind, path: &str, message: String) {
        if kind != ChangeKind::Model && self.report == Report::Texts {
            return;
        }
        self.changes.push(Change {
            tool: self.tool.to_string(),
            path: path.to_string(),
            kind,
            message,
        });
    }

    fn relation(&self) -> Relation<'a> {
        Relation::new(self.old, self.new)
    }

    fn old_text(&self, ty: &Ty) -> String {
        type_text(self.old.module, ty)
    }

    fn new_text(&self, ty: &Ty) -> String {
        type_text(self.new.module, ty)
    }

    /// Two versions of an object: its fields one by one, then what other keys may hold.
    pub(super) fn object(&mut self, path: &str, old: &'a ObjectTy, new: &'a ObjectTy) {
        let (old_fields, new_fields) = (old.index(), new.index());
        for f in &old.fields {
            let at = format!("{path}{}", property(&f.name));
            match new_fields.get(&f.name) {
                Some(n) => self.field(&at, f, n),
                None => self.field_removed(&at, f, &new.additional),
            }
        }
        for n in new
            .fields
            .iter()
            .filter(|n| old_fields.get(&n.name).is_none())
        {
            let at = format!("{path}{}", property(&n.name));
            self.field_added(&at, n, &old.additional);
        }
        self.additional(path, &old.additional, &new.additional);
        match super::relation::key_rules(&old.rules, &new.rules) {
            Err(why) => self.push(ChangeKind::Breaking, path, why.text()),
            Ok(()) if old.rules != new.rules => {
                let message = "rules across keys relaxed".to_string();
                self.push(ChangeKind::Compatible, path, message);
            }
            Ok(()) => {}
        }
    }

    fn field(&mut self, at: &str, old: &'a Field, new: &'a Field) {
        if let Err(why) = required_field(Some(old), new) {
            self.push(ChangeKind::Breaking, at, why.text());
        } else if old.required && !new.required {
            let message = format!("`{}` is now optional", new.name);
            self.push(ChangeKind::Compatible, at, message);
        }
        self.texts(at, old, new);
        self.ty(at, &old.ty, &new.ty);
    }

    fn field_removed(&mut self, at: &str, old: &'a Field, other: &'a Additional) {
        match self.relation().removed_field(old, other) {
            Ok(()) => self.push(
                ChangeKind::Compatible,
                at,
                format!(
                    "field `{}` removed; the object still accepts it as another key",
                    old.name
                ),
            ),
            Err(why) if matches!(other, Additional::Closed) => {
                self.push(ChangeKind::Breaking, at, why.text())
            }
            Err(why) => {
                let message = format!(
                    "field `{}` removed, and other keys do not take all its values: {}",
                    old.name,
                    why.text()
                );
                self.push(ChangeKind::Breaking, at, message)
            }
        }
    }

    fn field_added(&mut self, at: &str, new: &'a Field, old_other: &'a Additional) {
        let verdict =
            required_field(None, new).and_then(|()| self.relation().added_field(new, old_other));
        match verdict {
            Ok(()) => self.push(
                ChangeKind::Compatible,
                at,
                format!("optional field `{}` added", new.name),
            ),
            Err(why) if new.required => self.push(ChangeKind::Breaking, at, why.text()),
            Err(why) => {
                let message = format!(
                    "optional field `{}` added, where other keys took values it rejects: {}",
                    new.name,
                    why.text()
                );
                self.push(ChangeKind::Breaking, at, message)
            }
        }
    }

    fn additional(&mut self, path: &str, old: &'a Additional, new: &'a Additional) {
        let at = format!("{path}/additionalProperties");
        let message = match (old, new) {
            (Additional::Closed, Additional::Closed) | (Additional::Open, Additional::Open) => {
                return
            }
            (Additional::Schema(a), Additional::Schema(b)) => return self.ty(&at, a, b),
            (Additional::Closed, _) => "other keys are now accepted",
            (_, Additional::Open) => "other keys now take any value",
            // Narrowed, or the same values written another way (`...: any`).
            _ => "",
        };
        match self.relation().other_keys(old, new) {
            Err(why) => self.push(ChangeKind::Breaking, &at, why.text()),
            Ok(()) if !message.is_empty() => self.push(ChangeKind::Compatible, &at, message.into()),
            Ok(()) => {}
        }
    }

    /// The texts of a field the model reads: description, default, examples, deprecation.
    fn texts(&mut self, at: &str, old: &Field, new: &Field) {
        let name = &new.name;
        if old.description != new.description {
            let message = text_change(
                &format!("description of `{name}`"),
                &old.description,
                &new.description,
            );
            self.push(ChangeKind::Model, at, message);
        }
        if old.default != new.default {
            let show = |v: &Option<Value>| v.as_ref().map(Value::to_string);
            let message = text_change(
                &format!("default of `{name}`"),
                &show(&old.default),
                &show(&new.default),
            );
            self.push(ChangeKind::Model, at, message);
        }
        if old.examples != new.examples {
            self.push(
                ChangeKind::Model,
                at,
                format!("examples of `{name}` changed"),
            );
        }
        if old.deprecated != new.deprecated {
            let message = if new.deprecated {
                format!("`{name}` deprecated")
            } else {
                format!("`{name}` no longer deprecated")
            };
            self.push(ChangeKind::Model, at, message);
        }
    }

    /// Two versions of a type at `at`. Past [`MAX_REPORTED_DEPTH`] types one inside the other,
    /// the rest is compared whole, as the relation compares it: a chain of thousands of named types
    /// (recursive, so the checker lets it through) would otherwise overflow the stack, and
    /// their paths, each one longer, would take memory in the square of the depth.
    pub(super) fn ty(&mut self, at: &str, old: &'a Ty, new: &'a Ty) {
        if let (Ty::Ref(a), Ty::Ref(b)) = (old, new) {
            if !self.seen.insert((*a, *b)) {
                return;
            }
        }
        if self.depth >= MAX_REPORTED_DEPTH {
            return self.leaf(at, old, new);
        }
        self.depth += 1;
        self.ty_within(at, old, new);
        self.depth -= 1;
    }

    fn ty_within(&mut self, at: &str, old: &'a Ty, new: &'a Ty) {
        self.named_description(at, old, new);
        let (old_r, new_r) = (self.old.module.resolve(old), self.new.module.resolve(new));
        match (old_r, new_r) {
            (Ty::Object(a), Ty::Object(b)) => self.object(at, a, b),
            (Ty::Array(a), Ty::Array(b)) => {
                self.leaf(at, &shell(old_r), &shell(new_r));
                self.ty(&format!("{at}/items"), &a.items, &b.items);
            }
            (Ty::Nullable(a), Ty::Nullable(b)) => self.ty(at, a, b),
            (Ty::Enum(a), Ty::Enum(b)) => self.members(at, a, b),
            (Ty::AnyOf(a), Ty::AnyOf(b)) if a.len() == b.len() => {
                self.union(at, (old_r, a), (new_r, b))
            }
            _ => self.leaf(at, old_r, new_r),
        }
    }

    /// Two unions of as many members: when the new one narrowed, member by member (the n-th
    /// against the n-th), so that the narrowing is reported where it is; the relation decides
    /// whether it narrowed at all, since another member may take over an old one's values.
    fn union(&mut self, at: &str, old: (&'a Ty, &'a [Ty]), new: (&'a Ty, &'a [Ty])) {
        if self.relation().covers(old.0, new.0).is_ok() {
            return self.leaf(at, old.0, new.0);
        }
        let before = self.changes.len();
        for (i, (a, b)) in old.1.iter().zip(new.1).enumerate() {
            self.ty(&format!("{at}/anyOf/{i}"), a, b);
        }
        let found = self.changes[before..]
            .iter()
            .any(|c| c.kind == ChangeKind::Breaking);
        if !found {
            self.leaf(at, old.0, new.0);
        }
    }

    /// A type compared whole: breaking when it narrowed, compatible when it widened.
    fn leaf(&mut self, at: &str, old: &Ty, new: &Ty) {
        let old_side = self.old;
        let new_side = self.new;
        match Relation::new(old_side, new_side).covers(old, new) {
            Err(why) => self.push(ChangeKind::Breaking, at, why.text()),
            Ok(()) => {
                if Relation::new(new_side, old_side).covers(new, old).is_err() {
                    let message = format!(
                        "widened from `{}` to `{}`",
                        self.old_text(old),
                        self.new_text(new)
                    );
                    self.push(ChangeKind::Compatible, at, message);
                }
            }
        }
    }

    /// The values of two enums: each one removed, added, or described anew.
    fn members(&mut self, at: &str, old: &[EnumMember], new: &[EnumMember]) {
        // Each side's members by value, so that pairing two long enums is linear in them.
        let by_value = |members: &[EnumMember]| {
            let mut positions = Positions::with_capacity(members.len());
            for (i, m) in members.iter().enumerate() {
                positions.insert(&m.value, i, |j| &members[j].value);
            }
            positions
        };
        let (old_values, new_values) = (by_value(old), by_value(new));
        for m in old {
            match new_values
                .find(&m.value, |i| &new[i].value)
                .map(|i| &new[i])
            {
                None => self.push(
                    ChangeKind::Breaking,
                    at,
                    format!("value {} removed", m.value),
                ),
                Some(n) if n.description != m.description => self.push(
                    ChangeKind::Model,
                    at,
                    text_change(
                        &format!("description of value {}", m.value),
                        &m.description,
                        &n.description,
                    ),
                ),
                Some(_) => {}
            }
        }
        for n in new
            .iter()
            .filter(|n| old_values.find(&n.value, |i| &old[i].value).is_none())
        {
            self.push(
                ChangeKind::Compatible,
                at,
                format!("value {} added", n.value),
            );
        }
    }

    /// The description of a named type, which the emitters show where they inline it.
    fn named_description(&mut self, at: &str, old: &Ty, new: &Ty) {
        let description = |module: &'a Module, ty: &Ty| match ty {
            Ty::Ref(id) => module.types.get(id.0).and_then(|n| n.description.clone()),
            _ => None,
        };
        let (a, b) = (
            description(self.old.module, old),
            description(self.new.module, new),
        );
        if a != b {
            let message = text_change("description", &a, &b);
            self.push(ChangeKind::Model, at, message);
        }
    }
}

/// An array's own rules with items of any type, to compare its bounds apart from its items.
fn shell(ty: &Ty) -> Ty {
    match ty {
        Ty::Array(a) => {
            let mut a = a.clone();
            a.items = Ty::Any;
            Ty::Array(a)
        }
        other => other.clone(),
    }
}

/// "`what` added", "removed" or "changed", quoting the new text when there is one.
pub(super) fn text_change(what: &str, old: &Option<String>, new: &Option<String>) -> String {
    match (old, new) {
        (None, Some(n)) => format!("{what} added: {n:?}"),
        (Some(_), None) => format!("{what} removed"),
        (_, Some(n)) => format!("{what} changed to {n:?}"),
        (None, None) => format!("{what} unchanged"),
    }
}
