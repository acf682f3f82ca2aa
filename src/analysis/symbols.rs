//! Document symbols: the outline of a file.

use crate::ast::{self, EnumValue, Item, ObjectBody, TypeExpr, TypeKind};
use crate::diagnostic::Span;

use super::Document;

/// One entry of a document's outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name as the file means it (a quoted name unquoted).
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// A short text beside the name: a field's type as written, an alias's type, a tool's
    /// output.
    pub detail: Option<String>,
    /// The whole definition, doc comment included.
    pub span: Span,
    /// The name.
    pub name_span: Span,
    /// Fields of a tool or object (and of the inline objects of a field's type), values of an
    /// enum.
    pub children: Vec<Symbol>,
}

/// What a [`Symbol`] stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// `tool name { ... }`
    Tool,
    /// `type Name { ... }`
    Object,
    /// `type Name = T`
    Alias,
    /// `enum Name { ... }`
    Enum,
    /// A field of a tool or an object.
    Field,
    /// A value of an enum.
    EnumValue,
    /// `import { ... } from "path"` (named by its path; the imported names are its children).
    Import,
}

/// How long a detail may be before it is cut with `…`.
const MAX_DETAIL: usize = 60;

pub(super) fn symbols(doc: &Document) -> Vec<Symbol> {
    let Some(file) = doc.file() else {
        return Vec::new();
    };
    file.items
        .iter()
        .map(|item| item_symbol(doc, item))
        .collect()
}

fn item_symbol(doc: &Document, item: &Item) -> Symbol {
    match item {
        Item::Tool(t) => Symbol {
            name: t.name.text.clone(),
            kind: SymbolKind::Tool,
            detail: t.output.as_ref().map(|o| format!("-> {}", detail(doc, o))),
            span: t.span,
            name_span: t.name.span,
            children: fields(doc, &t.params),
        },
        Item::Type(t) => {
            let (kind, detail, children) = match &t.body.kind {
                TypeKind::Object(body) => (SymbolKind::Object, None, fields(doc, body)),
                _ => (
                    SymbolKind::Alias,
                    Some(detail(doc, &t.body)),
                    inline_fields(doc, &t.body),
                ),
            };
            Symbol {
                name: t.name.text.clone(),
                kind,
                detail,
                span: t.span,
                name_span: t.name.span,
                children,
            }
        }
        Item::Import(i) => Symbol {
            name: i.path.clone(),
            kind: SymbolKind::Import,
            detail: None,
            span: i.span,
            name_span: i.path_span,
            children: i
                .names
                .iter()
                .map(|n| Symbol {
                    name: n.text.clone(),
                    kind: SymbolKind::Alias,
                    detail: None,
                    span: n.span,
                    name_span: n.span,
                    children: Vec::new(),
                })
                .collect(),
        },
        Item::Enum(e) => Symbol {
            name: e.name.text.clone(),
            kind: SymbolKind::Enum,
            detail: None,
            span: e.span,
            name_span: e.name.span,
            children: e
                .members
                .iter()
                .map(|m| {
                    let name = match &m.value {
                        EnumValue::Ident(s) | EnumValue::Integer(s) => s.clone(),
                        EnumValue::String(s) => serde_json::Value::String(s.clone()).to_string(),
                    };
                    Symbol {
                        name,
                        kind: SymbolKind::EnumValue,
                        detail: None,
                        span: m.span,
                        name_span: member_value_span(doc, m),
                        children: Vec::new(),
                    }
                })
                .collect(),
        },
    }
}

/// Where an enum member's value is written: the end of its span, which starts with its doc
/// comment (a value is one token on the last line of the span).
fn member_value_span(doc: &Document, m: &ast::EnumMember) -> Span {
    let text = doc.slice(m.span).trim_end();
    let line = text.rfind('\n').map_or(0, |i| i + 1);
    let start = line + (text.len() - line - text[line..].trim_start().len());
    Span::new(m.span.start + start, m.span.start + text.len())
}

fn fields(doc: &Document, body: &ObjectBody) -> Vec<Symbol> {
    body.fields
        .iter()
        .map(|f| Symbol {
            name: f.name.text.clone(),
            kind: SymbolKind::Field,
            detail: Some(format!(
                "{}{}",
                if f.optional { "?: " } else { ": " },
                detail(doc, &f.ty)
            )),
            span: f.span,
            name_span: f.name.span,
            children: inline_fields(doc, &f.ty),
        })
        .collect()
}

/// The fields of the inline objects a type holds (`{ ... }`, `{ ... }[]`, `{ ... } | null`).
fn inline_fields(doc: &Document, ty: &TypeExpr) -> Vec<Symbol> {
    match &ty.kind {
        TypeKind::Object(body) => fields(doc, body),
        TypeKind::Array(inner) | TypeKind::Map(inner) | TypeKind::Constrained(inner, _) => {
            inline_fields(doc, inner)
        }
        TypeKind::Union(members) => members.iter().flat_map(|m| inline_fields(doc, m)).collect(),
        TypeKind::Tuple(t) => t
            .items
            .iter()
            .flat_map(|i| inline_fields(doc, &i.ty))
            .collect(),
        TypeKind::Named(_) | TypeKind::Literal(_) => Vec::new(),
    }
}

/// A type as written on one line, cut at [`MAX_DETAIL`] characters.
fn detail(doc: &Document, ty: &ast::TypeExpr) -> String {
    let text = doc
        .slice(ty.span)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match text.char_indices().nth(MAX_DETAIL) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}
