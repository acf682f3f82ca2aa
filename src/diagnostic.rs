//! Diagnostics: plain data describing a problem in a `.tool` source.
//!
//! The library never formats for a terminal; `render` turns these into reports with source
//! snippets, and the CLI prints them.

use std::fmt;

use serde_json::{json, Value};

pub use crate::source::Source;

/// A byte range in the source text.
///
/// Two spans are equal when they cover the same bytes. Syntax trees and models leave their spans
/// out of their own equality, so trees from differently formatted sources compare equal when
/// they say the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` (byte offsets).
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Whether the span is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Implements `PartialEq` for a struct of the syntax tree or the model by every field but its
/// spans; `presence` fields (`Option<Span>` markers such as `...`) compare by whether they are
/// there. Every field is named, so a field added later is a compile error here until it is
/// listed. With `hash` first, also `Hash` over the same fields, so that equal values hash alike.
macro_rules! eq_ignoring_spans {
    ($name:ident { $($field:ident),* $(,)? } ignoring { $($span:ident),* $(,)? }
        $(presence { $($mark:ident),* $(,)? })?) => {
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                let $name { $($field,)* $($span: _,)* $($($mark,)*)? } = self;
                true $(&& *$field == other.$field)*
                    $($(&& $mark.is_some() == other.$mark.is_some())*)?
            }
        }
    };
    (hash $name:ident { $($field:ident),* $(,)? } ignoring { $($span:ident),* $(,)? }) => {
        eq_ignoring_spans!($name { $($field),* } ignoring { $($span),* });
        impl std::hash::Hash for $name {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                let $name { $($field,)* $($span: _,)* } = self;
                $($field.hash(state);)*
            }
        }
    };
}
pub(crate) use eq_ignoring_spans;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The source does not compile.
    Error,
    /// The source compiles, but something is probably not what the author meant.
    Warning,
}

