//! Validation errors: one per problem, each with a JSON pointer, a stable code, what was expected
//! and what was got. A problem a node found is kept as typed data (`Problem`); `message.rs`
//! words it for its reader.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use serde_json::{Number, Value};

use super::compile::{Node, NodeId, Program};
pub(crate) use super::kind::number::NumberRule;
use super::kind::object::KeyBreak;
use super::message::{self, SHOWN_CHARS};
use super::number;
use crate::suggest::Budget;

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
    /// A string that is not a valid value of its `@format`.
    FormatMismatch,
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
    /// An object with fewer keys than `@min_properties`.
    TooFewKeys,
    /// An object with more keys than `@max_properties`.
    TooManyKeys,
    /// None of the fields of an `@exactly_one_of` is given.
    MissingOneOf,
    /// Two or more fields of an `@exactly_one_of` or `@at_most_one_of` are given together.
    ConflictingKeys,
    /// A field that `@requires` asks for, because another is given, is absent.
    MissingDependent,
    /// A map a target showed as `{"key", "value"}` entries ([`crate::validate::Reading`]) has
    /// two entries with the same key, or an entry whose key is a declared field (the error is
    /// at the second entry).
    DuplicateEntry,
    /// A string a target showed for `any` ([`crate::validate::Reading`]) is not JSON text.
    InvalidJsonText,
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
            ErrorCode::FormatMismatch => "format-mismatch",
            ErrorCode::TooFewItems => "too-few-items",
            ErrorCode::TooManyItems => "too-many-items",
            ErrorCode::DuplicateItems => "duplicate-items",
            ErrorCode::NotAllowed => "not-allowed",
            ErrorCode::NoMatch => "no-match",
            ErrorCode::UnknownKey => "unknown-key",
            ErrorCode::MissingField => "missing-field",
            ErrorCode::TooFewKeys => "too-few-keys",
            ErrorCode::TooManyKeys => "too-many-keys",
            ErrorCode::MissingOneOf => "missing-one-of",
            ErrorCode::ConflictingKeys => "conflicting-keys",
            ErrorCode::MissingDependent => "missing-dependent",
            ErrorCode::DuplicateEntry => "duplicate-entry",
            ErrorCode::InvalidJsonText => "invalid-json-text",
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
///
/// An error records what it needs to describe the problem (the compiled type it broke, the
/// numbers involved and a short clip of the offending value); the texts ([`expected`],
/// [`got`], [`message`]) are written when asked for, so that collecting errors costs little.
/// Serialized, an error is an object with the fields `path`, `code`, `expected`, `got`,
/// `message` and, for problems in the argument text, `position`.
///
/// [`expected`]: ValidationError::expected
/// [`got`]: ValidationError::got
/// [`message`]: ValidationError::message
#[derive(Clone)]
pub struct ValidationError {
    /// Where: a JSON pointer (RFC 6901) into the arguments; `""` is the arguments themselves.
    pub path: String,
    /// What kind of problem.
    pub code: ErrorCode,
    /// For problems in the argument text: where in the text.
    pub position: Option<TextPosition>,
    detail: Detail,
    /// Whether the value was `null` for an optional field that does not take it (the message
    /// then says to omit the key).
    omit_null: bool,
    /// The message, once written.
    rendered: OnceLock<String>,
}

/// What an error knows about its problem.
#[derive(Clone)]
enum Detail {
    /// Texts written when the error was made (problems with the text itself, limits, and the
    /// messages for the authors of definitions).
    Text {
        expected: String,
        got: String,
        message: String,
    },
    /// A problem a compiled node found; the texts are derived on demand.
    Node(NodeDetail),
}

/// What a compiled node found: the typed data of a problem, worded for the model by `message.rs`.
/// It keeps the parts of the program that wording reads: the nodes and what each expects.
#[derive(Clone)]
pub(super) struct NodeDetail {
    pub(super) nodes: Arc<[Node]>,
    pub(super) expected: Arc<[String]>,
    pub(super) node: NodeId,
    pub(super) got: Shown,
    pub(super) problem: Problem,
}

