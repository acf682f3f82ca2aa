//! The printer: syntax trees in canonical layout, with the source's comments put back.

use super::comments::Comment;
use crate::ast::{self, *};
use crate::diagnostic::Span;
use crate::syntax::{is_identifier, quote};

const INDENT: &str = "  ";

/// The longest inline object written on one line.
const ONE_LINE: usize = 60;

pub(super) struct Printer<'s> {
    source: &'s str,
    comments: std::collections::VecDeque<Comment>,
    out: String,
    indent: usize,
    /// The source offset of the end of the last token printed from the source.
    last_src: usize,
    /// The end of the source line that holds `last_src`, for the offset it was found from
    /// (`last_src` only grows, so each search starts where the last one ended).
    eol: (usize, usize),
    /// In a trial of one line ([`Printer::one_line_object`]): the most bytes worth printing.
    trial: Option<usize>,
    /// Whether the trial failed (too long, or a line break): printing stops at once.
    failed: bool,
}

impl<'s> Printer<'s> {
    pub(super) fn new(source: &'s str, comments: Vec<Comment>) -> Self {
        Printer {
            source,
            comments: comments.into(),
            out: String::new(),
            indent: 0,
            last_src: 0,
            eol: (0, 0),
            trial: None,
            failed: false,
        }
    }

    /// A printer for a trial of one line of at most `max` bytes: it stops as soon as the line
    /// is longer or needs a break, so a trial costs at most `max` bytes of printing however
    /// large the object it tries.
    fn trial(max: usize) -> Self {
        Printer {
            trial: Some(max),
            ..Printer::new("", Vec::new())
        }
    }

