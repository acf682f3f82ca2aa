//! Printing: syntax trees and models → canonical `.tool` source.
//!
//! One printer lays out syntax trees ([`file()`]); the formatter ([`format()`]) runs it over a
//! parsed source with the source's `//` comments put back by byte offset; the model printer
//! ([`module`]) first turns a [`Module`] into a syntax tree, so that a printed model compiles
//! back to the same model (`compile(print(m)).module == m`).
//!
//! The canonical layout: items separated by one blank line; `///` docs, then the attributes of
//! an item on one line, then its header; one field or enum value per line, indented by two
//! spaces; inline objects broken over lines the same way; `A | B` with single spaces; constraints
//! after the type they constrain; field annotations, then `= default`. Blank lines between
//! fields are kept (at most one).

use serde_json::Value;

use crate::ast::{self, *};
use crate::diagnostic::{Errors, Span};
use crate::model::{self, Additional, Module, NamedKind, Ty};

const INDENT: &str = "  ";

/// The longest inline object written on one line.
const ONE_LINE: usize = 60;

/// Prints a syntax tree in canonical layout, without comments.
pub fn file(f: &File) -> String {
    let mut p = Printer::new("", Vec::new());
    p.file(f);
    p.finish()
}

/// Formats a source: parses it, prints it in canonical layout, and puts every `//` comment back
/// (a comment on its own line stays before the same member; a comment after code stays at the
/// end of that line). `///` doc comments are part of the syntax tree and printed with it.
///
/// The result is checked before it is returned: it must parse to the same syntax tree as the
/// source (spans aside), so formatting can never change what a file means.
pub fn format(source: &str) -> Result<String, Errors> {
    let f = crate::parse(source)?;
    let comments = comments(source);
    let expected = comments.len();
    let mut p = Printer::new(source, comments);
    p.file(&f);
    let out = p.finish();
    let same = crate::parse(&out).is_ok_and(|g| g == f) && self::comments(&out).len() == expected;
    if !same {
        return Err(Errors::new(vec![crate::Diagnostic::error(
            crate::Code::Syntax,
            Span::new(0, 0),
            "the formatter could not lay this file out without changing it; the file was left alone",
        )
        .with_label("not formatted")]));
    }
    Ok(out)
}

/// A `//` comment of a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// Byte offset of the first `/`.
    pub offset: usize,
    /// The text, from `//` to the end of the line (without the line break and trailing blanks).
    pub text: String,
    /// Whether code precedes it on its line.
    pub trailing: bool,
}

/// Every `//` comment (not `///` doc comments, but `////` lines) of a source, in order. Strings
/// are skipped, so `"http://x"` holds no comment.
pub fn comments(source: &str) -> Vec<Comment> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_has_code = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line_has_code = false;
                i += 1;
            }
            b'"' => {
                line_has_code = true;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = source[i..].find('\n').map_or(source.len(), |n| i + n);
                let text = source[i..end].trim_end();
                let doc = text.starts_with("///") && !text.starts_with("////");
                if !doc {
                    out.push(Comment {
                        offset: i,
                        text: text.to_string(),
                        trailing: line_has_code,
                    });
                }
                i = end;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            _ => {
                line_has_code = true;
                i += 1;
            }
        }
    }
    out
}

/// Why a model has no `.tool` spelling.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unprintable(pub String);

/// Prints a model as canonical source: named types and enums first, then the tools (in source
/// order when the model was compiled from a source).
///
/// Fails only for model details the language has no spelling for: literal types whose value is
/// an array or an object, `@meta` keys that are not identifiers, named types whose name is not
/// an identifier, or enum values that are neither strings nor integers in a named `enum`.
pub fn module(m: &Module) -> Result<String, Unprintable> {
    Ok(file(&to_ast(m)?))
}

/// Prints one model type as a type expression.
pub fn ty(m: &Module, t: &Ty) -> Result<String, Unprintable> {
    let mut c = ToAst { module: m };
    let e = c.ty(t)?;
    let mut p = Printer::new("", Vec::new());
    p.ty(&e, false);
    Ok(p.out)
}