/// A clip of a string: at most [`SHOWN_CHARS`] characters and the full length in characters.
#[derive(Clone)]
pub(crate) struct Clip {
    pub(super) head: Head,
    chars: usize,
}

/// The clipped text: short ones (most keys and enum values) held without an allocation.
#[derive(Clone)]
pub(super) enum Head {
    Inline { bytes: [u8; INLINE], len: u8 },
    Heap(String),
}

const INLINE: usize = 22;

impl Head {
    fn new(s: &str) -> Head {
        if s.len() <= INLINE {
            let mut bytes = [0u8; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Head::Inline {
                bytes,
                len: s.len() as u8,
            }
        } else {
            Head::Heap(s.to_string())
        }
    }

    pub(super) fn as_str(&self) -> &str {
        match self {
            // Whole strings are copied, so the bytes are always UTF-8.
            Head::Inline { bytes, len } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Head::Heap(s) => s,
        }
    }
}

impl Clip {
    /// Whether an error shows only the head of `s` (more than [`SHOWN_CHARS`] characters;
    /// counted only when the bytes could hold more).
    #[inline]
    pub(crate) fn clips(s: &str) -> bool {
        s.len() > SHOWN_CHARS && s.chars().count() > SHOWN_CHARS
    }

    pub(crate) fn new(s: &str) -> Clip {
        if s.len() <= SHOWN_CHARS {
            return Clip {
                head: Head::new(s),
                chars: s.chars().count(),
            };
        }
        let chars = s.chars().count();
        let head = if chars <= SHOWN_CHARS {
            Head::new(s)
        } else {
            Head::Heap(s.chars().take(SHOWN_CHARS).collect())
        };
        Clip { head, chars }
    }

    /// The string as [`message::shorten`] shows it, written at the end of `out`.
    pub(super) fn write_short(&self, out: &mut String) {
        message::write_clipped(out, self.head.as_str(), self.chars);
    }
}

/// Enough of an offending value to say what was got.
#[derive(Clone)]
pub(crate) enum Shown {
    Null,
    Bool(bool),
    Number(Number),
    Str(Clip),
    /// An array or object: its kind and the text of [`message::got`], written at once.
    Other {
        kind: &'static str,
        got: String,
    },
}

impl Shown {
    pub(crate) fn new(value: &Value) -> Shown {
        match value {
            Value::Null => Shown::Null,
            Value::Bool(b) => Shown::Bool(*b),
            Value::Number(n) => Shown::Number(n.clone()),
            Value::String(s) => Shown::Str(Clip::new(s)),
            Value::Array(_) => Shown::Other {
                kind: "array",
                got: message::got(value),
            },
            Value::Object(_) => Shown::Other {
                kind: "object",
                got: message::got(value),
            },
        }
    }

    /// [`message::kind`] of the value.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Shown::Null => "null",
            Shown::Bool(_) => "boolean",
            Shown::Number(n) if number::is_integer(n) => "integer",
            Shown::Number(_) => "number",
            Shown::Str(_) => "string",
            Shown::Other { kind, .. } => kind,
        }
    }

    /// [`message::got`] of the value.
    fn got(&self) -> String {
        let mut out = String::new();
        self.write_got(&mut out);
        out
    }

    /// [`message::got`] of the value, written at the end of `out`.
    pub(super) fn write_got(&self, out: &mut String) {
        match self {
            Shown::Null => out.push_str("null"),
            Shown::Bool(b) => out.push_str(if *b { "boolean true" } else { "boolean false" }),
            Shown::Number(n) => {
                out.push_str(self.kind());
                out.push(' ');
                message::push_number(out, n);
            }
            Shown::Str(c) => {
                out.push_str("string ");
                c.write_short(out);
            }
            Shown::Other { got, .. } => out.push_str(got),
        }
    }
}

