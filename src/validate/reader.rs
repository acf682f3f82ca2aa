//! Reading argument text: JSON as providers deliver it, with the checks serde_json leaves out.
//! Duplicate keys are errors (serde_json keeps the last one silently), nesting is limited, and a
//! syntax error reports its line and column.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

use super::error::{escape_pointer, ErrorCode, TextPosition, ValidationError};
use super::lenient::{self, Escape, Flaw};
use super::message::shorten;
use crate::diagnostic::LineIndex;

/// What reading the text produced: the value (unless the text is unreadable) and the
/// non-fatal problems found on the way (duplicate keys).
pub(crate) struct Parsed {
    pub value: Value,
    pub duplicates: Vec<ValidationError>,
}

/// Where the seeds of a reading that reports its problems record them. Paths are not tracked on
/// the way down (that would cost a string per key): a problem records its path relative to the
/// container it is found in, and each enclosing container prepends its own segment on the way
/// back up.
struct Report {
    duplicates: Vec<ValidationError>,
    too_deep: Option<String>,
}

impl Report {
    /// Prepends `/segment` to the paths of the problems recorded since `since`.
    fn prefix(&mut self, since: usize, segment: &str) {
        for d in &mut self.duplicates[since..] {
            d.path.insert_str(0, segment);
            d.path.insert(0, '/');
        }
    }

    /// Prepends `/segment` to the path of the too-deep container, if that is the problem.
    fn prefix_too_deep(&mut self, segment: &str) {
        if let Some(path) = &mut self.too_deep {
            path.insert_str(0, segment);
            path.insert(0, '/');
        }
    }
}

/// Parses `text` as JSON. A fatal problem (not JSON, too deep) is the error; duplicate keys are
/// collected and parsing goes on.
pub(crate) fn parse(text: &str, max_depth: usize) -> Result<Parsed, Box<ValidationError>> {
    parse_placed(text, None, max_depth)
}

/// [`parse`] of `text`, lax mode's repair of `sent`: a fatal problem is placed in `sent`, the
/// offsets of `text` taken back by `to_sent`.
pub(crate) fn parse_repaired(
    text: &str,
    sent: &str,
    to_sent: ToSent<'_>,
    max_depth: usize,
) -> Result<Parsed, Box<ValidationError>> {
    parse_placed(text, Some((sent, to_sent)), max_depth)
}

