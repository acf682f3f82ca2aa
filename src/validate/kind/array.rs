//! Arrays and tuples: positional items, then the items' type, with counts and uniqueness; the
//! count rules are stated here once (`too_few`, `too_many`) for the fast check, the error run and
//! the single pass over text.

use crate::validate::compile::{Leaf, NodeId};

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