/// What a compiled node found wrong. The bounds, allowed values and field names are read from
/// the node when the message is written.
#[derive(Clone)]
pub(crate) enum Problem {
    /// `want` is the kind expected; `root_object` when the arguments themselves are not an
    /// object.
    WrongType {
        want: &'static str,
        root_object: bool,
        hint: Option<&'static str>,
    },
    NotCoercible {
        want: &'static str,
        why: &'static str,
    },
    /// The number as checked (integral doubles of integer types as integers).
    Number {
        rule: NumberRule,
        n: Number,
    },
    TooShort {
        len: u64,
    },
    TooLong {
        len: u64,
    },
    Pattern {
        s: Clip,
    },
    Format {
        s: Clip,
    },
    TooFewItems {
        len: u64,
    },
    TooManyItems {
        len: u64,
    },
    /// Items `a` and `b` are equal; `shown` is item `b`, shortened.
    Duplicate {
        a: usize,
        b: usize,
        shown: String,
    },
    /// Not one of a `Const` or `Enum` node's values; `long` is the string sent when it is
    /// longer than its clip (the suggestion reads all of it).
    NotAllowed {
        long: Option<String>,
    },
    /// No member of a union accepts the value.
    NoMatch,
    /// A value where no value is allowed (`never`).
    Never,
    /// Field `field` of an `Object` node is missing; `root` when the object is the arguments.
    Missing {
        field: usize,
        root: bool,
    },
    /// A key an `Object` node does not declare (the last segment of the error's path, see
    /// [`last_key`]); `present` tells which fields were sent.
    Unknown {
        root: bool,
        present: Present,
    },
    /// A rule across an `Object` node's keys is broken.
    Keys(KeyBreak),
}

/// Which declared fields an object holds (bit `i` for field `i`).
#[derive(Clone)]
pub(crate) enum Present {
    Small(u64),
    /// Shared by the unknown keys of one object.
    Large(Arc<[u64]>),
}

impl Present {
    pub(crate) fn new(fields: usize, mut has: impl FnMut(usize) -> bool) -> Present {
        if fields <= 64 {
            let mut bits = 0u64;
            for i in 0..fields {
                if has(i) {
                    bits |= 1 << i;
                }
            }
            Present::Small(bits)
        } else {
            let mut words = vec![0u64; fields.div_ceil(64)];
            for i in 0..fields {
                if has(i) {
                    words[i / 64] |= 1 << (i % 64);
                }
            }
            Present::Large(words.into())
        }
    }

    pub(super) fn has(&self, i: usize) -> bool {
        match self {
            Present::Small(bits) => i < 64 && bits & (1 << i) != 0,
            Present::Large(words) => words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0),
        }
    }
}

impl ValidationError {
    /// An error with its texts written out.
    pub fn new(
        path: String,
        code: ErrorCode,
        expected: impl Into<String>,
        got: impl Into<String>,
        message: impl Into<String>,
    ) -> ValidationError {
        ValidationError {
            path,
            code,
            position: None,
            detail: Detail::Text {
                expected: expected.into(),
                got: got.into(),
                message: message.into(),
            },
            omit_null: false,
            rendered: OnceLock::new(),
        }
    }

    /// The same error at a place in the argument text.
    pub fn with_position(mut self, position: TextPosition) -> ValidationError {
        self.position = Some(position);
        self
    }

    /// An error found by node `node` of `program`.
    pub(crate) fn found(
        path: String,
        code: ErrorCode,
        program: &Program,
        node: NodeId,
        got: Shown,
        problem: Problem,
    ) -> ValidationError {
        ValidationError {
            path,
            code,
            position: None,
            detail: Detail::Node(NodeDetail {
                nodes: Arc::clone(&program.nodes),
                expected: Arc::clone(&program.expected),
                node,
                got,
                problem,
            }),
            omit_null: false,
            rendered: OnceLock::new(),
        }
    }

    /// The node that found the problem (in the program of the run that made the error) and the
    /// problem, as typed data (for wording it for another reader); `None` for problems with the
    /// text itself and limits.
    pub(crate) fn found_by(&self) -> Option<(NodeId, &Problem)> {
        match &self.detail {
            Detail::Node(d) => Some((d.node, &d.problem)),
            Detail::Text { .. } => None,
        }
    }

