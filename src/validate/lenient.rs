//! Lenient reading, for lax mode only: the almost-JSON models write, turned into JSON with every
//! repair recorded (its kind and where in the text it was made).
//!
//! The repairs, and nothing else:
//! - one JSON value taken out of a markdown code fence or out of the prose around it;
//! - a comma before `}` or `]` dropped;
//! - a single-quoted string read as a string;
//! - an object key that is an identifier (`{city: "Paris"}`) quoted;
//! - Python's `True`, `False` and `None` read as `true`, `false` and `null`;
//! - `//` and `/* */` comments dropped;
//! - an escape of half a UTF-16 surrogate pair without its other half (`\ud83d` alone, as a
//!   cut emoji leaves it), which no string can hold, read as U+FFFD, the replacement character;
//! - a raw control character inside a string (a line break in a multi-line argument, a tab)
//!   escaped (`\n`, `\t`, …);
//! - a backslash that starts no JSON escape read as itself (`"C:\Users"` is `C:\Users`), and
//!   one before an apostrophe (`it\'s`) dropped;
//! - a number JSON does not spell but whose value is certain written as JSON writes it: a
//!   leading `+` dropped (`+5`), a zero before a leading decimal point (`.5`, `-.5`), one after
//!   a trailing one (`5.`);
//! - a document cut off where only closing brackets are missing closed (the validator keeps the
//!   result only when it is then valid).
//!
//! Anything else is left as it is, so the JSON reader reports it where it stands. The reader
//! runs only on text the JSON reader refused, so valid JSON costs nothing more. The
//! almost-JSON crates in the field (json_repair's ports) repair far more than this (they
//! invent missing values and quotes) and do not say what they changed or where; a call must
//! not be rewritten past what the model can be told.

use std::fmt;

use serde::Serialize;

/// One repair made to the text a model sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Repair {
    /// What was repaired.
    pub kind: RepairKind,
    /// Where, as a line and a column (1-based, in characters) of the text as sent.
    pub line: usize,
    /// The column (1-based, in characters).
    pub column: usize,
}

/// The kinds of repair lenient reading makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RepairKind {
    /// The value was taken out of a markdown code fence.
    CodeFence,
    /// The value was taken out of text around it.
    SurroundingText,
    /// A comma before a closing bracket was dropped.
    TrailingComma,
    /// A single-quoted string was read as a string.
    SingleQuotes,
    /// An identifier used as an object key was quoted.
    UnquotedKey,
    /// `True`, `False` or `None` was read as `true`, `false` or `null`.
    PythonLiteral,
    /// A comment was dropped.
    Comment,
    /// Missing closing brackets were added at the end.
    ClosedBrackets,
    /// Half of a UTF-16 surrogate pair, escaped without its other half, was read as U+FFFD.
    LoneSurrogate,
    /// A raw control character inside a string (a line break, a tab) was escaped.
    ControlCharacter,
    /// A backslash JSON does not read as an escape was kept as a backslash (`C:\Users`), or
    /// dropped before an apostrophe (`it\'s`).
    InvalidEscape,
    /// A number JSON does not spell (`+5`, `.5`, `5.`) was written as JSON does (`5`, `0.5`,
    /// `5.0`).
    NumberForm,
}

impl RepairKind {
    /// The kebab-case name, as in the audit.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairKind::CodeFence => "code-fence",
            RepairKind::SurroundingText => "surrounding-text",
            RepairKind::TrailingComma => "trailing-comma",
            RepairKind::SingleQuotes => "single-quotes",
            RepairKind::UnquotedKey => "unquoted-key",
            RepairKind::PythonLiteral => "python-literal",
            RepairKind::Comment => "comment",
            RepairKind::ClosedBrackets => "closed-brackets",
            RepairKind::LoneSurrogate => "lone-surrogate",
            RepairKind::ControlCharacter => "control-character",
            RepairKind::InvalidEscape => "invalid-escape",
            RepairKind::NumberForm => "number-form",
        }
    }
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}:{}", self.kind.as_str(), self.line, self.column)
    }
}