/// The stable code of a diagnostic. Codes never change meaning once published; the kebab-case
/// text (`Code::as_str`) is what tools match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// The source is not valid UTF-8.
    InvalidUtf8,
    /// The text does not follow the grammar.
    Syntax,
    /// Brackets, braces, parentheses or `[]` nest deeper than the limit.
    NestingTooDeep,
    /// A number literal is out of range (e.g. `1e400`).
    InvalidNumber,
    /// Two tools, types, enums, fields or enum values share a name.
    DuplicateName,
    /// A type name that is neither built in nor defined in the file.
    UnknownType,
    /// An attribute name that tooldef does not know at that position.
    UnknownAttribute,
    /// An attribute that does not apply to the type or item it is attached to.
    AttributeNotApplicable,
    /// An attribute given twice.
    DuplicateAttribute,
    /// Attribute arguments of the wrong number, name or kind.
    InvalidAttributeArgument,
    /// Two attributes that contradict each other (`@strict @lax`, `@read_only @destructive`).
    ConflictingAttributes,
    /// `@cache` on a tool that is not `@read_only`: a cached call skips the tool, and with it
    /// whatever the tool would change.
    CacheNotReadOnly,
    /// A range no value can satisfy (`@min(5) @max(1)`), or a negative length.
    InvalidRange,
    /// A `= default` that does not fit the field's type, constraints or enum.
    InvalidDefault,
    /// An `@example(...)` that does not fit the field's type, constraints or enum.
    InvalidExample,
    /// A `@pattern` that is not a valid (linear-time) regular expression.
    InvalidPattern,
    /// A tool without a `///` description.
    MissingDescription,
    /// A control, zero-width, bidirectional-override or Unicode tag character in text shown to a
    /// model.
    ForbiddenCharacter,
    /// A name that breaks the naming rules (empty, too long, or with characters not allowed).
    InvalidName,
    /// A named type that can only be satisfied by an infinitely deep value.
    InfiniteRecursion,
    /// A `= default` on a required field (it can never apply).
    DefaultOnRequired,
    /// A required tuple item after an optional one (items may be left off only from the end).
    TupleOrder,
    /// A union with a repeated or redundant member.
    RedundantUnion,
    /// The inlined schema of a tool is nested deeper than the limit; on import, also a schema of
    /// the input that nests deeper than the importer follows.
    SchemaTooDeep,
    /// The inlined schema of a tool has more subschemas than the limit.
    SchemaTooLarge,
    /// The patterns of a file would hold more memory than the limit, compiled and while matching.
    PatternsTooLarge,
    /// A provider target cannot express a type or a tool at all (recursion for Gemini, a map in
    /// OpenAI strict mode); reported only when compiling for that target.
    NotRepresentable,
    /// A provider target's limit is exceeded (OpenAI strict mode: properties, nesting, enum
    /// values); reported only when compiling for that target.
    TargetLimit,
    /// A constraint the target cannot express was folded into a description; the validator still
    /// enforces it.
    FoldedConstraint,
    /// A type the target cannot carry was sent in a shape it can (a map as an array of
    /// `{"key", "value"}` entries, `any` as JSON text); the target's validator reads the calls
    /// back into the source's shape. A warning.
    LoweredConstruct,
    /// An `import` whose file cannot be read, or that names what the file does not define.
    UnresolvedImport,
    /// Files that import each other in a circle.
    ImportCycle,
    /// An imported name that the file never uses (a warning).
    UnusedImport,
    /// `tooldef import`: the input is neither JSON nor JSON Lines.
    ImportNotJson,
    /// `tooldef import`: an object of the input repeats a key (JSON readers keep one of the two,
    /// silently, so the import does not guess which was meant).
    ImportDuplicateKey,
    /// `tooldef import`: the document is in another format than `--from` says (a list of OpenAI
    /// tools read as JSON Schema); the message names the `--from` that reads it.
    ImportWrongFormat,
    /// `tooldef import`: a value where a schema belongs (the document, a property, `items`, a
    /// branch, a tool's parameters) is not a schema: neither an object nor a boolean (a tool's
    /// parameter schema must be an object).
    ImportNotASchema,
    /// `tooldef import`: a JSON Schema keyword whose value is not one the keyword takes: the
    /// wrong JSON type (`"required": "a"`), an unknown type name, a count that is not a whole
    /// number.
    ImportInvalidKeyword,
    /// `tooldef import`: an entry of a tool format that cannot be a tool: it has no `name`, or
    /// its parameter schema does not describe an object.
    ImportInvalidTool,
    /// `tooldef import`: valid input that the language cannot express (`not`, `allOf`,
    /// `if`/`then`/`else`, an external `$ref`, a keyword beside `$ref`, overlapping `oneOf`
    /// branches, an OpenAI tool that is not a function).
    ImportUnsupported,
    /// `tooldef import`: a local `$ref` that names no definition.
    ImportUnresolvedRef,
    /// `tooldef import`: a schema no value can fit, where a mistake is more likely than `never`
    /// (an empty `anyOf`/`oneOf` or `type` list, a required name that is not a property of a
    /// closed object).
    ImportUnsatisfiable,
    /// `tooldef import`: something the input says was left out, with a warning: an annotation
    /// or keyword the language has no place for, an unknown `format`, a malformed annotation,
    /// an `enum` value that can never match.
    ImportDropped,
    /// `tooldef import`: a tool format's objects that declare properties but say nothing about
    /// other keys were closed (a warning; `--keep-open` keeps them open).
    ImportClosedObject,
    /// `tooldef import`: input that is non-standard or leaves something open was read in the way
    /// the warning says (BFCL's type names and `optional` key, a tool without a parameter
    /// schema, a required name without a property, a schema that is not an object made a named
    /// type).
    ImportInterpreted,
}

