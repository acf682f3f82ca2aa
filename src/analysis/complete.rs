//! Completion, read from tokens rather than the syntax tree: completion is asked about a source
//! that is being typed, which rarely parses.
//!
//! The tokens before the cursor say where it stands: the brackets still open (an object body,
//! an enum body, a tuple, a group, `map<`, attribute arguments, a value) and the token just
//! before it (`:`, `->`, `|`, `=`, `@`, ...). The type and enum names offered come from the
//! `type` and `enum` items of the whole text.

use std::collections::HashSet;

use indexmap::{IndexMap, IndexSet};

use crate::check::{
    ARRAY_CONSTRAINTS, BUILTIN_TYPES, FIELD_ANNOTATIONS, NUMBER_CONSTRAINTS, OBJECT_CONSTRAINTS,
    STRING_CONSTRAINTS, TOOL_ATTRIBUTES, TYPE_ATTRIBUTES,
};
use crate::diagnostic::Span;

/// The completions at an offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completions {
    /// The text a chosen completion replaces: the name (or string) being typed, or an empty span
    /// at the cursor.
    pub span: Span,
    /// What may go there.
    pub items: Vec<Completion>,
}

/// One completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// What the list shows (and what is inserted, unless `insert` says otherwise).
    pub label: String,
    /// What it is.
    pub kind: CompletionKind,
    /// A short explanation: what a built-in type means, an attribute's arguments, the enum a
    /// value belongs to.
    pub detail: Option<String>,
    /// The text inserted.
    pub insert: String,
    /// The text inserted by an editor that takes snippets (`$1` where the cursor goes next), when
    /// it differs from `insert`: the parentheses of an attribute that takes arguments.
    pub snippet: Option<String>,
}

/// What a [`Completion`] inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompletionKind {
    /// A built-in type (`string`, `map`, ...).
    BuiltinType,
    /// A type defined with `type`.
    Type,
    /// An enum.
    Enum,
    /// An attribute or constraint name, after `@`.
    Attribute,
    /// A value of an enum or literal union, where a default or an example goes.
    Value,
    /// `tool`, `type` or `enum`, where an item starts.
    Keyword,
}

pub(super) fn completions(text: &str, offset: usize) -> Option<Completions> {
    let offset = super::char_offset(text, offset)?;
    let all = tokens(text);
    // The token the cursor is in: a comment (nothing to complete), a string (a value being
    // typed) or a name (the prefix a completion replaces).
    let here = all
        .iter()
        .find(|t| t.span.start < offset && offset <= t.span.end);
    let (span, in_string) = match here.map(|t| (t.kind, t.span)) {
        Some((Kind::Comment, _)) => return None,
        // A closed string is replaced whole; one still open, up to the cursor (it runs on to
        // the end of the line).
        Some((Kind::Str { closed: true }, span)) if offset < span.end => (span, true),
        Some((Kind::Str { closed: false }, span)) => (Span::new(span.start, offset), true),
        Some((Kind::Ident, span)) => (span, false),
        _ => (Span::new(offset, offset), false),
    };
    let before: Vec<Token> = all
        .iter()
        .copied()
        .filter(|t| t.kind != Kind::Comment && t.span.end <= span.start)
        .collect();
    let context = Context::of(text, &before);
    let definitions = Definitions::of(text, &all);
    let items = if let Some(values) = context.values(text, &definitions) {
        values
    } else if in_string {
        Vec::new()
    } else if context.after_at(span) {
        let after: Vec<Token> = all
            .iter()
            .copied()
            .filter(|t| t.kind != Kind::Comment && t.span.start >= span.end)
            .collect();
        context.attributes(text, &after)
    } else if context.type_position(text) {
        type_items(&definitions)
    } else if context.item_position(text) {
        keyword_items()
    } else {
        Vec::new()
    };
    Some(Completions { span, items })
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Ident,
    /// A string, raw or not; one that is not closed runs to the end of its line.
    Str {
        closed: bool,
    },
    Number,
    /// `//` to the end of the line (doc comments too).
    Comment,
    /// `...`
    Ellipsis,
    /// `->`
    Arrow,
    /// Any other ASCII character.
    Punct(u8),
    /// A character that is not ASCII, outside strings and comments.
    Other,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Kind,
    span: Span,
}