/// The text repaired: JSON text, the repairs made (in text order), and whether closing brackets
/// were added (the caller keeps such a result only when it validates).
pub(crate) struct Repaired {
    pub text: String,
    pub repairs: Vec<Repair>,
    pub closed: bool,
    /// Where the copy's offsets and the text's last moved apart: (offset in `text`, offset in
    /// the text as sent), in order.
    sync: Vec<(usize, usize)>,
}

impl Repaired {
    /// The offset in the text as sent of byte `at` of the repaired text: counted from the last
    /// place before it where the two were in step (inside a repair, its start).
    pub(crate) fn sent_offset(&self, at: usize) -> usize {
        let k = self.sync.partition_point(|&(out, _)| out <= at);
        match k.checked_sub(1).map(|k| self.sync[k]) {
            Some((out, sent)) => {
                let next = self.sync.get(k).map_or(usize::MAX, |&(_, s)| s);
                (sent + (at - out)).min(next)
            }
            None => at,
        }
    }
}

/// `text` with the repairs above made, or `None` when none applies.
pub(crate) fn repair(text: &str) -> Option<Repaired> {
    let mut out = Repairer {
        source: text,
        out: String::with_capacity(text.len() + 8),
        repairs: Vec::new(),
        stack: Vec::new(),
        unclosed: false,
        sync: Vec::new(),
    };
    let (start, end) = out.locate();
    out.rewrite(start, end);
    if out.repairs.is_empty() {
        return None;
    }
    let mut repairs: Vec<(usize, RepairKind)> = std::mem::take(&mut out.repairs);
    repairs.sort_by_key(|&(at, _)| at);
    let closed = repairs
        .iter()
        .any(|&(_, k)| k == RepairKind::ClosedBrackets);
    // Lines and columns in one walk over the text (the offsets are sorted, on character
    // boundaries).
    let (mut line, mut column, mut scanned) = (1, 1, 0);
    let repairs = repairs
        .into_iter()
        .map(|(at, kind)| {
            let at = at.clamp(scanned, text.len());
            for ch in text[scanned..at].chars() {
                if ch == '\n' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
            scanned = at;
            Repair { kind, line, column }
        })
        .collect();
    Some(Repaired {
        repairs,
        text: out.out,
        closed,
        sync: out.sync,
    })
}

struct Repairer<'t> {
    source: &'t str,
    out: String,
    /// Repairs by byte offset in `source`.
    repairs: Vec<(usize, RepairKind)>,
    /// Open brackets: `true` for an object.
    stack: Vec<bool>,
    /// Whether the text ended inside a string.
    unclosed: bool,
    /// [`Repaired::sync`].
    sync: Vec<(usize, usize)>,
}

