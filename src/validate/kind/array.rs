//! Arrays and tuples: positional items, then the items' type, with counts and uniqueness; the
//! count rules are stated here once (`too_few`, `too_many`) for the fast check, the error run and
//! the single pass over text. The run over an array (its counts, its items, and `@unique`
//! judged on the items as they are normalized, or as sent when defaults would make them equal)
//! is here too.

use serde_json::Value;

use crate::validate::compile::{Leaf, NodeId, Program};
use crate::validate::equal::first_duplicate;
use crate::validate::error::{ErrorCode, Problem};
use crate::validate::message::shorten;
use crate::validate::sink::Sink;
use crate::validate::walk::{normalize, normalized, Run};

/// An array or a tuple: items at positions `0..prefix.len()` are checked against `prefix`, the
/// others against `items` (a closed tuple's `max_items` is at most the number of its positional
/// items, so its `items` is never reached).
#[derive(Clone, Debug)]
pub(crate) struct ArrayCheck {
    pub prefix: Box<[NodeId]>,
    pub items: NodeId,
    /// 0 when there is no `@min_items`.
    pub min_items: u64,
    pub max_items: Option<u64>,
    pub unique: bool,
    /// What `items` is when it is a plain scalar (set when compiling is finished).
    pub items_leaf: Leaf,
}

impl ArrayCheck {
    /// Whether `len` items are fewer than `@min_items`.
    #[inline(always)]
    pub(crate) fn too_few(&self, len: u64) -> bool {
        len < self.min_items
    }

    /// Whether `len` items are more than `@max_items`.
    #[inline(always)]
    pub(crate) fn too_many(&self, len: u64) -> bool {
        self.max_items.is_some_and(|m| len > m)
    }

    /// The node that checks the item at `index`.
    pub(crate) fn item(&self, index: usize) -> NodeId {
        self.prefix.get(index).copied().unwrap_or(self.items)
    }
}

/// Normalizing an accepted array: each item as its node normalizes it.
impl ArrayCheck {
    /// Normalizes `items` in place, filling in absent defaults when `fill`; `fills` says
    /// whether an item can get a default (then, under `@unique`, items that defaults would make
    /// equal are returned as sent, as the full run judges them).
    pub(crate) fn normalize(
        &self,
        prog: &Program,
        fills: bool,
        items: &mut Vec<Value>,
        fill: bool,
    ) {
        if self.unique && fill && fills {
            // Defaults are annotations: when filling them in would make two items equal, the
            // items are returned as sent (see the full run).
            let mut bare = items.clone();
            for (n, i) in bare.iter_mut().enumerate() {
                normalize(prog, self.item(n), i, false);
            }
            for (n, i) in items.iter_mut().enumerate() {
                normalize(prog, self.item(n), i, true);
            }
            if first_duplicate(items).is_some() {
                *items = bare;
            }
            return;
        }
        for (n, i) in items.iter_mut().enumerate() {
            normalize(prog, self.item(n), i, fill);
        }
    }

    /// The normalized copy of `items`, with defaults, built item by item; a `@unique` array
    /// whose items can get defaults (`fills`) is copied, then normalized in place (see
    /// [`ArrayCheck::normalize`]).
    pub(crate) fn normalized(&self, prog: &Program, fills: bool, items: &[Value]) -> Value {
        if self.unique && fills {
            let mut copy = items.to_vec();
            self.normalize(prog, fills, &mut copy, true);
            return Value::Array(copy);
        }
        Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(n, i)| normalized(prog, self.item(n), i))
                .collect(),
        )
    }
}

impl<'p, S: Sink> Run<'p, S> {
    /// An `array` node's run over `value`: its counts, its items, and (for `@unique`) whether two
    /// are equal.
    pub(in crate::validate) fn array(
        &mut self,
        id: NodeId,
        check: &ArrayCheck,
        value: &Value,
    ) -> Option<Value> {
        let Value::Array(items) = value else {
            self.wrong_type(id, "array", value);
            return None;
        };
        let mut ok = true;
        let len = items.len() as u64;
        if check.too_few(len) {
            let problem = Problem::TooFewItems { len };
            self.fail(id, ErrorCode::TooFewItems, value, problem);
            ok = false;
        }
        if check.too_many(len) {
            let problem = Problem::TooManyItems { len };
            self.fail(id, ErrorCode::TooManyItems, value, problem);
            ok = false;
        }
        let (out, items_ok) = if check.unique {
            // Lax mode judges uniqueness on the coerced items, so they are built even
            // in a run that builds nothing else.
            let (out, items_ok) =
                self.as_sink(|r: &mut Run<'p, S::Items>| r.unique_items(id, check, items, value));
            if out.is_none() {
                ok = false;
            }
            (out.unwrap_or_default(), items_ok)
        } else {
            self.items(check, items)
        };
        if !(ok && items_ok) {
            return None;
        }
        self.out(|| Value::Array(out))
    }

    /// An array's items, walked: the built items (none when the run builds nothing) and
    /// whether all are valid.
    fn items(&mut self, check: &ArrayCheck, items: &[Value]) -> (Vec<Value>, bool) {
        let mut out = Vec::with_capacity(if S::BUILD { items.len() } else { 0 });
        let mut items_ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.with_index(i, |r| r.walk(check.item(i), item)) {
                Some(v) if S::BUILD => out.push(v),
                Some(_) => {}
                None => items_ok = false,
            }
        }
        (out, items_ok)
    }

    /// A `@unique` array's items, walked and judged: as [`Run::items`], with `None` for the
    /// items when two are equal (the problem is recorded).
    fn unique_items(
        &mut self,
        id: NodeId,
        check: &ArrayCheck,
        items: &[Value],
        value: &Value,
    ) -> (Option<Vec<Value>>, bool) {
        let coercions_before = self.coercions.len();
        let (mut out, items_ok) = self.items(check, items);
        // Without building, the run is strict: normalizing keeps equal items equal and
        // distinct items distinct (defaults aside, see below), so the items as sent decide.
        let mut dup = if items_ok && S::BUILD {
            first_duplicate(&out)
        } else {
            first_duplicate(items)
        };
        if items_ok && dup.is_some() && S::FILL_DEFAULTS && S::BUILD {
            // Defaults are annotations: items that differ only in a field one of them leaves
            // out are distinct, as JSON Schema judges them. Judge the items as sent (coerced,
            // without defaults), and if they are distinct, return them so, since filling in
            // defaults would make them equal.
            let mut bare: Run<'p, S::AsSent> = self.fresh();
            let (bare_items, bare_ok) = bare.items(check, items);
            if bare_ok && bare.errors.is_empty() {
                dup = first_duplicate(&bare_items);
                if dup.is_none() {
                    out = bare_items;
                    self.coercions.truncate(coercions_before);
                    self.coercions.extend(bare.coercions);
                }
            }
        }
        if let Some((a, b)) = dup {
            let shown = shorten(&items[b]);
            let problem = Problem::Duplicate { a, b, shown };
            self.fail(id, ErrorCode::DuplicateItems, value, problem);
            return (None, items_ok);
        }
        (Some(out), items_ok)
    }
}