impl Token {
    fn is(&self, c: u8) -> bool {
        self.kind == Kind::Punct(c)
    }

    fn is_word(&self, text: &str, word: &str) -> bool {
        self.kind == Kind::Ident && slice(text, self.span) == word
    }
}

fn slice(text: &str, span: Span) -> &str {
    text.get(span.start..span.end).unwrap_or("")
}

fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let kind = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = b[i..]
                    .iter()
                    .position(|&x| x == b'\n')
                    .map_or(b.len(), |n| i + n);
                Kind::Comment
            }
            b'"' => {
                let (end, closed) = string_end(b, i + 1, None);
                i = end;
                Kind::Str { closed }
            }
            b'r' if raw_hashes(b, i).is_some() => {
                let hashes = raw_hashes(b, i).unwrap_or(0);
                let (end, closed) = string_end(b, i + 2 + hashes, Some(hashes));
                i = end;
                Kind::Str { closed }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                Kind::Ident
            }
            b'-' if b.get(i + 1) == Some(&b'>') => {
                i += 2;
                Kind::Arrow
            }
            b'.' if b[i..].starts_with(b"...") => {
                i += 3;
                Kind::Ellipsis
            }
            c if c.is_ascii_digit()
                || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                i += 1;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric()
                        || b[i] == b'.'
                        || ((b[i] == b'-' || b[i] == b'+') && matches!(b[i - 1], b'e' | b'E')))
                {
                    i += 1;
                }
                Kind::Number
            }
            c if c.is_ascii() => {
                i += 1;
                Kind::Punct(c)
            }
            _ => {
                i += text
                    .get(i..)
                    .and_then(|rest| rest.chars().next())
                    .map_or(1, char::len_utf8);
                Kind::Other
            }
        };
        out.push(Token {
            kind,
            span: Span::new(start, i),
        });
    }
    out
}

/// The number of `#` of a raw string starting at `i` (`r"`, `r#"`, ...).
fn raw_hashes(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'r') {
        return None;
    }
    let hashes = b[i + 1..].iter().take_while(|&&x| x == b'#').count();
    (b.get(i + 1 + hashes) == Some(&b'"')).then_some(hashes)
}

/// Where a string whose text starts at `i` ends, and whether it is closed: after its closing
/// quote (and the `hashes` `#`s of a raw string), or at the end of the line when it is not.
fn string_end(b: &[u8], mut i: usize, hashes: Option<usize>) -> (usize, bool) {
    while i < b.len() {
        match (b[i], hashes) {
            (b'\n', _) => return (i, false),
            (b'\\', None) if b.get(i + 1).is_some_and(|&x| x != b'\n') => i += 2,
            (b'"', None) => return (i + 1, true),
            (b'"', Some(n)) if b[i + 1..].iter().take(n).all(|&x| x == b'#') && i + n < b.len() => {
                return (i + 1 + n, true)
            }
            _ => i += 1,
        }
    }
    (b.len(), false)
}

// ---------------------------------------------------------------------------------------------
// Where the cursor stands

/// A bracket still open before the cursor.
#[derive(Clone, Copy, Debug)]
enum Frame {
    /// `{` of a tool's parameters, a named or an inline object; `colon` is the index of the
    /// last field's `:` (where its type starts).
    Object { colon: Option<usize> },
    /// `{` of an enum.
    Enum,
    /// `[` of a tuple (or of `[]`).
    Tuple,
    /// `(` around a type.
    Group,
    /// `<` of `map<`.
    Map,
    /// `(` of an attribute's arguments; `at` is the index of its `@`.
    Args { at: usize },
    /// `{` or `[` of a value.
    Value,
}