impl Repairer<'_> {
    /// Notes that the copy so far stands for `source[..i]`, where the two have moved apart
    /// since the last note (so that a text with few repairs keeps few notes).
    fn in_step(&mut self, i: usize) {
        let moved = |&(out, sent): &(usize, usize)| out.wrapping_sub(sent);
        if self.sync.last().map(moved) != Some(self.out.len().wrapping_sub(i)) {
            self.sync.push((self.out.len(), i));
        }
    }

    /// The byte range of the value to read: inside the first code fence when the text has one,
    /// else from the first `{` or `[` to the bracket that closes it (or to the end).
    fn locate(&mut self) -> (usize, usize) {
        let s = self.source;
        let trimmed = s.trim_start();
        let lead = s.len() - trimmed.len();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            let end = closing(s, lead).unwrap_or(s.len());
            let rest = &s[end..];
            if rest.contains(['{', '[']) {
                // A second value: which one was meant is not for the reader to guess.
                return (lead, s.len());
            }
            if !rest.trim().is_empty() {
                self.repairs.push((end, RepairKind::SurroundingText));
            }
            return (lead, end);
        }
        if let Some(fence) = s.find("```") {
            // The info string (`json`) runs to the end of the line.
            let body = s[fence + 3..]
                .find('\n')
                .map_or(s.len(), |n| fence + 3 + n + 1);
            let end = s[body..].find("```").map_or(s.len(), |n| body + n);
            self.repairs.push((fence, RepairKind::CodeFence));
            let inner = &s[body..end];
            let lead = inner.len() - inner.trim_start().len();
            return (body + lead, end);
        }
        match s.find(['{', '[']) {
            Some(open) => {
                let end = closing(s, open).unwrap_or(s.len());
                if s[end..].contains(['{', '[']) {
                    return (0, s.len());
                }
                self.repairs.push((0, RepairKind::SurroundingText));
                (open, end)
            }
            None => (0, s.len()),
        }
    }

    /// Copies `source[start..end]` to `out` with the repairs made.
    fn rewrite(&mut self, start: usize, end: usize) {
        let s = self.source;
        let b = s.as_bytes();
        let mut i = start;
        while i < end {
            self.in_step(i);
            let c = b[i];
            match c {
                b'"' => {
                    let stop = string_end(b, i, b'"', end);
                    self.unclosed |= stop == end && !closes_string(b, i, stop);
                    self.string(i, stop);
                    i = stop;
                }
                b'\'' => {
                    self.repairs.push((i, RepairKind::SingleQuotes));
                    i = self.single_quoted(i, end);
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    self.repairs.push((i, RepairKind::Comment));
                    i = s[i..end].find('\n').map_or(end, |n| i + n);
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    self.repairs.push((i, RepairKind::Comment));
                    i = s[i + 2..end].find("*/").map_or(end, |n| i + 2 + n + 2);
                }
                b',' => {
                    let next = self.skip_blank(i + 1, end);
                    if matches!(b.get(next), Some(b'}' | b']')) || next >= end {
                        self.repairs.push((i, RepairKind::TrailingComma));
                    } else {
                        self.out.push(',');
                    }
                    i += 1;
                }
                b'{' | b'[' => {
                    self.stack.push(c == b'{');
                    self.out.push(c as char);
                    i += 1;
                }
                b'}' | b']' => {
                    self.stack.pop();
                    self.out.push(c as char);
                    i += 1;
                }
                c if in_word(c) && !c.is_ascii_digit() => {
                    let stop = i + b[i..end]
                        .iter()
                        .position(|&c| !in_word(c))
                        .unwrap_or(end - i);
                    let word = &s[i..stop];
                    let after = self.skip_blank(stop, end);
                    let in_object = self.stack.last() == Some(&true);
                    if let Some(json) = python_literal(word) {
                        self.literal(i, json);
                    } else if in_object && b.get(after) == Some(&b':') && self.key_position() {
                        self.repairs.push((i, RepairKind::UnquotedKey));
                        self.out.push('"');
                        self.out.push_str(word);
                        self.out.push('"');
                    } else {
                        self.out.push_str(word);
                    }
                    i = stop;
                }
                b'+' | b'-' | b'.' | b'0'..=b'9' => {
                    let stop = i + b[i..end]
                        .iter()
                        .position(|&c| !in_number(c))
                        .unwrap_or(end - i);
                    match number_form(&s[i..stop]) {
                        Some(json) => {
                            self.repairs.push((i, RepairKind::NumberForm));
                            self.out.push_str(&json);
                        }
                        None => self.out.push_str(&s[i..stop]),
                    }
                    i = stop;
                }
                _ => {
                    // Everything else is copied as it is (whole characters).
                    let ch = s[i..].chars().next().unwrap_or(' ');
                    self.out.push(ch);
                    i += ch.len_utf8();
                }
            }
        }
        self.in_step(end);
        if !self.stack.is_empty() && self.truncated_inside_closing() {
            self.repairs.push((end, RepairKind::ClosedBrackets));
            while let Some(object) = self.stack.pop() {
                self.out.push(if object { '}' } else { ']' });
            }
        }
    }

    /// Copies the double-quoted string `source[i..stop]` with its [`flaws`] made JSON: a raw
    /// control character escaped, a lone surrogate escape read as U+FFFD, a backslash that
    /// starts no escape kept as one (dropped before an apostrophe).
    fn string(&mut self, i: usize, stop: usize) {
        self.string_body(i, i, stop, false);
    }

    /// Copies `source[from..to]`, part of the string that opens at `i` and ends before `stop`,
    /// with its [`flaws`] repaired; in a single-quoted string (`single`) a double quote is
    /// escaped too, and `\'` is the apostrophe it means there (no repair of its own).
    fn string_body(&mut self, i: usize, from: usize, to: usize, single: bool) {
        let s = self.source;
        let mut from = from;
        for (j, flaw) in flaws(s.as_bytes(), i, to) {
            let (text, kind) = match flaw {
                Flaw::Control(c) => (control_escape(c), Some(RepairKind::ControlCharacter)),
                Flaw::Escape(Escape::LoneSurrogate) => {
                    ("\\ufffd".into(), Some(RepairKind::LoneSurrogate))
                }
                Flaw::Escape(Escape::Apostrophe) => {
                    ("'".into(), (!single).then_some(RepairKind::InvalidEscape))
                }
                // The backslash written as one; what follows is read on its own.
                Flaw::Escape(Escape::Invalid) => ("\\\\".into(), Some(RepairKind::InvalidEscape)),
                // Left for the JSON reader to report.
                Flaw::Escape(Escape::ShortUnicode | Escape::Valid(_)) => continue,
            };
            if let Some(kind) = kind {
                self.repairs.push((j, kind));
            }
            self.verbatim(&s[from..j], single);
            self.out.push_str(&text);
            from = j + flaw.len();
            self.in_step(from);
        }
        if from < to {
            self.verbatim(&s[from..to], single);
        }
    }

    /// Copies a flawless part of a string; in a single-quoted one, with a `"` that no backslash
    /// escapes written as `\"`.
    fn verbatim(&mut self, part: &str, single: bool) {
        if !single {
            self.out.push_str(part);
            return;
        }
        let b = part.as_bytes();
        let (mut from, mut k) = (0, 0);
        while k < b.len() {
            match b[k] {
                // A valid escape (the part has no other), `\"` among them.
                b'\\' => k += 2,
                b'"' => {
                    self.out.push_str(&part[from..k]);
                    self.out.push_str("\\\"");
                    k += 1;
                    from = k;
                }
                _ => k += 1,
            }
        }
        self.out.push_str(&part[from..]);
    }

    fn literal(&mut self, at: usize, json: &str) {
        self.repairs.push((at, RepairKind::PythonLiteral));
        self.out.push_str(json);
    }

    /// Whether the output so far ends where an object key may start (after `{` or `,`).
    fn key_position(&self) -> bool {
        matches!(self.out.trim_end().chars().last(), Some('{' | ','))
    }

    /// Whether the output ends where a value is complete, so that only closing brackets are
    /// missing (not inside a string, not after `:` or `,`).
    fn truncated_inside_closing(&self) -> bool {
        !self.unclosed && !matches!(self.out.trim_end().chars().last(), Some(':' | ',') | None)
    }

    /// The index after blanks and comments from `i`.
    fn skip_blank(&self, mut i: usize, end: usize) -> usize {
        let s = self.source;
        let b = s.as_bytes();
        loop {
            while i < end && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if s[i.min(end)..end].starts_with("//") {
                i = s[i..end].find('\n').map_or(end, |n| i + n);
            } else if s[i.min(end)..end].starts_with("/*") {
                i = s[i + 2..end].find("*/").map_or(end, |n| i + 2 + n + 2);
            } else {
                return i;
            }
        }
    }

    /// Writes the single-quoted string at `i` as a JSON string, its flaws repaired as in a
    /// double-quoted one ([`Repairer::string_body`]); the index after it.
    fn single_quoted(&mut self, i: usize, end: usize) -> usize {
        let b = self.source.as_bytes();
        let stop = string_end(b, i, b'\'', end);
        let closed = stop < end || closes_string(b, i, stop);
        self.out.push('"');
        self.string_body(i, i + 1, if closed { stop - 1 } else { stop }, true);
        if closed {
            self.out.push('"');
        } else {
            // Unclosed: left unclosed, so the JSON reader reports it.
            self.unclosed = true;
        }
        stop
    }
}