impl Code {
    /// Every code, in declaration order.
    pub const ALL: &'static [Code] = &[
        Code::InvalidUtf8,
        Code::Syntax,
        Code::NestingTooDeep,
        Code::InvalidNumber,
        Code::DuplicateName,
        Code::UnknownType,
        Code::UnknownAttribute,
        Code::AttributeNotApplicable,
        Code::DuplicateAttribute,
        Code::InvalidAttributeArgument,
        Code::ConflictingAttributes,
        Code::CacheNotReadOnly,
        Code::InvalidRange,
        Code::InvalidDefault,
        Code::InvalidExample,
        Code::InvalidPattern,
        Code::MissingDescription,
        Code::ForbiddenCharacter,
        Code::InvalidName,
        Code::InfiniteRecursion,
        Code::DefaultOnRequired,
        Code::TupleOrder,
        Code::RedundantUnion,
        Code::SchemaTooDeep,
        Code::SchemaTooLarge,
        Code::PatternsTooLarge,
        Code::NotRepresentable,
        Code::TargetLimit,
        Code::FoldedConstraint,
        Code::LoweredConstruct,
        Code::UnresolvedImport,
        Code::ImportCycle,
        Code::UnusedImport,
        Code::ImportNotJson,
        Code::ImportDuplicateKey,
        Code::ImportWrongFormat,
        Code::ImportNotASchema,
        Code::ImportInvalidKeyword,
        Code::ImportInvalidTool,
        Code::ImportUnsupported,
        Code::ImportUnresolvedRef,
        Code::ImportUnsatisfiable,
        Code::ImportDropped,
        Code::ImportClosedObject,
        Code::ImportInterpreted,
    ];

    /// The stable kebab-case name of the code.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidUtf8 => "invalid-utf8",
            Code::Syntax => "syntax",
            Code::NestingTooDeep => "nesting-too-deep",
            Code::InvalidNumber => "invalid-number",
            Code::DuplicateName => "duplicate-name",
            Code::UnknownType => "unknown-type",
            Code::UnknownAttribute => "unknown-attribute",
            Code::AttributeNotApplicable => "attribute-not-applicable",
            Code::DuplicateAttribute => "duplicate-attribute",
            Code::InvalidAttributeArgument => "invalid-attribute-argument",
            Code::ConflictingAttributes => "conflicting-attributes",
            Code::CacheNotReadOnly => "cache-not-read-only",
            Code::InvalidRange => "invalid-range",
            Code::InvalidDefault => "invalid-default",
            Code::InvalidExample => "invalid-example",
            Code::InvalidPattern => "invalid-pattern",
            Code::MissingDescription => "missing-description",
            Code::ForbiddenCharacter => "forbidden-character",
            Code::InvalidName => "invalid-name",
            Code::InfiniteRecursion => "infinite-recursion",
            Code::DefaultOnRequired => "default-on-required",
            Code::TupleOrder => "tuple-order",
            Code::RedundantUnion => "redundant-union",
            Code::SchemaTooDeep => "schema-too-deep",
            Code::SchemaTooLarge => "schema-too-large",
            Code::PatternsTooLarge => "patterns-too-large",
            Code::NotRepresentable => "not-representable",
            Code::TargetLimit => "target-limit",
            Code::FoldedConstraint => "folded-constraint",
            Code::LoweredConstruct => "lowered-construct",
            Code::UnresolvedImport => "unresolved-import",
            Code::ImportCycle => "import-cycle",
            Code::UnusedImport => "unused-import",
            Code::ImportNotJson => "import-not-json",
            Code::ImportDuplicateKey => "import-duplicate-key",
            Code::ImportWrongFormat => "import-wrong-format",
            Code::ImportNotASchema => "import-not-a-schema",
            Code::ImportInvalidKeyword => "import-invalid-keyword",
            Code::ImportInvalidTool => "import-invalid-tool",
            Code::ImportUnsupported => "import-unsupported",
            Code::ImportUnresolvedRef => "import-unresolved-ref",
            Code::ImportUnsatisfiable => "import-unsatisfiable",
            Code::ImportDropped => "import-dropped",
            Code::ImportClosedObject => "import-closed-object",
            Code::ImportInterpreted => "import-interpreted",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary location that explains a diagnostic ("first defined here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    /// Where.
    pub span: Span,
    /// What is there.
    pub message: String,
    /// The source the span points into, when it is not the diagnostic's own.
    pub file: Option<Source>,
}

/// A change to the source that fixes a diagnostic: the text of `span` replaced by `text` (an
/// insertion when the span is empty). An editor offers it as a quick fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does, as an editor lists it: "Replace `strng` with `string`".
    pub title: String,
    /// The text replaced, in the diagnostic's source.
    pub span: Span,
    /// The text put in its place.
    pub text: String,
}