/// The tokens before the cursor, and the brackets they leave open.
struct Context {
    before: Vec<Token>,
    frames: Vec<Frame>,
}

impl Context {
    fn of(text: &str, before: &[Token]) -> Context {
        let mut frames: Vec<Frame> = Vec::new();
        for (j, t) in before.iter().enumerate() {
            let prev = j.checked_sub(1).map(|p| before[p]);
            let top = frames.last().copied();
            let in_value = matches!(top, Some(Frame::Value | Frame::Args { .. }))
                || (prev.is_some_and(|p| p.is(b'=')) && matches!(top, Some(Frame::Object { .. })));
            match t.kind {
                Kind::Punct(b'{') => frames.push(if in_value {
                    Frame::Value
                } else if top.is_none()
                    && j >= 2
                    && before[j - 1].kind == Kind::Ident
                    && before[j - 2].is_word(text, "enum")
                {
                    Frame::Enum
                } else {
                    Frame::Object { colon: None }
                }),
                Kind::Punct(b'[') => {
                    frames.push(if in_value { Frame::Value } else { Frame::Tuple })
                }
                Kind::Punct(b'(') => {
                    let args = j >= 2
                        && before[j - 1].kind == Kind::Ident
                        && before[j - 1].span.end == t.span.start
                        && before[j - 2].is(b'@')
                        && before[j - 2].span.end == before[j - 1].span.start;
                    frames.push(if args {
                        Frame::Args { at: j - 2 }
                    } else {
                        Frame::Group
                    });
                }
                Kind::Punct(b'<') if prev.is_some_and(|p| p.is_word(text, "map")) => {
                    frames.push(Frame::Map)
                }
                Kind::Punct(b'}') => close(&mut frames, |f| {
                    matches!(f, Frame::Object { .. } | Frame::Enum | Frame::Value)
                }),
                Kind::Punct(b']') => {
                    close(&mut frames, |f| matches!(f, Frame::Tuple | Frame::Value))
                }
                Kind::Punct(b')') => close(&mut frames, |f| {
                    matches!(f, Frame::Group | Frame::Args { .. })
                }),
                Kind::Punct(b'>') => close(&mut frames, |f| matches!(f, Frame::Map)),
                Kind::Punct(b':') => {
                    if let Some(Frame::Object { colon }) = frames.last_mut() {
                        *colon = Some(j);
                    }
                }
                _ => {}
            }
        }
        Context {
            before: before.to_vec(),
            frames,
        }
    }

    fn top(&self) -> Option<Frame> {
        self.frames.last().copied()
    }

    /// The token `n` places before the cursor (0: the last one).
    fn back(&self, n: usize) -> Option<Token> {
        self.before.len().checked_sub(n + 1).map(|i| self.before[i])
    }

    /// Whether the cursor (or the name at `span`) follows `@` right away.
    fn after_at(&self, span: Span) -> bool {
        self.back(0)
            .is_some_and(|t| t.is(b'@') && t.span.end == span.start)
    }

    /// Whether a type goes at the cursor.
    fn type_position(&self, text: &str) -> bool {
        let Some(p) = self.back(0) else {
            return false;
        };
        let top = self.top();
        match p.kind {
            Kind::Arrow => true,
            Kind::Punct(b':') => match top {
                Some(Frame::Object { .. }) => true,
                Some(Frame::Tuple) => self.back(1).is_some_and(|t| t.kind == Kind::Ellipsis),
                _ => false,
            },
            Kind::Punct(b'|') => {
                !matches!(top, Some(Frame::Value | Frame::Args { .. } | Frame::Enum))
            }
            Kind::Punct(b'=') => top.is_none(),
            Kind::Punct(b'<') => matches!(top, Some(Frame::Map)),
            Kind::Punct(b'(') => matches!(top, Some(Frame::Group)),
            Kind::Punct(b',') => matches!(top, Some(Frame::Tuple)),
            // `[` right after a type is `[]`, not a tuple.
            Kind::Punct(b'[') => {
                matches!(top, Some(Frame::Tuple))
                    && !self.back(1).is_some_and(|t| {
                        t.span.end == p.span.start
                            && (t.kind == Kind::Ident
                                || t.is(b']')
                                || t.is(b')')
                                || t.is(b'}')
                                || t.is(b'>'))
                    })
                    && !self.back(1).is_some_and(|t| t.is_word(text, "map"))
            }
            _ => false,
        }
    }