fn parse_placed(
    text: &str,
    sent: Option<(&str, ToSent<'_>)>,
    max_depth: usize,
) -> Result<Parsed, Box<ValidationError>> {
    let mut report = Report {
        duplicates: Vec::new(),
        too_deep: None,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    // The seed counts depth itself and stops at `max_depth`, so serde_json's own limit (127)
    // is not needed.
    de.disable_recursion_limit();
    let result = Seed {
        report: Some(&mut report),
        depth: 0,
        max_depth,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    match result {
        Ok(value) => Ok(Parsed {
            value,
            duplicates: report.duplicates,
        }),
        Err(e) => {
            let place = Place::new(text, sent);
            let position = place.position(&e);
            if let Some(path) = report.too_deep {
                return Err(Box::new(
                    ValidationError::new(
                        path,
                        ErrorCode::TooDeep,
                        format!("at most {max_depth} levels of nesting"),
                        format!("more than {max_depth}"),
                        format!(
                            "the arguments nest deeper than {max_depth} levels (at line {}, column {})",
                            position.line, position.column
                        ),
                    )
                    .with_position(position),
                ));
            }
            if let Some(problem) = in_string(&place, &e)
                .or_else(|| loose_number(&place, &e))
                .or_else(|| almost_json(&place, &e))
            {
                return Err(Box::new(
                    ValidationError::new(
                        String::new(),
                        ErrorCode::InvalidJson,
                        "a JSON object",
                        "text that is not JSON",
                        format!("the arguments are not valid JSON: {}", problem.words),
                    )
                    .with_position(problem.at),
                ));
            }
            let text_message = e.to_string();
            let reason = text_message
                .rsplit_once(" at line ")
                .map_or(text_message.as_str(), |(head, _)| head);
            Err(Box::new(
                ValidationError::new(
                    String::new(),
                    ErrorCode::InvalidJson,
                    "a JSON object",
                    "text that is not JSON",
                    format!(
                        "the arguments are not valid JSON: {reason} at line {}, column {}",
                        position.line, position.column
                    ),
                )
                .with_position(position),
            ))
        }
    }
}

/// A syntax error worded for the model, where serde_json's words name the category of its check
/// at a place after the problem: a raw control character, an escape JSON does not have or a lone
/// surrogate inside a string (`control character (\u0000-\u001F) found while parsing a string`,
/// `invalid escape`, `unexpected end of hex escape`), a number JSON does not spell (`expected
/// value`, `invalid number`), or what else lax mode repairs: single quotes, Python's literals,
/// keys without quotes (`key must be a string`, `expected value`).
struct Worded {
    words: String,
    at: TextPosition,
}

/// What the syntax error `e` is, when it is about a character or an escape inside a string
/// ([`lenient::flaws`]). The text before the error reads as JSON, so its strings pair up and
/// the first flaw in them is the one serde_json stopped at.
fn in_string(place: &Place<'_>, e: &serde_json::Error) -> Option<Worded> {
    let text = place.text;
    let to = place.stop(e)?;
    let b = text.as_bytes();
    let mut i = 0;
    let (i, flaw) = loop {
        if i >= to {
            return None;
        }
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let stop = lenient::string_end(b, i, b'"', b.len());
        if let Some(found) = lenient::flaws(b, i, stop).next() {
            break found;
        }
        i = stop;
    };
    if i >= to {
        return None;
    }
    let (line, column) = place.line_col(i);
    let words = match flaw {
        Flaw::Control(c) => {
            let (name, escape) = match c {
                b'\n' => ("a raw line break".to_string(), "\\n".to_string()),
                b'\t' => ("a raw tab".to_string(), "\\t".to_string()),
                b'\r' => ("a raw carriage return".to_string(), "\\r".to_string()),
                _ => (
                    format!("the raw control character U+{c:04X}"),
                    lenient::control_escape(c),
                ),
            };
            format!(
                "a string holds {name} at line {line}, column {column}; inside a JSON string \
                 write it as `{escape}`"
            )
        }
        Flaw::Escape(Escape::LoneSurrogate) => format!(
            "`{}` at line {line}, column {column} is half of a UTF-16 surrogate pair without its \
             other half, which no string can hold; write the character itself, or both halves \
             of its pair (`\\ud83d\\ude00` is 😀)",
            &text[i..i + 6]
        ),
        Flaw::Escape(Escape::ShortUnicode) => {
            let digits = b[i + 2..]
                .iter()
                .take(3)
                .take_while(|c| c.is_ascii_hexdigit());
            format!(
                "`{}` at line {line}, column {column} is a `\\u` escape without its four hex \
                 digits; write all four (`\\u00e9` is é), or the character itself",
                &text[i..i + 2 + digits.count()]
            )
        }
        Flaw::Escape(_) => format!(
            "`{}` at line {line}, column {column} is no escape a JSON string has; write a \
             backslash as `\\\\` and an apostrophe as it is",
            text[i..].chars().take(2).collect::<String>()
        ),
    };
    Some(Worded {
        words,
        at: TextPosition { line, column },
    })
}

/// What the syntax error `e` is, when serde_json stopped in or just after a number it does not
/// spell but whose value is certain ([`lenient::number_form`]: `+5`, `.5`, `5.`).
fn loose_number(place: &Place<'_>, e: &serde_json::Error) -> Option<Worded> {
    let text = place.text;
    let b = text.as_bytes();
    // serde_json stops on the number's first byte it refuses (`+`, `.`), or on the byte after
    // a number cut short (`3.}`).
    let mut to = place.stop(e)?;
    if to > 0 && !lenient::in_number(b[to - 1]) {
        to -= 1;
    }
    let start = b[..to]
        .iter()
        .rposition(|&c| !lenient::in_number(c))
        .map_or(0, |k| k + 1);
    let end = b[start..]
        .iter()
        .position(|&c| !lenient::in_number(c))
        .map_or(b.len(), |k| start + k);
    let token = &text[start..end];
    let json = lenient::number_form(token)?;
    let (line, column) = place.line_col(start);
    Some(Worded {
        words: format!(
            "`{token}` at line {line}, column {column} is a number JSON does not spell; write \
             `{json}`"
        ),
        at: TextPosition { line, column },
    })
}

/// What the syntax error `e` is, when serde_json stopped at a string in single quotes, at
/// Python's `True`, `False` or `None`, or at an object key without quotes: what lax mode repairs
/// ([`lenient`]), named for strict mode where serde_json says "expected value" or "key must be
/// a string".
fn almost_json(place: &Place<'_>, e: &serde_json::Error) -> Option<Worded> {
    let text = place.text;
    let at = place.stop(e)?.checked_sub(1)?;
    let b = text.as_bytes();
    let (line, column) = place.line_col(at);
    let words = match b[at] {
        b'\'' => format!(
            "a string in single quotes at line {line}, column {column}; JSON writes strings in \
             double quotes"
        ),
        c if lenient::in_word(c) && !c.is_ascii_digit() => {
            let end = b[at..]
                .iter()
                .position(|&c| !lenient::in_word(c))
                .map_or(b.len(), |k| at + k);
            let word = &text[at..end];
            let before = text[..at].trim_end().bytes().next_back();
            let after = text[end..].trim_start().bytes().next();
            if matches!(before, Some(b'{' | b',')) && after == Some(b':') {
                format!(
                    "the key `{word}` at line {line}, column {column} has no quotes; JSON writes \
                     it `\"{word}\"`"
                )
            } else if let Some(json) = lenient::python_literal(word) {
                format!(
                    "`{word}` at line {line}, column {column} is Python's; JSON writes `{json}`"
                )
            } else {
                return None;
            }
        }
        _ => return None,
    };
    Some(Worded {
        words,
        at: TextPosition { line, column },
    })
}

/// Places in the text read, as lines and columns (in characters) of the text as sent: the
/// same text, or the one lax mode repaired ([`parse_repaired`]).
struct Place<'a> {
    text: &'a str,
    index: LineIndex,
    /// The text as sent, its index, and where an offset of `text` stands in it.
    sent: Option<(&'a str, LineIndex, ToSent<'a>)>,
}

/// Where an offset of a repaired text stands in the text as sent.
type ToSent<'a> = &'a dyn Fn(usize) -> usize;

impl<'a> Place<'a> {
    fn new(text: &'a str, sent: Option<(&'a str, ToSent<'a>)>) -> Self {
        Place {
            text,
            index: LineIndex::new(text),
            sent: sent.map(|(sent, to_sent)| (sent, LineIndex::new(sent), to_sent)),
        }
    }

    /// The 1-based line and column of byte `offset` of the text read, in the text as sent.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        match &self.sent {
            Some((sent, index, to_sent)) => index.line_col(sent, to_sent(offset)),
            None => self.index.line_col(self.text, offset),
        }
    }

    /// Where serde_json stopped reading at the syntax error `e`: the byte after the last one it
    /// read.
    fn stop(&self, e: &serde_json::Error) -> Option<usize> {
        if e.classify() != serde_json::error::Category::Syntax {
            return None;
        }
        let start = self.index.line_start(e.line().max(1) - 1)?;
        Some((start + e.column()).min(self.text.len()))
    }

    /// The place of `e`. serde_json reports columns in bytes; people count characters, as
    /// [`LineIndex`] does for every other position (a column past the line's end is its end).
    fn position(&self, e: &serde_json::Error) -> TextPosition {
        let line = e.line().max(1);
        let Some(start) = self.index.line_start(line - 1) else {
            return TextPosition {
                line,
                column: e.column().max(1),
            };
        };
        let end = self
            .index
            .line_start(line)
            .map_or(self.text.len(), |next| next - 1);
        let (line, column) = self.line_col((start + e.column().saturating_sub(1)).min(end));
        TextPosition { line, column }
    }
}