    /// Marks the error as one about `null` sent for an optional field that does not take it.
    pub(crate) fn set_omit_null(&mut self) {
        self.omit_null = true;
        self.rendered = OnceLock::new();
    }

    /// Where a reader is told the problem is: its path, or, for a problem about a key (missing,
    /// unknown, sent twice), the object that holds the key, since the message names the key.
    pub(crate) fn place(&self) -> &str {
        match self.code {
            ErrorCode::MissingField | ErrorCode::UnknownKey | ErrorCode::DuplicateKey => {
                split_last(&self.path).0
            }
            _ => &self.path,
        }
    }

    /// What was expected, e.g. `integer 1..14` (shortened).
    pub fn expected(&self) -> &str {
        match &self.detail {
            Detail::Text { expected, .. } => expected,
            Detail::Node(d) => match (&d.problem, d.nodes.get(d.node)) {
                (
                    Problem::Missing { field, .. }
                    | Problem::Keys(KeyBreak::Needs { missing: field, .. }),
                    Some(Node::Object(o)),
                ) => o
                    .fields
                    .get(*field)
                    .map_or("", |f| f.texts.type_text.as_str()),
                (Problem::Unknown { .. }, _) => "a declared key",
                _ => d.expected.get(d.node).map_or("", String::as_str),
            },
        }
    }

    /// What was got, e.g. `string "abc"` (shortened).
    pub fn got(&self) -> Cow<'_, str> {
        match &self.detail {
            Detail::Text { got, .. } => Cow::Borrowed(got),
            Detail::Node(d) => match d.problem {
                Problem::Missing { .. } | Problem::Keys(KeyBreak::Needs { .. }) => {
                    Cow::Borrowed("nothing")
                }
                _ => Cow::Owned(d.got.got()),
            },
        }
    }

    /// The problem in one sentence, without the path, e.g. `must be at most 14, got 20`.
    /// Written on the first call and kept.
    pub fn message(&self) -> Cow<'_, str> {
        self.message_within(&mut Budget::default())
    }

    /// [`message`](ValidationError::message), its "did you mean" drawn from `suggestions`, which
    /// the messages of one call's errors share: each suggestion compares the value with every
    /// candidate (an enum's values, an object's fields), so rendering them all for a large
    /// argument would otherwise cost its errors times the candidates.
    pub(crate) fn message_within(&self, suggestions: &mut Budget) -> Cow<'_, str> {
        if let Some(message) = self.written() {
            return Cow::Borrowed(message);
        }
        Cow::Borrowed(self.rendered.get_or_init(|| {
            // Room for the sentence, so that it is not grown while written.
            let room = match &self.detail {
                Detail::Node(d) => d.room(&self.path),
                Detail::Text { message, .. } => message.len() + 64,
            };
            let mut message = String::with_capacity(room);
            self.write_fresh(&mut message, suggestions);
            message
        }))
    }

    /// [`message`](ValidationError::message), written at the end of `out` (and not kept when it
    /// was not written before).
    pub(crate) fn write_message(&self, out: &mut String, suggestions: &mut Budget) {
        match self
            .written()
            .or_else(|| self.rendered.get().map(String::as_str))
        {
            Some(message) => out.push_str(message),
            None => self.write_fresh(out, suggestions),
        }
    }

    /// The message, when it was written with the error (and needs nothing added).
    fn written(&self) -> Option<&str> {
        match &self.detail {
            Detail::Text { message, .. } if !self.omit_null => Some(message),
            _ => None,
        }
    }

    fn write_fresh(&self, out: &mut String, suggestions: &mut Budget) {
        match &self.detail {
            Detail::Text { message, .. } => out.push_str(message),
            Detail::Node(d) => d.write_for_model(&self.path, out, suggestions),
        }
        if self.omit_null {
            out.push_str("; to leave it out, omit the key instead of sending null");
        }
    }
}