    /// Whether an item may start at the cursor: at the top level, first or after an item or
    /// an item attribute.
    fn item_position(&self, text: &str) -> bool {
        if self.top().is_some() {
            return false;
        }
        match self.back(0) {
            None => true,
            Some(p) if p.is(b'}') => true,
            Some(p) if p.kind == Kind::Ident => {
                self.back(1).is_some_and(|t| t.is(b'@')) && !p.is_word(text, "map")
            }
            Some(p) => p.is(b')'),
        }
    }

    /// The values that fit where a default or an example's value goes (`= |`, `@example(|`), or
    /// `None` when the cursor is not there.
    fn values(&self, text: &str, definitions: &Definitions) -> Option<Vec<Completion>> {
        let p = self.back(0)?;
        let n = self.before.len();
        let types = match self.top()? {
            Frame::Object { colon: Some(c) } if p.is(b'=') => &self.before[c + 1..n - 1],
            Frame::Args { at } if p.is(b'(') => {
                let name = self.before.get(at + 1)?;
                if !name.is_word(text, "example") {
                    return None;
                }
                match self.frames.iter().rev().nth(1)? {
                    Frame::Object { colon: Some(c) } if *c < at => &self.before[c + 1..at],
                    _ => return Some(Vec::new()),
                }
            }
            _ => return None,
        };
        Some(literals(text, types, definitions))
    }

    /// The attributes that may follow `@` at the cursor.
    fn attributes(&self, text: &str, after: &[Token]) -> Vec<Completion> {
        let names: Vec<&str> = match self.top() {
            None => {
                // Before an item: a tool takes the tool attributes, a type or enum only
                // `@deprecated`.
                let keyword = after.iter().enumerate().find(|(i, t)| {
                    ["tool", "type", "enum"].iter().any(|k| t.is_word(text, k))
                        && !(*i > 0 && after[i - 1].is(b'@'))
                });
                // A tool and a type also take the rules across their keys.
                match keyword {
                    Some((_, t)) if t.is_word(text, "enum") => TYPE_ATTRIBUTES.to_vec(),
                    // `type Name {`: an object type.
                    Some((i, t))
                        if t.is_word(text, "type")
                            && after.get(i + 2).is_some_and(|b| b.is(b'{')) =>
                    {
                        [TYPE_ATTRIBUTES, OBJECT_CONSTRAINTS].concat()
                    }
                    Some((_, t)) if t.is_word(text, "type") => TYPE_ATTRIBUTES.to_vec(),
                    _ => [TOOL_ATTRIBUTES, OBJECT_CONSTRAINTS].concat(),
                }
            }
            Some(Frame::Object { .. } | Frame::Tuple | Frame::Group | Frame::Map) => {
                let (base, annotated) = self.constrained(text);
                let mut names = Vec::new();
                if !annotated {
                    match base {
                        Base::String => names.extend(STRING_CONSTRAINTS),
                        Base::Number => names.extend(NUMBER_CONSTRAINTS),
                        Base::Array => names.extend(ARRAY_CONSTRAINTS),
                        Base::Object => names.extend(OBJECT_CONSTRAINTS),
                        Base::Unknown => {
                            names.extend(NUMBER_CONSTRAINTS);
                            names.extend(STRING_CONSTRAINTS);
                            names.extend(ARRAY_CONSTRAINTS);
                            names.extend(OBJECT_CONSTRAINTS);
                        }
                        Base::None => {}
                    }
                }
                if matches!(self.top(), Some(Frame::Object { .. })) {
                    names.extend(FIELD_ANNOTATIONS);
                }
                names
            }
            Some(Frame::Enum | Frame::Args { .. } | Frame::Value) => Vec::new(),
        };
        names
            .into_iter()
            .map(|name| {
                let (detail, snippet) = attribute_help(name);
                Completion {
                    label: name.to_string(),
                    kind: CompletionKind::Attribute,
                    detail: Some(detail.to_string()),
                    insert: name.to_string(),
                    snippet: snippet.map(str::to_string),
                }
            })
            .collect()
    }