/// Whether byte `c` can be part of a bare word: an identifier (a key without quotes, Python's
/// literals, a word JSON does not have) starts with one that is no digit.
pub(crate) fn in_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Whether byte `c` can be part of a number token: JSON's numbers and the loose forms
/// [`number_form`] reads.
pub(crate) fn in_number(c: u8) -> bool {
    matches!(c, b'+' | b'-' | b'.' | b'e' | b'E' | b'0'..=b'9')
}

/// JSON's spelling of Python's `True`, `False` and `None`.
pub(crate) fn python_literal(word: &str) -> Option<&'static str> {
    match word {
        "True" => Some("true"),
        "False" => Some("false"),
        "None" => Some("null"),
        _ => None,
    }
}

/// The JSON spelling of a number token JSON refuses but whose value is certain (`+5`, `.5`,
/// `-.5e3`, `5.`); `None` for a token JSON reads as it is, and for one whose value is not
/// certain (`007`, `1.2.3`, `1e`), which the JSON reader then reports.
pub(crate) fn number_form(token: &str) -> Option<String> {
    let (sign, rest) = match token.as_bytes().first()? {
        b'+' => ("", &token[1..]),
        b'-' => ("-", &token[1..]),
        _ => ("", token),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (mantissa, None),
    };
    let digits = |d: &str| d.bytes().all(|c| c.is_ascii_digit());
    let exponent_ok = exponent.is_empty() || {
        let e = exponent[1..]
            .strip_prefix(['+', '-'])
            .unwrap_or(&exponent[1..]);
        !e.is_empty() && digits(e)
    };
    let well_formed = digits(int)
        && frac.is_none_or(digits)
        && !(int.is_empty() && frac.is_none_or(str::is_empty))
        && (int.len() <= 1 || !int.starts_with('0'))
        && exponent_ok;
    let loose = token.starts_with('+') || int.is_empty() || frac == Some("");
    if !(well_formed && loose) {
        return None;
    }
    let int = if int.is_empty() { "0" } else { int };
    Some(match frac {
        Some("") => format!("{sign}{int}.0{exponent}"),
        Some(frac) => format!("{sign}{int}.{frac}{exponent}"),
        None => format!("{sign}{int}{exponent}"),
    })
}