impl PartialEq for ValidationError {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && self.code == other.code
            && self.position == other.position
            && self.expected() == other.expected()
            && self.got() == other.got()
            && self.message() == other.message()
    }
}

impl Eq for ValidationError {}

impl fmt::Debug for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidationError")
            .field("path", &self.path)
            .field("code", &self.code)
            .field("expected", &self.expected())
            .field("got", &self.got())
            .field("message", &self.message())
            .field("position", &self.position)
            .finish()
    }
}

impl Serialize for ValidationError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = if self.position.is_some() { 6 } else { 5 };
        let mut s = serializer.serialize_struct("ValidationError", fields)?;
        s.serialize_field("path", &self.path)?;
        s.serialize_field("code", &self.code)?;
        s.serialize_field("expected", self.expected())?;
        s.serialize_field("got", &self.got())?;
        s.serialize_field("message", &self.message())?;
        match &self.position {
            Some(p) => s.serialize_field("position", p)?,
            None => s.skip_field("position")?,
        }
        s.end()
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message())
        } else {
            write!(f, "{}: {}", self.path, self.message())
        }
    }
}

/// A key from a segment of a JSON pointer (`~1` → `/`, `~0` → `~`).
pub(crate) fn unescape_pointer(segment: &str) -> std::borrow::Cow<'_, str> {
    if segment.contains('~') {
        std::borrow::Cow::Owned(segment.replace("~1", "/").replace("~0", "~"))
    } else {
        std::borrow::Cow::Borrowed(segment)
    }
}

/// The segments of a JSON pointer after its leading `/`, still escaped (`a` and `b~1c` for
/// `/a/b~1c`). Found by a plain scan: the segments are short, and the search `split('/')` sets
/// up for long texts costs several times more here.
pub(crate) fn segments(after_slash: &str) -> impl Iterator<Item = &str> {
    let slash = |c: char| c == '/';
    after_slash.split(slash)
}

/// The value `pointer` leads to in `value`, as serde_json's `Value::pointer_mut` finds it, but
/// without copying the segments that have nothing to unescape (most of them).
pub(crate) fn pointer_mut<'v>(value: &'v mut Value, pointer: &str) -> Option<&'v mut Value> {
    let Some(rest) = pointer.strip_prefix('/') else {
        return pointer.is_empty().then_some(value);
    };
    segments(rest).try_fold(value, |target, raw| {
        let segment = unescape_pointer(raw);
        match target {
            Value::Object(map) => map.get_mut(&*segment),
            // An index as JSON Pointer writes one: digits, without a sign or a leading zero.
            Value::Array(items) => {
                let canonical = !segment.starts_with(['+', '0']) || &*segment == "0";
                canonical
                    .then(|| segment.parse::<usize>().ok())
                    .flatten()
                    .and_then(move |i| items.get_mut(i))
            }
            _ => None,
        }
    })
}

/// The key a JSON pointer ends with (`b` for `/a/b`), unescaped: the key an unknown-key
/// problem is about, which its path names.
pub(crate) fn last_key(pointer: &str) -> std::borrow::Cow<'_, str> {
    unescape_pointer(split_last(pointer).1)
}

/// A JSON pointer split before its last segment: the parent's pointer and the segment, still
/// escaped (`("/a", "b")` for `/a/b`). (A plain loop from the end: the segment is short, and a
/// search set up for long texts cost several times more here.)
pub(crate) fn split_last(pointer: &str) -> (&str, &str) {
    match pointer.bytes().rposition(|b| b == b'/') {
        Some(i) => (&pointer[..i], &pointer[i + 1..]),
        None => ("", pointer),
    }
}

/// Escapes a key for a JSON pointer (`~` → `~0`, `/` → `~1`).
pub fn escape_pointer(key: &str) -> std::borrow::Cow<'_, str> {
    if key.bytes().any(|b| b == b'~' || b == b'/') {
        std::borrow::Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}

#[cfg(test)]
mod tests {
    use crate::validate::{Mode, Validator};