    /// What the `@` at the end of the tokens constrains: the type before the attributes that
    /// precede it, and whether one of those is a field annotation (after which no constraint
    /// may come).
    fn constrained(&self, text: &str) -> (Base, bool) {
        let before = &self.before;
        // `j` is the index of the `@` of the attribute before which we look.
        let mut j = before.len().saturating_sub(1);
        let mut annotated = false;
        loop {
            let Some(prev) = j.checked_sub(1).map(|i| before[i]) else {
                return (Base::Unknown, annotated);
            };
            // An attribute with arguments: back to its `(`, its name and its `@`.
            let mut name_at = j - 1;
            if prev.is(b')') {
                let mut depth = 0usize;
                let mut i = j - 1;
                loop {
                    if before[i].is(b')') {
                        depth += 1;
                    } else if before[i].is(b'(') {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    if i == 0 {
                        return (Base::Unknown, annotated);
                    }
                    i -= 1;
                }
                match i.checked_sub(1) {
                    Some(n) if before[n].kind == Kind::Ident => name_at = n,
                    _ => return (Base::Unknown, annotated),
                }
            }
            let name = before[name_at];
            if name.kind == Kind::Ident && name_at >= 1 && before[name_at - 1].is(b'@') {
                annotated |= FIELD_ANNOTATIONS.contains(&slice(text, name.span));
                j = name_at - 1;
                continue;
            }
            let base = match prev.kind {
                Kind::Ident => match slice(text, prev.span) {
                    "string" => Base::String,
                    "integer" | "number" => Base::Number,
                    _ => Base::None,
                },
                Kind::Punct(b']') => Base::Array,
                Kind::Punct(b')') => Base::Unknown,
                Kind::Punct(b'}' | b'>') => Base::Object,
                Kind::Str { .. } | Kind::Number => Base::None,
                _ => Base::Unknown,
            };
            return (base, annotated);
        }
    }
}

/// Which constraints a type takes, as far as the tokens tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    String,
    Number,
    Array,
    /// An object or a map (`}` or `>` before the cursor).
    Object,
    /// A named type, a literal, `boolean`, ...: no constraint applies.
    None,
    /// A group or something unclear: every constraint is offered.
    Unknown,
}

/// Closes the innermost frame `matches` accepts, and every frame inside it; a stray closer
/// closes nothing.
fn close(frames: &mut Vec<Frame>, matches: impl Fn(&Frame) -> bool) {
    if let Some(i) = frames.iter().rposition(matches) {
        frames.truncate(i);
    }
}

// ---------------------------------------------------------------------------------------------
// What is offered

/// The `type` and `enum` names of a text, with the values of each enum as a value is written
/// (`"celsius"` for a member written `celsius`).
struct Definitions {
    types: IndexSet<String>,
    enums: IndexMap<String, Vec<String>>,
}