/// What the backslash at `at`, in a string, starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Escape {
    /// An escape JSON has, this many bytes long (a surrogate pair's two escapes are one).
    Valid(usize),
    /// `\uXXXX` of half a surrogate pair, without its other half.
    LoneSurrogate,
    /// `\'`, which JSON does not have: an apostrophe needs no escape.
    Apostrophe,
    /// `\u` with one to three hex digits: a code point cut short, which is not guessed at.
    ShortUnicode,
    /// A backslash before anything else (`\U` in `C:\Users`, `\x41`, `\u` before a letter
    /// that is no hex digit): JSON has no such escape, so the backslash stands for itself.
    Invalid,
}

impl Escape {
    /// How many bytes the escape takes (an invalid one, only its backslash).
    fn len(self) -> usize {
        match self {
            Escape::Valid(n) => n,
            Escape::LoneSurrogate => 6,
            Escape::Apostrophe | Escape::ShortUnicode => 2,
            Escape::Invalid => 1,
        }
    }
}

/// What no JSON string holds, found in one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// An escape JSON does not have, or one cut short, or a lone surrogate.
    Escape(Escape),
    /// A raw control character (below U+0020).
    Control(u8),
}

impl Flaw {
    /// How many bytes the flaw takes.
    fn len(self) -> usize {
        match self {
            Flaw::Escape(e) => e.len(),
            Flaw::Control(_) => 1,
        }
    }
}

