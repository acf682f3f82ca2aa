//! The node kinds of a compiled program, one file each: the kind's compiled form, its fast
//! check, the rules a value of it breaks (recorded as typed problems, which `message.rs` words
//! for their reader), its part of the run over a value (`walk::Run`: the problems found and lax
//! mode's coercion), and its normalization of an accepted value (which `walk::normalize`
//! dispatches to).

pub(crate) mod array;
pub(crate) mod choice;
pub(crate) mod keys;
pub(crate) mod number;
pub(crate) mod object;
pub(crate) mod string;
pub(crate) mod union;
