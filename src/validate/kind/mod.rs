//! The node kinds of a compiled program, one file each: the kind's compiled form, its fast
//! check, and the rules a value of it breaks (which the error run words for its reader).

pub(crate) mod array;
pub(crate) mod choice;
pub(crate) mod keys;
pub(crate) mod number;
pub(crate) mod object;
pub(crate) mod string;