impl Definitions {
    fn of(text: &str, all: &[Token]) -> Definitions {
        let tokens: Vec<Token> = all
            .iter()
            .copied()
            .filter(|t| t.kind != Kind::Comment)
            .collect();
        // Each name once, where it is first defined (a set, so that a file of many definitions
        // costs one lookup each).
        let mut types = IndexSet::new();
        let mut enums: IndexMap<String, Vec<String>> = IndexMap::new();
        let mut depth = 0usize;
        let mut i = 0;
        while i < tokens.len() {
            let t = tokens[i];
            match t.kind {
                Kind::Punct(b'{' | b'[' | b'(') => depth += 1,
                Kind::Punct(b'}' | b']' | b')') => depth = depth.saturating_sub(1),
                // `import { A, B } from "…"`: the imported names are types here too.
                Kind::Ident
                    if depth == 0
                        && t.is_word(text, "import")
                        && tokens.get(i + 1).is_some_and(|b| b.is(b'{')) =>
                {
                    let mut j = i + 2;
                    while j < tokens.len() && !tokens[j].is(b'}') {
                        let name = slice(text, tokens[j].span).to_string();
                        if tokens[j].kind == Kind::Ident {
                            types.insert(name);
                        }
                        j += 1;
                    }
                    // Past the braces: they leave the depth as it was.
                    i = j;
                }
                Kind::Ident if depth == 0 => {
                    let after_tool = i > 0 && tokens[i - 1].is_word(text, "tool");
                    let name = tokens.get(i + 1).filter(|n| n.kind == Kind::Ident);
                    if let (false, Some(name)) = (after_tool, name) {
                        let name = slice(text, name.span).to_string();
                        if t.is_word(text, "type") {
                            types.insert(name);
                        } else if t.is_word(text, "enum") {
                            let mut members = Vec::new();
                            if tokens.get(i + 2).is_some_and(|b| b.is(b'{')) {
                                let mut j = i + 3;
                                while j < tokens.len() && !tokens[j].is(b'}') {
                                    let m = tokens[j];
                                    let written = slice(text, m.span);
                                    match m.kind {
                                        // A member written as a name is the string of that name.
                                        Kind::Ident => members.push(format!("\"{written}\"")),
                                        Kind::Str { .. } | Kind::Number => {
                                            members.push(written.to_string())
                                        }
                                        _ => {}
                                    }
                                    j += 1;
                                }
                                // Past the enum's body: its braces leave the depth as it was.
                                i = j;
                            }
                            enums.entry(name).or_insert(members);
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Definitions { types, enums }
    }

    fn members(&self, name: &str) -> Option<&[String]> {
        self.enums.get(name).map(Vec::as_slice)
    }
}

/// The values of the literal and enum members of a type as written (`"a" | "b"`, `Unit | null`).
fn literals(text: &str, types: &[Token], definitions: &Definitions) -> Vec<Completion> {
    let mut out: Vec<Completion> = Vec::new();
    // The values offered so far: an enum of many members offers each once, in one lookup.
    let mut offered: HashSet<String> = HashSet::new();
    let mut push = |value: String, detail: &str| {
        if offered.insert(value.clone()) {
            out.push(Completion {
                label: value.clone(),
                kind: CompletionKind::Value,
                detail: Some(detail.to_string()),
                insert: value,
                snippet: None,
            });
        }
    };
    let mut depth = 0usize;
    let mut members: Vec<Vec<Token>> = vec![Vec::new()];
    for t in types {
        match t.kind {
            Kind::Punct(b'{' | b'[' | b'(' | b'<') => depth += 1,
            Kind::Punct(b'}' | b']' | b')' | b'>') => depth = depth.saturating_sub(1),
            Kind::Punct(b'|') if depth == 0 => {
                members.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = members.last_mut() {
            last.push(*t);
        }
    }
    for member in &members {
        let Some(first) = member.first() else {
            continue;
        };
        // One token, or one token and its constraints.
        if member.get(1).is_some_and(|t| !t.is(b'@')) {
            continue;
        }
        let written = slice(text, first.span);
        match first.kind {
            Kind::Ident if matches!(written, "true" | "false" | "null") => {
                push(written.to_string(), "literal")
            }
            Kind::Ident => {
                for value in definitions.members(written).unwrap_or_default() {
                    push(value.clone(), written);
                }
            }
            Kind::Str { .. } | Kind::Number => push(written.to_string(), "literal"),
            _ => {}
        }
    }
    out
}

fn type_items(definitions: &Definitions) -> Vec<Completion> {
    let builtins = BUILTIN_TYPES.iter().chain(&["map"]).map(|name| Completion {
        label: name.to_string(),
        kind: CompletionKind::BuiltinType,
        detail: super::hover::builtin_meaning(name).map(str::to_string),
        insert: name.to_string(),
        snippet: (*name == "map").then(|| "map<$1>".to_string()),
    });
    let types = definitions.types.iter().map(|name| Completion {
        label: name.clone(),
        kind: CompletionKind::Type,
        detail: Some("type".to_string()),
        insert: name.clone(),
        snippet: None,
    });
    let enums = definitions.enums.iter().map(|(name, _)| Completion {
        label: name.clone(),
        kind: CompletionKind::Enum,
        detail: Some("enum".to_string()),
        insert: name.clone(),
        snippet: None,
    });
    builtins.chain(types).chain(enums).collect()
}

fn keyword_items() -> Vec<Completion> {
    [
        ("tool", "a tool: `tool name { fields }`"),
        (
            "type",
            "a named type: `type Name { fields }` or `type Name = T`",
        ),
        ("enum", "an enum: `enum Name { a, b }`"),
    ]
    .into_iter()
    .map(|(word, detail)| Completion {
        label: word.to_string(),
        kind: CompletionKind::Keyword,
        detail: Some(detail.to_string()),
        insert: word.to_string(),
        snippet: None,
    })
    .collect()
}

/// What an attribute takes and means, and the snippet that writes its parentheses (for those
/// that need arguments). Every name the checker accepts has an entry (a test holds it).
fn attribute_help(name: &str) -> (&'static str, Option<&'static str>) {
    match name {
        "min" => ("@min(n): the least value (minimum)", Some("min($1)")),
        "max" => ("@max(n): the greatest value (maximum)", Some("max($1)")),
        "exclusive_min" => (
            "@exclusive_min(n): values above n (exclusiveMinimum)",
            Some("exclusive_min($1)"),
        ),
        "exclusive_max" => (
            "@exclusive_max(n): values below n (exclusiveMaximum)",
            Some("exclusive_max($1)"),
        ),
        "multiple_of" => (
            "@multiple_of(n): a multiple of n > 0 (multipleOf)",
            Some("multiple_of($1)"),
        ),
        "min_length" => (
            "@min_length(n): at least n characters (minLength)",
            Some("min_length($1)"),
        ),
        "max_length" => (
            "@max_length(n): at most n characters (maxLength)",
            Some("max_length($1)"),
        ),
        "pattern" => (
            "@pattern(\"re\"): a regular expression the string matches (pattern)",
            Some("pattern(\"$1\")"),
        ),
        "format" => (
            "@format(f): date, date-time, time, duration, email, hostname, ipv4, ipv6, uri or uuid",
            Some("format(${1|date,date-time,time,duration,email,hostname,ipv4,ipv6,uri,uuid|})"),
        ),
        "min_items" => (
            "@min_items(n): at least n items (minItems)",
            Some("min_items($1)"),
        ),
        "max_items" => (
            "@max_items(n): at most n items (maxItems)",
            Some("max_items($1)"),
        ),
        "unique" => ("@unique: no two items equal (uniqueItems)", None),
        "min_properties" => (
            "@min_properties(n): at least n keys (minProperties)",
            Some("min_properties($1)"),
        ),
        "max_properties" => (
            "@max_properties(n): at most n keys (maxProperties)",
            Some("max_properties($1)"),
        ),
        "exactly_one_of" => (
            "@exactly_one_of(a, b): one of the fields is given, and only one (oneOf)",
            Some("exactly_one_of($1)"),
        ),
        "at_most_one_of" => (
            "@at_most_one_of(a, b): no two of the fields given together",
            Some("at_most_one_of($1)"),
        ),
        "requires" => (
            "@requires(a: [b, c]): when a is given, so are b and c (dependentRequired)",
            Some("requires($1: [$2])"),
        ),
        "deprecated" => ("@deprecated: emits \"deprecated\": true", None),
        "example" => (
            "@example(value): adds a value to the schema's examples",
            Some("example($1)"),
        ),
        "allow" => (
            "@allow(undescribed-field): turns the named lints off for this tool",
            Some("allow(${1|undescribed-field|})"),
        ),
        "title" => (
            "@title(\"…\"): a human-readable name (MCP title)",
            Some("title(\"$1\")"),
        ),
        "read_only" => (
            "@read_only: MCP readOnlyHint, the tool changes nothing",
            None,
        ),
        "destructive" => (
            "@destructive: MCP destructiveHint, the tool may destroy data",
            None,
        ),
        "idempotent" => (
            "@idempotent: MCP idempotentHint, repeating a call changes nothing more",
            None,
        ),
        "open_world" => (
            "@open_world: MCP openWorldHint, the tool talks to the outside world",
            None,
        ),
        "requires_approval" => ("@requires_approval: a person approves each call", None),
        "strict" => (
            "@strict: validate arguments exactly against the schema",
            None,
        ),
        "lax" => (
            "@lax: validate with the documented coercions (\"42\" → 42)",
            None,
        ),
        "on_error" => (
            "@on_error(raise | suppress): what a failure of the tool does",
            Some("on_error(${1|raise,suppress|})"),
        ),
        "retry" => (
            "@retry(times: N, wait: linear | exponential | seconds, base: S, on: [kind, …]): \
             retries failures of the kinds named (every kind without `on`); several are tried \
             in order",
            Some("retry(times: ${1:3})"),
        ),
        "on_invalid" => (
            "@on_invalid(reply | raise): what invalid arguments do, unless the call says",
            Some("on_invalid(${1|reply,raise|})"),
        ),
        "cache" => (
            "@cache(ttl: \"5m\"): serve the same arguments' result again within the TTL \
             (`@read_only` tools only)",
            Some("cache(ttl: \"${1:5m}\")"),
        ),
        "meta" => ("@meta(key: value, …): free metadata", Some("meta($1)")),
        "provider" => (
            "@provider(target: {…}): fields added to that target's tool object",
            Some("provider($1: {$2})"),
        ),
        "scope" => (
            "@scope(name): free access-scope metadata",
            Some("scope($1)"),
        ),
        "formats" => (
            "@formats(assert | annotate): whether the validator checks @format",
            Some("formats(${1|assert,annotate|})"),
        ),
        _ => ("", None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_attribute_the_checker_accepts_is_explained() {
        for list in [
            TOOL_ATTRIBUTES,
            TYPE_ATTRIBUTES,
            NUMBER_CONSTRAINTS,
            STRING_CONSTRAINTS,
            ARRAY_CONSTRAINTS,
            OBJECT_CONSTRAINTS,
            FIELD_ANNOTATIONS,
        ] {
            for name in list {
                let (detail, _) = attribute_help(name);
                assert!(detail.starts_with(&format!("@{name}")), "{name}: {detail}");
            }
        }
    }

    #[test]
    fn strings_end_where_the_grammar_ends_them() {
        fn kinds(text: &str) -> Vec<(Kind, &str)> {
            tokens(text)
                .into_iter()
                .map(|t| (t.kind, &text[t.span.start..t.span.end]))
                .collect()
        }
        assert_eq!(
            kinds(r##""a\"b" r#"x"y"# r"z" "open"##),
            [
                (Kind::Str { closed: true }, r#""a\"b""#),
                (Kind::Str { closed: true }, r##"r#"x"y"#"##),
                (Kind::Str { closed: true }, r#"r"z""#),
                (Kind::Str { closed: false }, r#""open"#),
            ]
        );
        assert_eq!(
            kinds("a->-1 ... // c\né"),
            [
                (Kind::Ident, "a"),
                (Kind::Arrow, "->"),
                (Kind::Number, "-1"),
                (Kind::Ellipsis, "..."),
                (Kind::Comment, "// c"),
                (Kind::Other, "é"),
            ]
        );
    }
}