/// Reads one value as it is, inside a container `depth` levels deep, for a caller that stops at
/// the first problem: a duplicate key or nesting deeper than `max_depth` is an error (with no
/// position or path; the caller reads the text again to report it).
pub(super) struct Plain {
    pub depth: usize,
    pub max_depth: usize,
}

impl Plain {
    /// A seed that records nothing: its first problem stops the reading.
    fn seed(&self) -> Seed<'static> {
        Seed {
            report: None,
            depth: self.depth,
            max_depth: self.max_depth,
        }
    }

    /// The rest of an array whose `[` was read.
    pub(super) fn visit_seq<'de, A: SeqAccess<'de>>(self, seq: A) -> Result<Value, A::Error> {
        self.seed().visit_seq(seq)
    }

    /// The rest of an object whose `{` was read.
    pub(super) fn visit_map<'de, A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        self.seed().visit_map(map)
    }
}

impl<'de> DeserializeSeed<'de> for Plain {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.seed().deserialize(deserializer)
    }
}

struct Seed<'s> {
    /// Where problems are recorded; `None` when the first one stops the reading (a duplicate
    /// key, or nesting deeper than `max_depth`).
    report: Option<&'s mut Report>,
    depth: usize,
    max_depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Seed<'_> {
    /// The seed of a value inside this one's container, `depth` levels deep.
    fn child(&mut self, depth: usize) -> Seed<'_> {
        Seed {
            report: self.report.as_deref_mut(),
            depth,
            max_depth: self.max_depth,
        }
    }

    /// How many duplicate keys were recorded so far.
    fn recorded(&self) -> usize {
        self.report.as_ref().map_or(0, |r| r.duplicates.len())
    }

    /// Prepends `/segment` to the paths of the duplicates recorded since `since`.
    fn prefix(&mut self, since: usize, segment: impl FnOnce() -> String) {
        if let Some(report) = self.report.as_deref_mut() {
            if report.duplicates.len() > since {
                report.prefix(since, &segment());
            }
        }
    }

    /// Prepends `/segment` to the path of the too-deep container, if that is the problem.
    fn prefix_too_deep(&mut self, segment: impl FnOnce() -> String) {
        if let Some(report) = self.report.as_deref_mut() {
            if report.too_deep.is_some() {
                report.prefix_too_deep(&segment());
            }
        }
    }

    fn enter<E: de::Error>(&mut self) -> Result<usize, E> {
        let depth = self.depth + 1;
        if depth > self.max_depth {
            if let Some(report) = self.report.as_deref_mut() {
                report.too_deep = Some(String::new());
            }
            return Err(E::custom("nesting too deep"));
        }
        Ok(depth)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        let depth = self.enter()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            let since = self.recorded();
            match seq.next_element_seed(self.child(depth)) {
                Ok(Some(v)) => {
                    self.prefix(since, || items.len().to_string());
                    items.push(v);
                }
                Ok(None) => break,
                Err(e) => {
                    self.prefix_too_deep(|| items.len().to_string());
                    return Err(e);
                }
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.enter()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let since = self.recorded();
            let value = match map.next_value_seed(self.child(depth)) {
                Ok(v) => v,
                Err(e) => {
                    self.prefix_too_deep(|| escape_pointer(&key).into_owned());
                    return Err(e);
                }
            };
            self.prefix(since, || escape_pointer(&key).into_owned());
            // One lookup: the key is hashed once, as serde_json's own map visitor does.
            match out.entry(key) {
                Entry::Vacant(e) => {
                    e.insert(value);
                }
                Entry::Occupied(e) => {
                    let Some(report) = self.report.as_deref_mut() else {
                        return Err(de::Error::custom("duplicate key"));
                    };
                    let key = e.key();
                    let shown = shorten(&Value::String(key.clone()));
                    report.duplicates.push(ValidationError::new(
                        format!("/{}", escape_pointer(key)),
                        ErrorCode::DuplicateKey,
                        "each key at most once",
                        format!("{shown} twice"),
                        format!(
                            "the key {shown} appears more than once (first {}, then {}); send it once",
                            shorten(e.get()),
                            shorten(&value)
                        ),
                    ));
                }
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The place of serde_json's error, counted in characters of its line.
    fn place(text: &str) -> (usize, usize) {
        let e = serde_json::from_str::<Value>(text).expect_err("invalid JSON");
        let at = Place::new(text, None).position(&e);
        (at.line, at.column)
    }

    #[test]
    fn serde_json_errors_are_placed_in_characters() {
        // `?` is the 8th character of line 2, its 9th byte.
        assert_eq!(place("{\n  \"é\": ?}"), (2, 8));
        assert_eq!(place("{\"日本\": ?}"), (1, 8));
        // At the end of the text, on a line of its own, and after a line break.
        assert_eq!(place("{"), (1, 1));
        assert_eq!(place("{\"a\": 1,\n"), (2, 1));
        assert_eq!(place("[1,\n\n]"), (3, 1));
    }
}