/// The flaws of the string whose opening quote is at `i` and which ends before `stop`
/// ([`string_end`]), each at its byte offset, in order: the one reading of a string's bytes,
/// for lax mode's repairs and for strict mode's words.
pub(crate) fn flaws(b: &[u8], i: usize, stop: usize) -> impl Iterator<Item = (usize, Flaw)> + '_ {
    let mut j = i + 1;
    std::iter::from_fn(move || {
        while j < stop {
            let at = j;
            let flaw = match b[j] {
                b'\\' => match escape_at(b, j) {
                    Escape::Valid(n) => {
                        j += n;
                        continue;
                    }
                    other => Flaw::Escape(other),
                },
                c if c < 0x20 => Flaw::Control(c),
                _ => {
                    j += 1;
                    continue;
                }
            };
            j += flaw.len();
            return Some((at, flaw));
        }
        None
    })
}

/// The escape at `at` (a backslash).
fn escape_at(b: &[u8], at: usize) -> Escape {
    match b.get(at + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Escape::Valid(2),
        Some(b'\'') => Escape::Apostrophe,
        Some(b'u') => match code_unit(b, at) {
            Some(0xD800..=0xDBFF) if matches!(code_unit(b, at + 6), Some(0xDC00..=0xDFFF)) => {
                Escape::Valid(12)
            }
            Some(0xD800..=0xDFFF) => Escape::LoneSurrogate,
            Some(_) => Escape::Valid(6),
            None if b.get(at + 2).is_some_and(u8::is_ascii_hexdigit) => Escape::ShortUnicode,
            None => Escape::Invalid,
        },
        _ => Escape::Invalid,
    }
}

/// The UTF-16 code unit escaped at `at`, if `\uXXXX` is there.
fn code_unit(b: &[u8], at: usize) -> Option<u16> {
    let hex = b.get(at..at + 6)?;
    if hex[..2] != *b"\\u" || !hex[2..].iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
}

/// How a JSON string writes the control character `c` (below U+0020).
pub(crate) fn control_escape(c: u8) -> String {
    match c {
        b'\n' => "\\n".into(),
        b'\t' => "\\t".into(),
        b'\r' => "\\r".into(),
        0x08 => "\\b".into(),
        0x0C => "\\f".into(),
        _ => format!("\\u{c:04x}"),
    }
}