/// Turns a model into a syntax tree that compiles back to it.
pub fn to_ast(m: &Module) -> Result<File, Unprintable> {
    let mut c = ToAst { module: m };
    let mut items: Vec<(usize, usize, Item)> = Vec::new();
    for (i, t) in m.types.iter().enumerate() {
        items.push((t.span.start, i, c.named(t)?));
    }
    for (i, t) in m.tools.iter().enumerate() {
        items.push((t.span.start, m.types.len() + i, Item::Tool(c.tool(t)?)));
    }
    items.sort_by_key(|(start, i, _)| (*start, *i));
    Ok(File {
        items: items.into_iter().map(|(_, _, item)| item).collect(),
    })
}

/// Whether `s` is an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

// ---------------------------------------------------------------------------------------------
// Model → syntax tree

struct ToAst<'m> {
    module: &'m Module,
}

fn sp() -> Span {
    Span::default()
}

fn name(text: &str) -> Name {
    Name {
        text: text.to_string(),
        quoted: !is_ident(text),
        span: sp(),
    }
}

fn doc(text: &Option<String>) -> Option<Doc> {
    text.as_ref().map(|t| Doc {
        text: t.clone(),
        span: sp(),
    })
}

fn attr(n: &str, args: Option<Vec<AttrArg>>) -> Attribute {
    Attribute {
        name: name(n),
        args,
        span: sp(),
    }
}

fn arg(v: AttrValue) -> AttrArg {
    AttrArg {
        name: None,
        value: v,
        span: sp(),
    }
}

fn named_arg(n: &str, v: AttrValue) -> AttrArg {
    AttrArg {
        name: Some(name(n)),
        value: v,
        span: sp(),
    }
}

fn word(w: &str) -> AttrValue {
    AttrValue::Word(name(w))
}

fn value(v: &Value) -> ast::Value {
    let kind = match v {
        Value::Null => ValueKind::Null,
        Value::Bool(b) => ValueKind::Bool(*b),
        Value::Number(n) => ValueKind::Number(n.to_string()),
        Value::String(s) => ValueKind::String(s.clone()),
        Value::Array(items) => ValueKind::Array(items.iter().map(value).collect()),
        Value::Object(m) => ValueKind::Object(m.iter().map(|(k, v)| (name(k), value(v))).collect()),
    };
    ast::Value { kind, span: sp() }
}

fn val(v: &Value) -> AttrValue {
    AttrValue::Value(value(v))
}

fn flag(n: &str, v: Option<bool>, out: &mut Vec<Attribute>) {
    match v {
        Some(true) => out.push(attr(n, None)),
        Some(false) => out.push(attr(
            n,
            Some(
                vec![val(&Value::Bool(false))]
                    .into_iter()
                    .map(arg)
                    .collect(),
            ),
        )),
        None => {}
    }
}

fn expr(kind: TypeKind) -> TypeExpr {
    TypeExpr { kind, span: sp() }
}

