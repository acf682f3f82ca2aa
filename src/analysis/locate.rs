//! Finding what a syntax tree holds at an offset, and walking every type and field of a file.

use crate::ast::{self, Field, Item, Name, ObjectBody, TypeExpr, TypeKind, Value, ValueKind};
use crate::check::BUILTIN_TYPES;
use crate::diagnostic::Span;

use super::Document;

/// The name at an offset, with what it names.
#[derive(Clone, Copy, Debug)]
pub(super) enum Found<'a> {
    /// A tool's name.
    Tool(&'a ast::ToolDef),
    /// The name of a type or enum where it is defined.
    Definition(&'a Item),
    /// A type or enum named in a type (it may be undefined).
    Reference(&'a Name),
    /// A built-in type named in a type (`string`, `integer`, ...).
    Builtin(&'a Name),
    /// A field's name where it is declared, in the object that declares it.
    Field {
        field: &'a Field,
        body: &'a ObjectBody,
    },
    /// A key of a default or example that names a field (`lat` in `= { lat: 1 }`).
    Key {
        key: &'a Name,
        field: &'a Field,
        body: &'a ObjectBody,
    },
}

/// Whether `offset` is in `span` or right after it (where a cursor stands after typing a name).
pub(super) fn touches(span: Span, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

/// The name at `offset` in a document that parses.
pub(super) fn at(doc: &Document, offset: usize) -> Option<Found<'_>> {
    let file = doc.file()?;
    let offset = super::char_offset(&doc.text, offset)?;
    let item = file.items.iter().find(|i| touches(item_span(i), offset))?;
    match item {
        Item::Tool(t) => {
            if touches(t.name.span, offset) {
                return Some(Found::Tool(t));
            }
            if let Some(found) = t.output.as_ref().and_then(|o| in_type(doc, o, offset)) {
                return Some(found);
            }
            in_body(doc, &t.params, offset)
        }
        Item::Type(t) => {
            if touches(t.name.span, offset) {
                return Some(Found::Definition(item));
            }
            in_type(doc, &t.body, offset)
        }
        Item::Enum(e) => touches(e.name.span, offset).then_some(Found::Definition(item)),
        // A name in an import refers to its definition in the other file.
        Item::Import(i) => i
            .names
            .iter()
            .find(|n| touches(n.span, offset))
            .map(Found::Reference),
    }
}

/// The span of a whole item, doc comment included.
pub(super) fn item_span(item: &Item) -> Span {
    match item {
        Item::Tool(t) => t.span,
        Item::Type(t) => t.span,
        Item::Enum(e) => e.span,
        Item::Import(i) => i.span,
    }
}

/// The doc comment of an item.
pub(super) fn item_doc(item: &Item) -> Option<&ast::Doc> {
    match item {
        Item::Tool(t) => t.doc.as_ref(),
        Item::Type(t) => t.doc.as_ref(),
        Item::Enum(e) => e.doc.as_ref(),
        Item::Import(_) => None,
    }
}

fn in_type<'a>(doc: &'a Document, e: &'a TypeExpr, offset: usize) -> Option<Found<'a>> {
    if !touches(e.span, offset) {
        return None;
    }
    match &e.kind {
        TypeKind::Named(n) => touches(n.span, offset).then(|| {
            if is_builtin(&n.text) {
                Found::Builtin(n)
            } else {
                Found::Reference(n)
            }
        }),
        TypeKind::Literal(_) => None,
        TypeKind::Array(inner) | TypeKind::Map(inner) | TypeKind::Constrained(inner, _) => {
            in_type(doc, inner, offset)
        }
        TypeKind::Object(body) => in_body(doc, body, offset),
        TypeKind::Tuple(t) => t
            .items
            .iter()
            .find_map(|i| in_type(doc, &i.ty, offset))
            .or_else(|| t.rest.as_ref().and_then(|r| in_type(doc, r, offset))),
        TypeKind::Union(members) => members.iter().find_map(|m| in_type(doc, m, offset)),
    }
}

fn in_body<'a>(doc: &'a Document, body: &'a ObjectBody, offset: usize) -> Option<Found<'a>> {
    for field in &body.fields {
        if !touches(field.span, offset) {
            continue;
        }
        if touches(field.name.span, offset) {
            return Some(Found::Field { field, body });
        }
        if let Some(found) = in_type(doc, &field.ty, offset) {
            return Some(found);
        }
        for value in field_values(field) {
            if !touches(value.span, offset) {
                continue;
            }
            let mut found = None;
            value_keys(doc, &field.ty, value, &mut |key, field, body| {
                if found.is_none() && touches(key.span, offset) {
                    found = Some(Found::Key { key, field, body });
                }
            });
            if found.is_some() {
                return found;
            }
        }
    }
    body.rest.as_ref().and_then(|r| in_type(doc, r, offset))
}

/// Whether a name is a built-in type's (or `map`).
pub(super) fn is_builtin(name: &str) -> bool {
    BUILTIN_TYPES.contains(&name) || name == "map"
}

/// The values written for a field: its default and its examples.
pub(super) fn field_values(field: &Field) -> impl Iterator<Item = &Value> {
    let examples = field
        .annotations
        .iter()
        .filter(|a| a.name.text == "example")
        .flat_map(|a| a.args().iter())
        .filter_map(|arg| match &arg.value {
            ast::AttrValue::Value(v) => Some(v),
            ast::AttrValue::Word(_) | ast::AttrValue::List { .. } => None,
        });
    field.default.iter().chain(examples)
}

/// How deep [`value_keys`] follows types and values, and how many steps it takes in all: enough
/// for any value a file can hold (values nest at most 32 deep), and a bound on alias cycles and
/// unions of unions, which the checker reports but a half-edited file may hold.
const KEY_DEPTH: usize = 128;
const KEY_STEPS: usize = 100_000;

/// Calls `visit` with every key of `value` that names a field of an object of type `ty`, with
/// that field and the object that declares it. Named types are followed within the document.
pub(super) fn value_keys<'a>(
    doc: &'a Document,
    ty: &'a TypeExpr,
    value: &'a Value,
    visit: &mut dyn FnMut(&'a Name, &'a Field, &'a ObjectBody),
) {
    let mut steps = KEY_STEPS;
    keys_in(doc, ty, value, visit, 0, &mut steps);
}

fn keys_in<'a>(
    doc: &'a Document,
    ty: &'a TypeExpr,
    value: &'a Value,
    visit: &mut dyn FnMut(&'a Name, &'a Field, &'a ObjectBody),
    depth: usize,
    steps: &mut usize,
) {
    if depth > KEY_DEPTH || *steps == 0 {
        return;
    }
    *steps -= 1;
    let mut go = |ty: &'a TypeExpr, value: &'a Value, steps: &mut usize| {
        keys_in(doc, ty, value, visit, depth + 1, steps)
    };
    match (&ty.kind, &value.kind) {
        (TypeKind::Named(n), _) => {
            if let Some(Item::Type(t)) = doc.definition(&n.text) {
                go(&t.body, value, steps);
            }
        }
        (TypeKind::Constrained(inner, _), _) => go(inner, value, steps),
        (TypeKind::Union(members), _) => {
            for m in members {
                go(m, value, steps);
            }
        }
        (TypeKind::Object(body), ValueKind::Object(entries)) => {
            for (key, v) in entries {
                match body.fields.iter().find(|f| f.name.text == key.text) {
                    Some(field) => {
                        visit(key, field, body);
                        keys_in(doc, &field.ty, v, visit, depth + 1, steps);
                    }
                    None => {
                        if let Some(rest) = &body.rest {
                            keys_in(doc, rest, v, visit, depth + 1, steps);
                        }
                    }
                }
            }
        }
        (TypeKind::Array(inner), ValueKind::Array(items)) => {
            for v in items {
                go(inner, v, steps);
            }
        }
        (TypeKind::Map(inner), ValueKind::Object(entries)) => {
            for (_, v) in entries {
                go(inner, v, steps);
            }
        }
        (TypeKind::Tuple(t), ValueKind::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                match t.items.get(i) {
                    Some(item) => go(&item.ty, v, steps),
                    None => {
                        if let Some(rest) = &t.rest {
                            go(rest, v, steps);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}
