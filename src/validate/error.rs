//! Validation errors: one per problem, each with a JSON pointer, a stable code, what was expected
//! and what was got.

use std::fmt;

use serde::Serialize;

/// The kind of a validation problem. The names ([`ErrorCode::as_str`]) are stable: callers may
/// match on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// The argument text is not JSON (the error carries a line and column).
    InvalidJson,
    /// A key appears twice in one object of the argument text.
    DuplicateKey,
    /// The arguments nest deeper than the limit.
    TooDeep,
    /// The argument text is longer than the limit.
    TooLarge,
    /// A value has the wrong JSON type (including the arguments themselves not being an object,
    /// and `null` where the type does not allow it).
    WrongType,
    /// Lax mode: a string that does not read as the expected type (`"1.5"` for an integer,
    /// `"yes"` for a boolean, `"NaN"` or `"1e400"` for a number).
    NotCoercible,
    /// A number below `@min` or not above `@exclusive_min`.
    BelowMinimum,
    /// A number above `@max` or not below `@exclusive_max`.
    AboveMaximum,
    /// A number that is not a multiple of `@multiple_of`.
    NotMultiple,
    /// A string shorter than `@min_length` (in code points).
    TooShort,
    /// A string longer than `@max_length` (in code points).
    TooLong,
    /// A string that does not match `@pattern`.
    PatternMismatch,
    /// An array with fewer items than `@min_items`.
    TooFewItems,
    /// An array with more items than `@max_items`.
    TooManyItems,
    /// An array marked `@unique` with two equal items.
    DuplicateItems,
    /// A value that is not one of an enum's or literal's values.
    NotAllowed,
    /// A value that matches no member of a union.
    NoMatch,
    /// A key that the object does not declare.
    UnknownKey,
    /// A required field that is absent.
    MissingField,
}

impl ErrorCode {
    /// The stable name of the code, e.g. `"wrong-type"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid-json",
            ErrorCode::DuplicateKey => "duplicate-key",
            ErrorCode::TooDeep => "too-deep",
            ErrorCode::TooLarge => "too-large",
            ErrorCode::WrongType => "wrong-type",
            ErrorCode::NotCoercible => "not-coercible",
            ErrorCode::BelowMinimum => "below-minimum",
            ErrorCode::AboveMaximum => "above-maximum",
            ErrorCode::NotMultiple => "not-multiple",
            ErrorCode::TooShort => "too-short",
            ErrorCode::TooLong => "too-long",
            ErrorCode::PatternMismatch => "pattern-mismatch",
            ErrorCode::TooFewItems => "too-few-items",
            ErrorCode::TooManyItems => "too-many-items",
            ErrorCode::DuplicateItems => "duplicate-items",
            ErrorCode::NotAllowed => "not-allowed",
            ErrorCode::NoMatch => "no-match",
            ErrorCode::UnknownKey => "unknown-key",
            ErrorCode::MissingField => "missing-field",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A place in the argument text: 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TextPosition {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// One problem with the arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationError {
    /// Where: a JSON pointer (RFC 6901) into the arguments; `""` is the arguments themselves.
    pub path: String,
    /// What kind of problem.
    pub code: ErrorCode,
    /// What was expected, e.g. `integer 1..14` (shortened).
    pub expected: String,
    /// What was got, e.g. `string "abc"` (shortened).
    pub got: String,
    /// The problem in one sentence, without the path, e.g. `must be at most 14, got 20`.
    pub message: String,
    /// For problems in the argument text: where in the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<TextPosition>,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Escapes a key for a JSON pointer (`~` → `~0`, `/` → `~1`).
pub fn escape_pointer(key: &str) -> std::borrow::Cow<'_, str> {
    if key.contains(['~', '/']) {
        std::borrow::Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}