fn f64_value(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

impl ToAst<'_> {
    fn named(&mut self, t: &model::NamedType) -> Result<Item, Unprintable> {
        if !is_ident(&t.name) {
            return Err(Unprintable(format!(
                "the type name `{}` is not an identifier",
                t.name
            )));
        }
        let mut attrs = Vec::new();
        if t.deprecated {
            attrs.push(attr("deprecated", None));
        }
        let name = name(&t.name);
        match (t.kind, &t.ty) {
            (NamedKind::Enum, Ty::Enum(members)) => {
                let mut out = Vec::new();
                for m in members {
                    let value = match &m.value {
                        Value::String(s) if is_ident(s) => EnumValue::Ident(s.clone()),
                        Value::String(s) => EnumValue::String(s.clone()),
                        Value::Number(n) if n.is_i64() || n.is_u64() => {
                            EnumValue::Integer(n.to_string())
                        }
                        other => {
                            return Err(Unprintable(format!(
                                "enum `{}` holds {other}, but enum values are strings or integers",
                                t.name
                            )))
                        }
                    };
                    out.push(ast::EnumMember {
                        doc: doc(&m.description),
                        value,
                        span: sp(),
                    });
                }
                Ok(Item::Enum(EnumDef {
                    doc: doc(&t.description),
                    attrs,
                    name,
                    members: out,
                    span: sp(),
                }))
            }
            (NamedKind::Object, Ty::Object(o)) => Ok(Item::Type(TypeDef {
                doc: doc(&t.description),
                attrs,
                name,
                body: expr(TypeKind::Object(self.object(o)?)),
                span: sp(),
            })),
            (_, ty) => Ok(Item::Type(TypeDef {
                doc: doc(&t.description),
                attrs,
                name,
                body: self.alias_body(ty)?,
                span: sp(),
            })),
        }
    }

    /// An alias body: an object literal after `=` would read as `type X { ... }`, so a plain
    /// object alias is written as a union of one in parentheses (the syntax tree has no
    /// parentheses, so it is written as `map<...>` when it is a map and refused otherwise).
    fn alias_body(&mut self, ty: &Ty) -> Result<TypeExpr, Unprintable> {
        if let Ty::Object(o) = ty {
            if !o.is_map() {
                return Err(Unprintable(
                    "an alias of an object type with fields has no spelling; use `type Name { ... }`"
                        .into(),
                ));
            }
        }
        self.ty(ty)
    }

    fn tool(&mut self, t: &model::Tool) -> Result<ToolDef, Unprintable> {
        let mut attrs = Vec::new();
        if let Some(title) = &t.title {
            attrs.push(attr(
                "title",
                Some(vec![arg(val(&Value::String(title.clone())))]),
            ));
        }
        flag("read_only", t.hints.read_only, &mut attrs);
        flag("destructive", t.hints.destructive, &mut attrs);
        flag("idempotent", t.hints.idempotent, &mut attrs);
        flag("open_world", t.hints.open_world, &mut attrs);
        if t.requires_approval {
            attrs.push(attr("requires_approval", None));
        }
        if let Some(scope) = &t.scope {
            let v = if is_word(scope) {
                word(scope)
            } else {
                val(&Value::String(scope.clone()))
            };
            attrs.push(attr("scope", Some(vec![arg(v)])));
        }
        match t.mode {
            Some(model::Mode::Strict) => attrs.push(attr("strict", None)),
            Some(model::Mode::Lax) => attrs.push(attr("lax", None)),
            None => {}
        }
        match t.on_error {
            Some(model::OnError::Raise) => {
                attrs.push(attr("on_error", Some(vec![arg(word("raise"))])))
            }
            Some(model::OnError::Suppress) => {
                attrs.push(attr("on_error", Some(vec![arg(word("suppress"))])))
            }
            None => {}
        }
        if t.formats == model::Formats::Annotate {
            attrs.push(attr("formats", Some(vec![arg(word("annotate"))])));
        }
        if let Some(r) = &t.retry {
            let wait = match r.wait {
                model::Wait::Fixed(x) => val(&f64_value(x)),
                model::Wait::Linear => word("linear"),
                model::Wait::Exponential => word("exponential"),
            };
            attrs.push(attr(
                "retry",
                Some(vec![
                    named_arg("times", val(&Value::from(r.times))),
                    named_arg("wait", wait),
                    named_arg("base", val(&f64_value(r.base))),
                ]),
            ));
        }
        if !t.meta.is_empty() {
            let mut args = Vec::new();
            for (k, v) in &t.meta {
                if !is_ident(k) {
                    return Err(Unprintable(format!(
                        "the `@meta` key `{k}` is not an identifier"
                    )));
                }
                args.push(named_arg(k, val(v)));
            }
            attrs.push(attr("meta", Some(args)));
        }
        if t.deprecated {
            attrs.push(attr("deprecated", None));
        }
        let output = match &t.output {
            Some(o) => Some(self.ty(o)?),
            None => None,
        };
        Ok(ToolDef {
            doc: Some(Doc {
                text: t.description.clone(),
                span: sp(),
            }),
            attrs,
            name: name(&t.name),
            output,
            params: self.object(&t.params)?,
            span: sp(),
        })
    }

    fn object(&mut self, o: &model::ObjectTy) -> Result<ObjectBody, Unprintable> {
        let mut fields = Vec::new();
        for f in &o.fields {
            let mut annotations = Vec::new();
            if f.deprecated {
                annotations.push(attr("deprecated", None));
            }
            for e in &f.examples {
                annotations.push(attr("example", Some(vec![arg(val(e))])));
            }
            fields.push(ast::Field {
                doc: doc(&f.description),
                name: name(&f.name),
                optional: !f.required,
                ty: self.ty(&f.ty)?,
                annotations,
                default: f.default.as_ref().map(value),
                span: sp(),
            });
        }
        let (open, rest) = match &o.additional {
            Additional::Closed => (None, None),
            Additional::Open => (Some(sp()), None),
            Additional::Schema(t) => (Some(sp()), Some(Box::new(self.ty(t)?))),
        };
        Ok(ObjectBody {
            fields,
            open,
            rest,
            span: sp(),
        })
    }

    /// A literal type; an array literal is written as a tuple of literals (`[1, "a"]`) and an
    /// object literal as a closed object type with literal fields (`{ a: 1 }`), which mean
    /// exactly that value.
    fn literal(&self, v: &Value) -> Result<TypeExpr, Unprintable> {
        match v {
            Value::Null => Ok(expr(TypeKind::Named(name("null")))),
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(ast::TupleItem {
                        ty: self.literal(item)?,
                        optional: false,
                        span: sp(),
                    });
                }
                Ok(expr(TypeKind::Tuple(ast::TupleExpr {
                    items: out,
                    open: None,
                    rest: None,
                    span: sp(),
                })))
            }
            Value::Object(map) => {
                let mut fields = Vec::with_capacity(map.len());
                for (k, item) in map {
                    fields.push(ast::Field {
                        doc: None,
                        name: name(k),
                        optional: false,
                        ty: self.literal(item)?,
                        annotations: Vec::new(),
                        default: None,
                        span: sp(),
                    });
                }
                Ok(expr(TypeKind::Object(ObjectBody {
                    fields,
                    open: None,
                    rest: None,
                    span: sp(),
                })))
            }
            _ => Ok(expr(TypeKind::Literal(value(v)))),
        }
    }

    fn ty(&mut self, t: &Ty) -> Result<TypeExpr, Unprintable> {
        let named = |n: &str| Ok(expr(TypeKind::Named(name(n))));
        match t {
            Ty::Any => named("any"),
            Ty::Never => named("never"),
            Ty::Null => named("null"),
            Ty::Boolean => named("boolean"),
            Ty::Integer(r) | Ty::Number(r) => {
                let base = expr(TypeKind::Named(name(if matches!(t, Ty::Integer(_)) {
                    "integer"
                } else {
                    "number"
                })));
                let mut attrs = Vec::new();
                let bounds = [
                    ("min", &r.minimum),
                    ("max", &r.maximum),
                    ("exclusive_min", &r.exclusive_minimum),
                    ("exclusive_max", &r.exclusive_maximum),
                    ("multiple_of", &r.multiple_of),
                ];
                for (n, b) in bounds {
                    if let Some(b) = b {
                        attrs.push(attr(
                            n,
                            Some(vec![arg(val(&Value::Number(b.value.clone())))]),
                        ));
                    }
                }
                Ok(constrained(base, attrs))
            }
            Ty::String(r) => {
                let mut attrs = Vec::new();
                if let Some(n) = &r.min_length {
                    attrs.push(attr(
                        "min_length",
                        Some(vec![arg(val(&Value::from(n.value)))]),
                    ));
                }
                if let Some(n) = &r.max_length {
                    attrs.push(attr(
                        "max_length",
                        Some(vec![arg(val(&Value::from(n.value)))]),
                    ));
                }
                if let Some(p) = &r.pattern {
                    attrs.push(attr(
                        "pattern",
                        Some(vec![arg(val(&Value::String(p.value.clone())))]),
                    ));
                }
                if let Some(f) = &r.format {
                    attrs.push(attr("format", Some(vec![arg(word(f.value.as_str()))])));
                }
                Ok(constrained(expr(TypeKind::Named(name("string"))), attrs))
            }
            Ty::Const(v) => self.literal(v),
            Ty::Enum(members) => {
                let mut out = Vec::new();
                for m in members {
                    out.push(self.literal(&m.value)?);
                }
                Ok(match out.len() {
                    1 => out
                        .pop()
                        .unwrap_or_else(|| expr(TypeKind::Named(name("null")))),
                    _ => expr(TypeKind::Union(out)),
                })
            }
            Ty::Array(a) => {
                let items = self.ty(&a.items)?;
                let attrs = array_attrs(&a.min_items, &a.max_items, &a.unique);
                Ok(constrained(expr(TypeKind::Array(Box::new(items))), attrs))
            }
            Ty::Tuple(t) => {
                let mut items = Vec::with_capacity(t.items.len());
                for (i, item) in t.items.iter().enumerate() {
                    items.push(ast::TupleItem {
                        ty: self.ty(item)?,
                        optional: i >= t.required,
                        span: sp(),
                    });
                }
                let (open, rest) = match &t.rest {
                    Additional::Closed => (None, None),
                    Additional::Open => (Some(sp()), None),
                    Additional::Schema(r) => (Some(sp()), Some(Box::new(self.ty(r)?))),
                };
                let tuple = expr(TypeKind::Tuple(ast::TupleExpr {
                    items,
                    open,
                    rest,
                    span: sp(),
                }));
                Ok(constrained(
                    tuple,
                    array_attrs(&t.min_items, &t.max_items, &t.unique),
                ))
            }
            Ty::Object(o) => match &o.additional {
                Additional::Schema(values) if o.fields.is_empty() => {
                    Ok(expr(TypeKind::Map(Box::new(self.ty(values)?))))
                }
                _ => Ok(expr(TypeKind::Object(self.object(o)?))),
            },
            Ty::Ref(id) => match self.module.types.get(id.0) {
                Some(t) => named(&t.name),
                None => Err(Unprintable(format!(
                    "type reference {} is out of range",
                    id.0
                ))),
            },
            Ty::Nullable(inner) => {
                let inner = self.ty(inner)?;
                let mut members = match inner.kind {
                    TypeKind::Union(ms) => ms,
                    kind => vec![expr(kind)],
                };
                members.push(expr(TypeKind::Named(name("null"))));
                Ok(expr(TypeKind::Union(members)))
            }
            Ty::AnyOf(members) => {
                let mut out = Vec::new();
                for m in members {
                    // A union member that is itself a union (an enum of literals) keeps its
                    // parentheses, which the printer adds for nested unions.
                    out.push(self.ty(m)?);
                }
                Ok(expr(TypeKind::Union(out)))
            }
        }
    }
}