    pub(super) fn finish(mut self) -> String {
        self.newline();
        self.own_line_comments(usize::MAX);
        while self.out.ends_with("\n\n") {
            self.out.pop();
        }
        if self.out.trim().is_empty() {
            return String::new();
        }
        self.out
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    fn write(&mut self, s: &str) {
        if self.failed {
            return;
        }
        if self.at_line_start() && !s.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str(INDENT);
            }
        }
        self.out.push_str(s);
        if self.trial.is_some_and(|max| self.out.len() > max) {
            self.failed = true;
        }
    }

    /// Marks the end of a token printed from the source.
    fn seen(&mut self, span: Span) {
        if span.end > 0 {
            self.last_src = self.last_src.max(span.end);
        }
    }

    /// Ends the current line, first appending the comments that sat on the source line of the
    /// last printed token.
    fn newline(&mut self) {
        if self.trial.is_some() {
            self.failed = true;
            return;
        }
        if self.at_line_start() {
            return;
        }
        let eol = self.end_of_line();
        let mut here = Vec::new();
        // A comment belongs here only when no code still to be printed sits before it.
        let source = self.source;
        let from = self.last_src;
        let nothing_before = |c: &Comment| {
            source.get(from.min(c.offset)..c.offset).is_some_and(|gap| {
                gap.chars()
                    .all(|ch| ch.is_whitespace() || matches!(ch, ',' | '{' | '}' | ']' | ')' | '>'))
            })
        };
        while self
            .comments
            .front()
            .is_some_and(|c| c.offset < eol && (!c.trailing || nothing_before(c)))
        {
            if let Some(c) = self.comments.pop_front() {
                here.push(c);
            }
        }
        // The first stays at the end of the line. The others sat between tokens now joined on
        // this line: they go back to the queue, in source order, and are printed on lines of
        // their own before what comes next, where a second run finds them.
        let mut here = here.into_iter();
        if let Some(c) = here.next() {
            self.out.push(' ');
            self.out.push_str(&c.text);
        }
        self.out.push('\n');
        for c in here.rev() {
            self.comments.push_front(c);
        }
    }

    /// The offset of the first character of code at or after `offset`: blanks and `//` comments
    /// skipped.
    fn next_code(&self, offset: usize) -> usize {
        let bytes = self.source.as_bytes();
        let mut i = offset.min(bytes.len());
        while i < bytes.len() {
            match bytes[i] {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    i = self.source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                }
                _ => break,
            }
        }
        i
    }

    /// The offset of the end of the source line that holds `last_src` (the source's length on
    /// its last line). Searches only past the end found last time, so a whole file costs one
    /// pass, however long its lines.
    fn end_of_line(&mut self) -> usize {
        if self.source.is_empty() {
            return 0;
        }
        let from = self.last_src.min(self.source.len());
        let (searched_from, eol) = self.eol;
        if searched_from <= from && from <= eol && (eol > from || eol == self.source.len()) {
            return eol;
        }
        let eol = self.source[from..]
            .find('\n')
            .map_or(self.source.len(), |n| from + n);
        self.eol = (from, eol);
        eol
    }

    /// Prints, each on its own line, the comments before `offset`.
    fn own_line_comments(&mut self, offset: usize) {
        if self.comments.front().is_none_or(|c| c.offset >= offset) {
            return;
        }
        if !self.at_line_start() {
            self.out.push('\n');
        }
        while self.comments.front().is_some_and(|c| c.offset < offset) {
            if let Some(c) = self.comments.pop_front() {
                self.write(&c.text);
                self.out.push('\n');
                let next = self
                    .comments
                    .front()
                    .map_or(offset, |n| n.offset.min(offset));
                let end = c.offset + c.text.len();
                if next != usize::MAX && self.blank_between(end, next) {
                    self.out.push('\n');
                }
            }
        }
    }

    /// The literal for a string written at `span`: raw (`r"…"`) when the source wrote it raw, or
    /// when `prefer_raw` and it holds a backslash; in double quotes with escapes otherwise, or
    /// when no raw string can hold it.
    fn string_literal(&self, s: &str, span: Span, prefer_raw: bool) -> String {
        let written_raw = self
            .source
            .get(span.start..span.end)
            .is_some_and(|t| t.starts_with('r'));
        if written_raw || (prefer_raw && s.contains('\\')) {
            if let Some(raw) = raw_string(s) {
                return raw;
            }
        }
        quote(s)
    }

    /// Whether a blank line separates the member or field at `start` from the one that ended at
    /// `prev_end`: a blank before the comments that lead it. Blanks after those comments are
    /// their own (`own_line_comments` keeps them), so counting them here would print them twice.
    fn blank_before(&self, prev_end: usize, start: usize) -> bool {
        let first = self
            .comments
            .front()
            .map(|c| c.offset)
            .filter(|&o| prev_end <= o && o < start);
        self.blank_between(prev_end, first.unwrap_or(start))
    }

    /// Whether the source has a blank line between `from` and `to` (outside comments).
    fn blank_between(&self, from: usize, to: usize) -> bool {
        if self.source.is_empty() || from >= to || to > self.source.len() {
            return false;
        }
        let gap = self.source.get(from..to).unwrap_or("");
        let mut lines = gap.split('\n');
        lines.next();
        let mut inner: Vec<&str> = lines.collect();
        inner.pop();
        inner.iter().any(|l| l.trim().is_empty())
    }

    pub(super) fn file(&mut self, f: &File) {
        let mut previous: Option<&Item> = None;
        for item in &f.items {
            let (start, doc) = match item {
                Item::Tool(t) => (t.span.start, &t.doc),
                Item::Type(t) => (t.span.start, &t.doc),
                Item::Enum(e) => (e.span.start, &e.doc),
                Item::Import(i) => (i.span.start, &None),
            };
            self.newline();
            // Items are a blank line apart, but imports in a row stay together.
            let imports = matches!((previous, item), (Some(Item::Import(_)), Item::Import(_)));
            if previous.is_some() && (!imports || self.blank_before(previous_end(previous), start))
            {
                self.out.push('\n');
            }
            self.own_line_comments(start);
            self.doc(doc);
            match item {
                Item::Tool(t) => self.tool(t),
                Item::Type(t) => self.type_def(t),
                Item::Enum(e) => self.enum_def(e),
                Item::Import(i) => self.import(i),
            }
            previous = Some(item);
        }
    }

    fn import(&mut self, i: &ImportDef) {
        self.write("import {");
        for (k, n) in i.names.iter().enumerate() {
            self.write(if k > 0 { ", " } else { " " });
            self.name(n);
        }
        self.write(if i.names.is_empty() {
            "} from "
        } else {
            " } from "
        });
        let path = self.string_literal(&i.path, i.path_span, false);
        self.write(&path);
        self.seen(i.span);
    }

    fn doc(&mut self, doc: &Option<Doc>) {
        let Some(d) = doc else { return };
        self.own_line_comments(d.span.start);
        for line in d.text.split('\n') {
            if line.is_empty() {
                self.write("///");
            } else {
                self.write("/// ");
                self.write(line);
            }
            self.seen(d.span);
            self.out.push('\n');
        }
    }

    fn attrs_line(&mut self, attrs: &[Attribute]) {
        if attrs.is_empty() {
            return;
        }
        for (i, a) in attrs.iter().enumerate() {
            self.own_line_comments(a.span.start);
            if i > 0 && !self.at_line_start() {
                self.write(" ");
            }
            self.attribute(a);
        }
        self.newline();
    }

    fn attribute(&mut self, a: &Attribute) {
        self.write("@");
        self.write(&a.name.text);
        if let Some(args) = &a.args {
            self.write("(");
            for (i, x) in args.iter().enumerate() {
                if i > 0 {
                    self.write(", ");
                }
                if let Some(n) = &x.name {
                    self.name(n);
                    self.write(": ");
                }
                self.attr_value(&x.value, a.name.text == "pattern");
            }
            self.write(")");
        }
        self.seen(a.span);
    }

    /// An attribute's argument; `pattern` when it is the regex of `@pattern`.
    fn attr_value(&mut self, value: &AttrValue, pattern: bool) {
        match value {
            AttrValue::Value(ast::Value {
                kind: ValueKind::String(s),
                span,
            }) if pattern => {
                // Patterns are where backslashes live: a raw string shows them as the regex
                // engine reads them.
                let text = self.string_literal(s, *span, true);
                self.write(&text);
                self.seen(*span);
            }
            AttrValue::Value(v) => self.value(v),
            AttrValue::Word(w) => self.write(&w.text),
            AttrValue::List { items, span } => {
                self.write("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.write(", ");
                    }
                    self.attr_value(item, false);
                }
                self.write("]");
                self.seen(*span);
            }
        }
    }

    fn name(&mut self, n: &Name) {
        if n.quoted || !is_identifier(&n.text) {
            let text = self.string_literal(&n.text, n.span, false);
            self.write(&text);
        } else {
            self.write(&n.text);
        }
        self.seen(n.span);
    }

    fn tool(&mut self, t: &ToolDef) {
        self.attrs_line(&t.attrs);
        self.own_line_comments(t.name.span.start);
        self.write("tool ");
        self.name(&t.name);
        if let Some(o) = &t.output {
            self.write(" -> ");
            self.ty(o, false);
        }
        self.write(" ");
        self.body(&t.params);
        self.newline();
    }

    fn type_def(&mut self, t: &TypeDef) {
        self.attrs_line(&t.attrs);
        self.own_line_comments(t.name.span.start);
        self.write("type ");
        self.name(&t.name);
        match &t.body.kind {
            TypeKind::Object(body) => {
                self.write(" ");
                self.body(body);
            }
            _ => {
                self.write(" = ");
                self.ty(&t.body, false);
            }
        }
        self.newline();
    }

    fn enum_def(&mut self, e: &EnumDef) {
        self.attrs_line(&e.attrs);
        self.own_line_comments(e.name.span.start);
        self.write("enum ");
        self.name(&e.name);
        self.write(" {");
        self.seen(Span::new(e.name.span.end, e.name.span.end));
        self.indent += 1;
        let mut prev_end = e.name.span.end;
        for (i, m) in e.members.iter().enumerate() {
            self.newline();
            if i > 0 && self.blank_before(prev_end, m.span.start) {
                self.out.push('\n');
            }
            self.own_line_comments(m.span.start);
            self.doc(&m.doc);
            if let Some(d) = &m.doc {
                // Comments between the doc comment and the value stay between them.
                let value = self.next_code(d.span.end);
                self.own_line_comments(value);
            }
            match &m.value {
                EnumValue::Ident(s) => self.write(s),
                EnumValue::String(s) => {
                    let start = m
                        .doc
                        .as_ref()
                        .map_or(m.span.start, |d| self.next_code(d.span.end));
                    let text = self.string_literal(s, Span::new(start, m.span.end), false);
                    self.write(&text);
                }
                EnumValue::Integer(s) => self.write(s),
            }
            self.seen(m.span);
            prev_end = m.span.end;
        }
        self.newline();
        self.own_line_comments(e.span.end.saturating_sub(1));
        self.indent -= 1;
        self.write("}");
        self.seen(e.span);
    }

    fn body(&mut self, b: &ObjectBody) {
        if b.fields.is_empty() && b.open.is_none() && !self.has_comments_in(b.span) {
            self.write("{}");
            self.seen(b.span);
            return;
        }
        if b.fields.is_empty() && !self.has_comments_in(b.span) {
            self.write("{ ...");
            if let Some(rest) = &b.rest {
                self.write(": ");
                self.ty(rest, false);
            }
            self.write(" }");
            self.seen(b.span);
            return;
        }
        self.write("{");
        self.seen(Span::new(b.span.start, b.span.start + 1));
        self.indent += 1;
        let mut prev_end = b.span.start + 1;
        for (i, f) in b.fields.iter().enumerate() {
            self.newline();
            if i > 0 && self.blank_before(prev_end, f.span.start) {
                self.out.push('\n');
            }
            self.own_line_comments(f.span.start);
            self.field(f);
            prev_end = field_end(f);
        }
        if let Some(open) = b.open {
            self.newline();
            self.own_line_comments(open.start);
            self.write("...");
            self.seen(Span::new(open.start, open.start + 3));
            if let Some(rest) = &b.rest {
                self.write(": ");
                self.ty(rest, false);
            }
        }
        self.newline();
        self.own_line_comments(b.span.end.saturating_sub(1));
        self.indent -= 1;
        self.write("}");
        self.seen(b.span);
    }

    /// Writes a tuple with comments inside one item a line, so that each comment stays beside
    /// the item it was written after.
    fn tuple_lines(&mut self, t: &ast::TupleExpr) {
        self.write("[");
        self.seen(Span::new(t.span.start, t.span.start + 1));
        self.indent += 1;
        for item in &t.items {
            self.newline();
            self.own_line_comments(item.span.start);
            self.ty(&item.ty, false);
            if item.optional {
                self.write("?");
            }
            self.write(",");
            self.seen(item.span);
        }
        if let Some(open) = t.open {
            self.newline();
            self.own_line_comments(open.start);
            self.write("...");
            self.seen(Span::new(open.start, open.start + 3));
            if let Some(rest) = &t.rest {
                self.write(": ");
                self.ty(rest, false);
            }
        }
        self.newline();
        self.own_line_comments(t.span.end.saturating_sub(1));
        self.indent -= 1;
        self.write("]");
    }

    /// Writes a short inline object on one line (`{ id: string, n?: integer }`) when no field
    /// has a doc comment, no comment sits inside, and it fits in [`ONE_LINE`] characters.
    /// Returns whether it did.
    fn one_line_object(&mut self, b: &ObjectBody) -> bool {
        if b.fields.is_empty()
            || b.fields.iter().any(|f| f.doc.is_some())
            || self.has_comments_in(b.span)
        {
            return false;
        }
        // A trial of twice the width in bytes (a character has at most four, but a line worth
        // trying has few wide ones); the count of characters below decides.
        let mut p = Printer::trial(ONE_LINE * 4);
        p.write("{ ");
        for (i, f) in b.fields.iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.field(f);
        }
        if b.open.is_some() {
            p.write(", ...");
            if let Some(rest) = &b.rest {
                p.write(": ");
                p.ty(rest, false);
            }
        }
        p.write(" }");
        if p.failed || p.out.contains('\n') || p.out.chars().count() > ONE_LINE {
            if self.trial.is_some() {
                // Inside a trial, an object that needs lines fails the whole line.
                self.failed = true;
                return true;
            }
            return false;
        }
        self.write(&p.out);
        self.seen(b.span);
        true
    }

    fn has_comments_in(&self, span: Span) -> bool {
        // The comments are in source order.
        let first = self.comments.partition_point(|c| c.offset < span.start);
        self.comments
            .get(first)
            .is_some_and(|c| c.offset < span.end)
    }

    fn field(&mut self, f: &ast::Field) {
        if self.failed {
            return;
        }
        self.doc(&f.doc);
        self.own_line_comments(f.name.span.start);
        self.name(&f.name);
        if f.optional {
            self.write("?");
        }
        self.write(": ");
        self.ty(&f.ty, false);
        for a in &f.annotations {
            self.write(" ");
            self.attribute(a);
        }
        if let Some(d) = &f.default {
            self.write(" = ");
            self.value(d);
        }
    }

    /// Prints a type; `tight` when it sits where a union needs parentheses (an array's
    /// elements, a constrained type, a union member).
    pub(super) fn ty(&mut self, t: &TypeExpr, tight: bool) {
        if self.failed {
            return;
        }
        match &t.kind {
            TypeKind::Named(n) => self.name(n),
            TypeKind::Literal(v) => self.value(v),
            TypeKind::Array(items) => {
                // `(string @min_length(1))[]`: the parentheses say what `[]` applies to.
                if matches!(items.kind, TypeKind::Constrained(..)) {
                    self.write("(");
                    self.ty(items, false);
                    self.write(")");
                } else {
                    self.ty(items, true);
                }
                self.write("[]");
            }
            TypeKind::Map(values) => {
                self.write("map<");
                self.ty(values, false);
                self.write(">");
            }
            TypeKind::Object(body) => {
                if !self.one_line_object(body) {
                    self.body(body);
                }
            }
            TypeKind::Tuple(t) if self.has_comments_in(t.span) => self.tuple_lines(t),
            TypeKind::Tuple(t) => {
                self.write("[");
                for (i, item) in t.items.iter().enumerate() {
                    if i > 0 {
                        self.write(", ");
                    }
                    self.ty(&item.ty, false);
                    if item.optional {
                        self.write("?");
                    }
                    self.seen(item.span);
                }
                if t.open.is_some() {
                    if !t.items.is_empty() {
                        self.write(", ");
                    }
                    self.write("...");
                    if let Some(r) = &t.rest {
                        self.write(": ");
                        self.ty(r, false);
                    }
                }
                self.write("]");
            }
            TypeKind::Union(members) => {
                if tight {
                    self.write("(");
                }
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        self.write(" | ");
                    }
                    self.ty(m, true);
                }
                if tight {
                    self.write(")");
                }
            }
            TypeKind::Constrained(inner, attrs) => {
                self.ty(inner, true);
                for a in attrs {
                    self.write(" ");
                    self.attribute(a);
                }
            }
        }
        self.seen(t.span);
    }

    fn value(&mut self, v: &ast::Value) {
        if self.failed {
            return;
        }
        match &v.kind {
            ValueKind::Null => self.write("null"),
            ValueKind::Bool(b) => self.write(if *b { "true" } else { "false" }),
            ValueKind::Number(n) => self.write(n),
            ValueKind::String(s) => {
                let text = self.string_literal(s, v.span, false);
                self.write(&text);
            }
            ValueKind::Array(items) => {
                self.write("[");
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.write(", ");
                    }
                    self.value(x);
                }
                self.write("]");
            }
            ValueKind::Object(entries) => {
                if entries.is_empty() {
                    self.write("{}");
                } else {
                    self.write("{ ");
                    for (i, (k, x)) in entries.iter().enumerate() {
                        if i > 0 {
                            self.write(", ");
                        }
                        self.name(k);
                        self.write(": ");
                        self.value(x);
                    }
                    self.write(" }");
                }
            }
        }
        self.seen(v.span);
    }
}

/// Where the item before ends (0 before the first).
fn previous_end(previous: Option<&Item>) -> usize {
    previous.map_or(0, |p| p.span().end)
}

/// Where the last token of a field ends (a field's own span runs on over the blanks after it).
fn field_end(f: &ast::Field) -> usize {
    let mut end = f.name.span.end.max(f.ty.span.end);
    for a in &f.annotations {
        end = end.max(a.span.end);
    }
    if let Some(d) = &f.default {
        end = end.max(d.span.end);
    }
    end
}

/// `s` as a raw string, with the fewest `#` that let it end where it should; `None` when a raw
/// string cannot hold it (a line break or another control character but tab).
fn raw_string(s: &str) -> Option<String> {
    if s.chars().any(|c| c.is_control() && c != '\t') {
        return None;
    }
    // One more `#` than the longest run after a `"` inside (none when no `"` is inside).
    let hashes = s
        .split('"')
        .skip(1)
        .map(|after| after.len() - after.trim_start_matches('#').len() + 1)
        .max()
        .unwrap_or(0);
    let fence = "#".repeat(hashes);
    Some(format!("r{fence}\"{s}\"{fence}"))
}