    /// A missing field's message carries the field's description, and an unknown key's lists
    /// the fields: each is written into the room made for it, without growing its string.
    #[test]
    fn long_messages_are_written_without_growing() {
        let description = "The city to look up, as its inhabitants spell it. ".repeat(6);
        let fields: String = (0..20)
            .map(|i| format!("  field_number_{i}?: string\n"))
            .collect();
        let source = format!("/// T.\ntool t {{\n  /// {description}\n  city: string\n{fields}}}");
        let module = crate::compile(&source).unwrap().module;
        let validator = Validator::for_tool(&module, "t").unwrap();
        // A long unknown key too, which is shown clipped: its room is not the key's length.
        let value = serde_json::json!({"zzz": 1, "z".repeat(1000): 2});
        let invalid = validator.validate_value(&value, Mode::Strict).unwrap_err();
        assert_eq!(invalid.errors.len(), 3, "{invalid}");
        for e in &invalid.errors {
            let message = e.message();
            let written = e.rendered.get().expect("written once asked for");
            assert!(message.len() > 96, "{message}");
            let super::Detail::Node(detail) = &e.detail else {
                panic!("a node's problem: {message}");
            };
            assert_eq!(written.capacity(), detail.room(&e.path), "{message}");
            assert!(written.capacity() < 1000, "{message}");
        }
    }

    /// `pointer_mut` finds what serde_json's `Value::pointer_mut` finds, for every pointer into
    /// a value with escaped keys, arrays and empty keys, and pointers that lead nowhere.
    #[test]
    fn pointers_lead_where_serde_json_s_do() {
        let value = serde_json::json!({
            "a": {"b/c": [10, {"d~e": 1, "": 2}], "0": "zero", "01": "one"},
            "list": [[1, 2], [3]],
            "": {"": 4},
            "~": 5
        });
        let pointers = [
            "",
            "/",
            "/a",
            "/a/b~1c",
            "/a/b~1c/0",
            "/a/b~1c/1/d~0e",
            "/a/b~1c/1/",
            "/a/0",
            "/a/01",
            "/list/0/1",
            "/list/1/0",
            "/list/2",
            "/list/01",
            "/list/+1",
            "/list/-1",
            "/list/0/1/x",
            "//",
            "/~0",
            "/~1",
            "a",
            "/a/b/c",
            "/list/18446744073709551616",
        ];
        for pointer in pointers {
            let mut ours = value.clone();
            let mut theirs = value.clone();
            assert_eq!(
                super::pointer_mut(&mut ours, pointer).map(|v| v.clone()),
                theirs.pointer_mut(pointer).map(|v| v.clone()),
                "{pointer:?}"
            );
        }
    }

    /// An unknown key is shown as its JSON text, or clipped when that text is longer than 62
    /// characters, whether the key is clipped before it is written (a long one) or after.
    #[test]
    fn unknown_keys_are_shown_whole_or_clipped() {
        use crate::validate::message::shorten;
        use serde_json::Value;
        let module = crate::compile("/// T.\ntool t { city: string }")
            .unwrap()
            .module;
        let validator = Validator::for_tool(&module, "t").unwrap();
        let keys = [
            "z".repeat(60),
            "z".repeat(61),
            "z".repeat(62),
            "z".repeat(63),
            "é".repeat(62),
            "é".repeat(63),
            "\"".repeat(30),
            "\"".repeat(31),
            "\"".repeat(55),
            "z".repeat(5000),
        ];
        for key in keys {
            let value = serde_json::json!({"city": "Paris", key.clone(): 1});
            let invalid = validator.validate_value(&value, Mode::Strict).unwrap_err();
            let text = serde_json::to_string(&key).unwrap();
            let shown = if text.chars().count() > 62 {
                shorten(&Value::String(key.clone()))
            } else {
                text
            };
            let message = invalid.errors[0].message();
            assert!(
                message.starts_with(&format!("unknown parameter {shown};")),
                "{message}"
            );
        }
    }
}