/// `@min_items`, `@max_items` and `@unique` of an array or tuple.
fn array_attrs(
    min: &Option<model::Spanned<u64>>,
    max: &Option<model::Spanned<u64>>,
    unique: &Option<model::Spanned<bool>>,
) -> Vec<Attribute> {
    let mut attrs = Vec::new();
    if let Some(n) = min {
        attrs.push(attr(
            "min_items",
            Some(vec![arg(val(&Value::from(n.value)))]),
        ));
    }
    if let Some(n) = max {
        attrs.push(attr(
            "max_items",
            Some(vec![arg(val(&Value::from(n.value)))]),
        ));
    }
    if let Some(u) = unique {
        if u.value {
            attrs.push(attr("unique", None));
        } else {
            attrs.push(attr("unique", Some(vec![arg(val(&Value::Bool(false)))])));
        }
    }
    attrs
}

fn constrained(base: TypeExpr, attrs: Vec<Attribute>) -> TypeExpr {
    if attrs.is_empty() {
        base
    } else {
        expr(TypeKind::Constrained(Box::new(base), attrs))
    }
}

// ---------------------------------------------------------------------------------------------
// Layout

struct Printer<'s> {
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
    fn new(source: &'s str, comments: Vec<Comment>) -> Self {
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

    fn finish(mut self) -> String {
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

    fn file(&mut self, f: &File) {
        for (i, item) in f.items.iter().enumerate() {
            let (start, doc) = match item {
                Item::Tool(t) => (t.span.start, &t.doc),
                Item::Type(t) => (t.span.start, &t.doc),
                Item::Enum(e) => (e.span.start, &e.doc),
            };
            self.newline();
            if i > 0 {
                self.out.push('\n');
            }
            self.own_line_comments(start);
            self.doc(doc);
            match item {
                Item::Tool(t) => self.tool(t),
                Item::Type(t) => self.type_def(t),
                Item::Enum(e) => self.enum_def(e),
            }
        }
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
                match &x.value {
                    AttrValue::Value(v) => self.value(v),
                    AttrValue::Word(w) => self.write(&w.text),
                }
            }
            self.write(")");
        }
        self.seen(a.span);
    }

    fn name(&mut self, n: &Name) {
        if n.quoted || !is_ident(&n.text) {
            self.write(&quote(&n.text));
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
        for m in &e.members {
            self.newline();
            if self.blank_between(prev_end, m.span.start) && !self.out.ends_with("{\n") {
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
                EnumValue::String(s) => self.write(&quote(s)),
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
        for f in &b.fields {
            self.newline();
            if self.blank_between(prev_end, f.span.start) && !self.out.ends_with("{\n") {
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
    fn ty(&mut self, t: &TypeExpr, tight: bool) {
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
            ValueKind::String(s) => self.write(&quote(s)),
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

/// A string in double quotes with JSON escapes.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}