/// The index after the string that starts at `i` (quote `q`), or `end`.
pub(crate) fn string_end(b: &[u8], i: usize, q: u8, end: usize) -> usize {
    let mut j = i + 1;
    while j < end {
        match b[j] {
            b'\\' => j += 2,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    end
}

/// The byte index after the bracket that closes the one at `open`, skipping strings; `None`
/// when the text ends first.
fn closing(s: &str, open: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            q @ (b'"' | b'\'') => {
                i = string_end(b, i, q, b.len());
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether the string from `i` to `stop` (where the text ends) ends with its closing quote
/// (the quote it opens with).
fn closes_string(b: &[u8], i: usize, stop: usize) -> bool {
    if stop < i + 2 || b[stop - 1] != b[i] {
        return false;
    }
    // The quote closes the string unless an odd run of backslashes escapes it.
    let backslashes = b[i + 1..stop - 1]
        .iter()
        .rev()
        .take_while(|&&c| c == b'\\')
        .count();
    backslashes % 2 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(text: &str) -> (String, Vec<RepairKind>) {
        let r = repair(text).expect("a repair");
        (r.text, r.repairs.iter().map(|r| r.kind).collect())
    }

    #[test]
    fn each_repair() {
        use RepairKind::*;
        assert_eq!(
            fixed("Sure:\n```json\n{\"a\": 1}\n```\nDone."),
            ("{\"a\": 1}\n".to_string(), vec![CodeFence])
        );
        assert_eq!(
            fixed("Here it is: {\"a\": [1, 2]} hope it helps"),
            ("{\"a\": [1, 2]}".to_string(), vec![SurroundingText])
        );
        assert_eq!(
            fixed("{\"a\": 1,}"),
            ("{\"a\": 1}".to_string(), vec![TrailingComma])
        );
        assert_eq!(
            fixed("{'a': 'it\\'s \"x\"'}"),
            (
                "{\"a\": \"it's \\\"x\\\"\"}".to_string(),
                vec![SingleQuotes, SingleQuotes]
            )
        );
        assert_eq!(
            fixed("{city: \"Paris\", n_2: 1}"),
            (
                "{\"city\": \"Paris\", \"n_2\": 1}".to_string(),
                vec![UnquotedKey, UnquotedKey]
            )
        );
        assert_eq!(
            fixed("[True, False, None]"),
            ("[true, false, null]".to_string(), vec![PythonLiteral; 3])
        );
        assert_eq!(
            fixed("{\"a\": 1 // one\n, /* two */ \"b\": 2}"),
            (
                "{\"a\": 1 \n,  \"b\": 2}".to_string(),
                vec![Comment, Comment]
            )
        );
        assert_eq!(
            fixed("{\"a\": [1, {\"b\": \"x\"}"),
            (
                "{\"a\": [1, {\"b\": \"x\"}]}".to_string(),
                vec![ClosedBrackets]
            )
        );
    }

    #[test]
    fn lone_surrogates_are_found_and_replaced() {
        // The places of the repairs made to one string.
        let at = |t: &str| -> Vec<usize> {
            repair(t).map_or_else(Vec::new, |r| r.repairs.iter().map(|r| r.column).collect())
        };
        assert_eq!(at(r#""\ud83d""#), [2]);
        assert_eq!(at(r#""\ude00x""#), [2]);
        assert_eq!(at(r#""a\ud83d\ude00b""#), Vec::<usize>::new());
        assert_eq!(at(r#""\ud83d\ud83d\ude00""#), [2]);
        assert_eq!(at(r#""\ud83d\u0041""#), [2]);
        // An escaped backslash before `u`: no escape of a code unit.
        assert_eq!(at(r#""\\ud83d""#), Vec::<usize>::new());
        assert_eq!(at(r#""\\\ud83d""#), [4]);
        assert_eq!(
            fixed(r#"{"a": "x\ud83d", "b": "\udc00\ud83d\ude00"}"#),
            (
                r#"{"a": "x\ufffd", "b": "\ufffd\ud83d\ude00"}"#.to_string(),
                vec![RepairKind::LoneSurrogate, RepairKind::LoneSurrogate]
            )
        );
        let r = repair("{\"a\":\n \"é\\ud800\"}").expect("a repair");
        assert_eq!(
            r.repairs,
            [Repair {
                kind: RepairKind::LoneSurrogate,
                line: 2,
                column: 4
            }]
        );
    }

    #[test]
    fn raw_control_characters_in_strings_are_escaped() {
        assert_eq!(
            fixed("{\"a\": \"x\ny\tz\u{1}\", 'b': 'p\nq'}"),
            (
                r#"{"a": "x\ny\tz\u0001", "b": "p\nq"}"#.to_string(),
                vec![
                    RepairKind::ControlCharacter,
                    RepairKind::ControlCharacter,
                    RepairKind::ControlCharacter,
                    RepairKind::SingleQuotes,
                    RepairKind::SingleQuotes,
                    RepairKind::ControlCharacter,
                ]
            )
        );
        // Between values a line break is blank space, kept as it is.
        assert!(repair("{\"a\":\n 1}").is_none());
        let r = repair("{\"a\": \"é\nb\"}").expect("a repair");
        assert_eq!(
            r.repairs,
            [Repair {
                kind: RepairKind::ControlCharacter,
                line: 1,
                column: 9
            }]
        );
    }

    #[test]
    fn backslashes_that_start_no_escape_stand_for_themselves() {
        assert_eq!(
            fixed(r#"{"p": "C:\Users\me", "q": "it\'s", "r": "\user", "s": "a\\b\n"}"#),
            (
                r#"{"p": "C:\\Users\\me", "q": "it's", "r": "\\user", "s": "a\\b\n"}"#.to_string(),
                vec![RepairKind::InvalidEscape; 4]
            )
        );
        // A `\u` escape cut short is not guessed at.
        assert!(repair(r#"{"r": "\u12"}"#).is_none());
    }

    #[test]
    fn single_quoted_strings_have_their_flaws_repaired_alike() {
        use RepairKind::{InvalidEscape, LoneSurrogate, SingleQuotes};
        assert_eq!(
            fixed(r#"{'p': 'C:\Users\me', 'q': 'it\'s "x"', 'r': '\ud83d', 's': 'a\nb'}"#),
            (
                r#"{"p": "C:\\Users\\me", "q": "it's \"x\"", "r": "\ufffd", "s": "a\nb"}"#
                    .to_string(),
                vec![
                    SingleQuotes,
                    SingleQuotes,
                    InvalidEscape,
                    InvalidEscape,
                    SingleQuotes,
                    SingleQuotes,
                    SingleQuotes,
                    SingleQuotes,
                    LoneSurrogate,
                    SingleQuotes,
                    SingleQuotes,
                ]
            )
        );
        // An apostrophe escaped in a single-quoted string does not close it.
        assert_eq!(fixed(r"['it\'s']").0, r#"["it's"]"#);
        // A double quote escaped in a single-quoted string stays escaped.
        assert_eq!(fixed(r#"['\"', '"\\']"#).0, r#"["\"", "\"\\"]"#);
        // Unclosed, it stays unclosed for the JSON reader to report.
        let r = repair(r"{'a': 'x\'").expect("a repair");
        assert!(!r.closed && r.text.ends_with(r#""x'"#), "{}", r.text);
    }

    #[test]
    fn numbers_json_does_not_spell_are_written_as_it_does() {
        for (loose, json) in [
            ("+5", "5"),
            ("+0", "0"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("+.5e3", "0.5e3"),
            ("5.", "5.0"),
            ("-5.E-2", "-5.0E-2"),
        ] {
            assert_eq!(number_form(loose).as_deref(), Some(json), "{loose}");
            assert_eq!(
                fixed(&format!("{{\"n\": {loose}, \"m\": [{loose}]}}")),
                (
                    format!("{{\"n\": {json}, \"m\": [{json}]}}"),
                    vec![RepairKind::NumberForm; 2]
                ),
                "{loose}"
            );
        }
        // JSON's own numbers, and tokens whose value is not certain, are left as they are.
        for token in [
            "5", "-5", "0.5", "1e5", "-0", "007", "+007", "1.2.3", "1e", "+", "-", ".", "+.",
            "5..", "1e+", "--5", "+-5", ".e5", "5.e",
        ] {
            assert_eq!(number_form(token), None, "{token}");
        }
        assert!(repair("{\"n\": 1.2.3}").is_none());
    }

    #[test]
    fn what_is_not_repaired() {
        // Cut inside a string, or after a colon: not only closing brackets are missing.
        for text in ["{\"a\": \"unfinish", "{\"a\":", "{\"a\": \"x\\\""] {
            assert!(repair(text).is_none_or(|r| !r.closed), "{text}");
        }
        // Valid JSON and text with nothing to repair.
        assert!(repair("{\"a\": 1}").is_none());
        assert!(repair("{\"a\": nope}").is_none());
    }

    #[test]
    fn positions_are_lines_and_columns() {
        let r = repair("{\n  \"a\": 1,\n}").expect("a repair");
        assert_eq!(
            r.repairs,
            [Repair {
                kind: RepairKind::TrailingComma,
                line: 2,
                column: 9
            }]
        );
    }
}