/// One problem found in a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// One sentence saying what is wrong.
    pub message: String,
    /// The primary location.
    pub span: Span,
    /// A short label for the primary location.
    pub label: String,
    /// How to fix it, when there is something useful to say.
    pub help: Option<String>,
    /// Other places that explain the problem.
    pub related: Vec<Related>,
    /// The source the span points into, when the diagnostic came from one of several (a
    /// [`crate::Toolset`]); `None` for the single source given to [`crate::compile`].
    pub file: Option<Source>,
    /// Changes to the source that fix the problem, when one is certain enough to offer (the
    /// name that "did you mean" suggests).
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    /// A new error at `span` with a label.
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            help: None,
            related: Vec::new(),
            file: None,
            fixes: Vec::new(),
        }
    }

    /// A new warning at `span`.
    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Sets the label of the primary location.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Sets the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a fix: the text of `span` replaced by `text`.
    pub fn with_fix(
        mut self,
        title: impl Into<String>,
        span: Span,
        text: impl Into<String>,
    ) -> Self {
        self.fixes.push(Fix {
            title: title.into(),
            span,
            text: text.into(),
        });
        self
    }

    /// Adds the fix that writes `to` where the source has `from`, at `span`, as "did you mean"
    /// suggests it; `written` is `to` as the source writes it (quoted, when it must be).
    pub(crate) fn with_replacement(
        self,
        span: Span,
        from: &str,
        to: &str,
        written: impl Into<String>,
    ) -> Self {
        self.with_fix(format!("Replace `{from}` with `{to}`"), span, written)
    }

    /// Adds a related location.
    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
            file: None,
        });
        self
    }

    /// Adds a related location in another source.
    pub fn with_related_in(mut self, file: Source, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
            file: Some(file),
        });
        self
    }

    /// The same diagnostic, pointing into `file` (unless it already names its file).
    pub fn in_file(mut self, file: &Source) -> Self {
        // A diagnostic already placed (in a file the source imports) keeps its file.
        self.file.get_or_insert_with(|| file.clone());
        self
    }

    /// Whether this diagnostic is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// One diagnostic as JSON: code, severity, message, file, line and column (1-based, columns in
    /// characters), end line and column, the byte span, label, help, related locations and the
    /// fixes (each a title, the byte span it replaces with its lines and columns, and the text).
    pub fn to_json(&self, file: &str, source: &str, index: &LineIndex) -> Value {
        let diagnostic = self;
        let (line, column) = index.line_col(source, diagnostic.span.start);
        let (end_line, end_column) = index.line_col(source, diagnostic.span.end);
        let related: Vec<Value> = diagnostic
            .related
            .iter()
            .map(|r| match &r.file {
                // A place in another file names it.
                Some(other) => {
                    let (line, column) = other.line_col(r.span.start);
                    json!({
                        "message": r.message,
                        "file": other.name(),
                        "line": line,
                        "column": column,
                        "span": {"start": r.span.start, "end": r.span.end},
                    })
                }
                None => {
                    let (line, column) = index.line_col(source, r.span.start);
                    json!({
                        "message": r.message,
                        "line": line,
                        "column": column,
                        "span": {"start": r.span.start, "end": r.span.end},
                    })
                }
            })
            .collect();
        let fixes: Vec<Value> = diagnostic
            .fixes
            .iter()
            .map(|f| {
                let (line, column) = index.line_col(source, f.span.start);
                let (end_line, end_column) = index.line_col(source, f.span.end);
                json!({
                    "title": f.title,
                    "line": line,
                    "column": column,
                    "end_line": end_line,
                    "end_column": end_column,
                    "span": {"start": f.span.start, "end": f.span.end},
                    "text": f.text,
                })
            })
            .collect();
        json!({
            "code": diagnostic.code.as_str(),
            "severity": diagnostic.severity,
            "message": diagnostic.message,
            "file": file,
            "line": line,
            "column": column,
            "end_line": end_line,
            "end_column": end_column,
            "span": {"start": diagnostic.span.start, "end": diagnostic.span.end},
            "label": diagnostic.label,
            "help": diagnostic.help,
            "related": related,
            "fixes": fixes,
        })
    }
}

/// `[code] message`, after `file:line:column: ` when the diagnostic carries its file.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.locate(self.span))?;
        }
        write!(f, "[{}] {}", self.code, self.message)
    }
}

/// The diagnostics that stopped a compilation: at least one is an error. All errors of a file
/// are here, not only the first.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", summary(.diagnostics))]
pub struct Errors {
    /// Every diagnostic, errors and warnings, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

fn summary(diagnostics: &[Diagnostic]) -> String {
    let errors: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).collect();
    match errors.as_slice() {
        [] => "no errors".to_string(),
        [one] => one.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more errors)", rest.len()),
    }
}

/// Sorts diagnostics by file (a diagnostic's own source first, then the others by name) and by
/// position in it.
pub(crate) fn sort(diagnostics: &mut [Diagnostic]) {
    fn key(d: &Diagnostic) -> (Option<&str>, usize, usize) {
        (d.file.as_ref().map(Source::name), d.span.start, d.span.end)
    }
    diagnostics.sort_by(|a, b| key(a).cmp(&key(b)));
}

impl Errors {
    /// Wraps diagnostics, sorted by file (the diagnostic's own source first, then the others by
    /// name) and by position in it.
    pub fn new(mut diagnostics: Vec<Diagnostic>) -> Self {
        sort(&mut diagnostics);
        Errors { diagnostics }
    }

    /// The error diagnostics only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

/// Maps byte offsets to 1-based line and column numbers (columns count characters).
///
/// A column is counted from a checkpoint of characters every 256 bytes, so finding
/// one costs at most that many bytes' reading, however long the line: many diagnostics on one
/// long line each counted the line from its start, quadratic in the line's length.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    /// How many characters come before byte `k × CHECKPOINT`, for each `k` within the source.
    checkpoints: Vec<usize>,
    /// The length of the source indexed.
    len: usize,
}

/// The distance in bytes between the character counts [`LineIndex`] keeps.
const CHECKPOINT: usize = 256;

/// Whether `byte` starts a character of UTF-8 text (it is not a continuation byte).
fn starts_char(byte: u8) -> bool {
    (byte as i8) >= -0x40
}

impl LineIndex {
    /// Indexes the line starts of `source`.
    pub fn new(source: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        let mut checkpoints = Vec::with_capacity(source.len() / CHECKPOINT + 1);
        let mut chars = 0;
        for chunk in source.as_bytes().chunks(CHECKPOINT) {
            checkpoints.push(chars);
            chars += chunk.iter().filter(|&&b| starts_char(b)).count();
        }
        checkpoints.push(chars);
        LineIndex {
            line_starts,
            checkpoints,
            len: source.len(),
        }
    }

    /// How many characters of `source` come before byte `offset`, a character boundary (counted
    /// from the start when `source` is not the text indexed).
    fn chars_before(&self, source: &str, offset: usize) -> usize {
        let k = offset / CHECKPOINT;
        match self.checkpoints.get(k) {
            Some(before) if source.len() == self.len => {
                let chunk = &source.as_bytes()[k * CHECKPOINT..offset];
                before + chunk.iter().filter(|&&b| starts_char(b)).count()
            }
            _ => source[..offset].chars().count(),
        }
    }

    /// The 0-based line that holds byte `offset` (offsets past the end are on the last line).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset) - 1
    }

    /// Where 0-based `line` starts; `None` past the last line.
    pub(crate) fn line_start(&self, line: usize) -> Option<usize> {
        self.line_starts.get(line).copied()
    }

    /// The 1-based line and column of byte `offset` in `source`.
    pub fn line_col(&self, source: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(source.len());
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let mut end = offset;
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let column = self.chars_before(source, end) - self.chars_before(source, start) + 1;
        (line + 1, column)
    }
}

/// Decodes source bytes as UTF-8, or returns an `invalid-utf8` diagnostic pointing at the first
/// bad byte.
// A diagnostic is as large as it is everywhere; boxing it here alone would buy nothing.
#[allow(clippy::result_large_err)]
pub fn decode_source(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let bad = e.error_len().unwrap_or(bytes.len() - at).max(1);
        Diagnostic::error(
            Code::InvalidUtf8,
            Span::new(at, at + bad),
            format!(
                "the source is not valid UTF-8 (bad byte 0x{:02X})",
                bytes[at]
            ),
        )
        .with_label("not UTF-8")
        .with_help("save the file as UTF-8")
    })
}

#[cfg(test)]
mod tests {
    use super::LineIndex;
    use proptest::prelude::*;

    /// The line and column of `offset` counted from the start of `source`.
    fn counted(source: &str, offset: usize) -> (usize, usize) {
        let mut end = offset.min(source.len());
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let before = &source[..end];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[start..].chars().count() + 1)
    }

    proptest! {
        #[test]
        fn columns_from_checkpoints_are_counted_columns(
            parts in proptest::collection::vec(
                prop_oneof![Just("a"), Just("\n"), Just("é"), Just("漢"), Just("😀"), Just("\t")],
                0..2_000,
            ),
            offsets in proptest::collection::vec(0usize..8_100, 1..20),
        ) {
            let source: String = parts.concat();
            let index = LineIndex::new(&source);
            for offset in offsets {
                prop_assert_eq!(index.line_col(&source, offset), counted(&source, offset));
            }
        }
    }

    #[test]
    fn a_source_other_than_the_one_indexed_is_counted_from_its_start() {
        let index = LineIndex::new("ab");
        let other = "é".repeat(600);
        assert_eq!(index.line_col(&other, 1_000), (1, 501));
    }
}
