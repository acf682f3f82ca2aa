//! Hover: what a field, tool, type, enum or built-in type is, as written and as emitted.

use serde_json::Value;

use crate::ast::{self, Item, TypeExpr, TypeKind};
use crate::diagnostic::Span;
use crate::model::{self, Additional, Module, ObjectTy, Ty};

use super::locate::{self, Found};
use super::{Analysis, Document, Hover};

/// The most lines of a definition a hover shows; the rest is cut with `…`.
const MAX_LINES: usize = 30;

pub(super) fn hover(analysis: &Analysis, key: &str, offset: usize) -> Option<Hover> {
    let doc = analysis.document(key)?;
    match locate::at(doc, offset)? {
        Found::Tool(t) => Some(tool(doc, t)),
        Found::Definition(item) => Some(definition((analysis, key, doc), item, item.name()?.span)),
        Found::Reference(name) => {
            let at = analysis.resolve(key, &name.text)?;
            let doc = analysis.document(&at.document)?;
            let item = doc.definition(&name.text)?;
            Some(definition((analysis, &at.document, doc), item, name.span))
        }
        Found::Builtin(name) => Some(Hover {
            span: name.span,
            code: if name.text == "map" {
                "map<T>".to_string()
            } else {
                name.text.clone()
            },
            description: builtin_meaning(&name.text).map(str::to_string),
            constraints: Vec::new(),
            schema: None,
        }),
        Found::Field { field, .. } => {
            Some(field_hover((analysis, key, doc), field, field.name.span))
        }
        Found::Key {
            key: name, field, ..
        } => Some(field_hover((analysis, key, doc), field, name.span)),
    }
}

/// What a built-in type means (docs/language.md, "Types").
pub(super) fn builtin_meaning(name: &str) -> Option<&'static str> {
    Some(match name {
        "string" => "Any string.",
        "integer" => "A number with zero fractional part (`1.0` counts, as in JSON Schema).",
        "number" => "Any JSON number.",
        "boolean" => "`true` or `false`.",
        "any" => "Any JSON value, `null` included; emits `{}`.",
        "null" => "Only `null`.",
        "never" => "No value at all: an optional field of this type must be left out; emits `{\"not\": {}}`.",
        "map" => "An object with any string keys, every value of type `T`: `\"additionalProperties\": T`.",
        _ => return None,
    })
}

fn tool(doc: &Document, t: &ast::ToolDef) -> Hover {
    // The attributes and the header as written (comments left out), then one field a line.
    let mut code = String::new();
    let attributes: Vec<&str> = t.attrs.iter().map(|a| doc.slice(a.span)).collect();
    if !attributes.is_empty() {
        code.push_str(&attributes.join(" "));
        code.push('\n');
    }
    code.push_str("tool ");
    code.push_str(doc.slice(t.name.span));
    if let Some(output) = &t.output {
        code.push_str(" -> ");
        code.push_str(doc.slice(output.span).trim());
    }
    code.push_str(" {\n");
    for field in &t.params.fields {
        code.push_str("  ");
        code.push_str(declaration(doc, field));
        code.push('\n');
    }
    if let Some(open) = t.params.open {
        let end = t.params.rest.as_ref().map_or(open.end, |r| r.span.end);
        code.push_str("  ");
        code.push_str(doc.slice(Span::new(open.start, end)));
        code.push('\n');
    }
    code.push('}');
    Hover {
        span: t.name.span,
        code,
        description: t.doc.as_ref().map(|d| d.text.clone()),
        constraints: Vec::new(),
        schema: None,
    }
}

/// A document of an analysis, with its key: where a hover finds the checked model.
type In<'a> = (&'a Analysis, &'a str, &'a Document);

/// A type or enum: its definition as written, its description and its schema.
fn definition((analysis, key, doc): In<'_>, item: &Item, span: Span) -> Hover {
    let whole = locate::item_span(item);
    let start = locate::item_doc(item).map_or(whole.start, |d| d.span.end);
    let code = cut(doc.slice(Span::new(start, whole.end)).trim());
    let schema = analysis.with_model(key, |c| {
        let (id, _) = c.module.named(&item.name()?.text)?;
        let mut schema = crate::emit::type_schema(&c.module, &Ty::Ref(id))?;
        // The draft is the same for every schema shown; `$defs` stays, `$ref`s point there.
        if let Value::Object(map) = &mut schema {
            map.shift_remove("$schema");
        }
        Some(schema)
    });
    Hover {
        span,
        code,
        description: locate::item_doc(item).map(|d| d.text.clone()),
        constraints: Vec::new(),
        schema,
    }
}

fn field_hover((analysis, key, doc): In<'_>, field: &ast::Field, span: Span) -> Hover {
    let mut constraints = Vec::new();
    constraints_of(doc, &field.ty, &mut constraints);
    let schema = analysis.with_model(key, |c| {
        let model = model_field(&c.module, field.name.span)?;
        field_schema(&c.module, model)
    });
    Hover {
        span,
        code: cut(declaration(doc, field)),
        description: field.doc.as_ref().map(|d| d.text.clone()),
        constraints,
        schema,
    }
}

/// A field as written, from its name to its default, without its doc comment.
fn declaration<'d>(doc: &'d Document, field: &ast::Field) -> &'d str {
    doc.slice(Span::new(field.name.span.start, field.span.end))
        .trim_end()
}

/// The constraints written on a type itself (and on the members of a union), not those inside
/// it (an array's items, an object's fields).
fn constraints_of(doc: &Document, ty: &TypeExpr, out: &mut Vec<String>) {
    match &ty.kind {
        TypeKind::Constrained(inner, attrs) => {
            constraints_of(doc, inner, out);
            out.extend(attrs.iter().map(|a| doc.slice(a.span).to_string()));
        }
        TypeKind::Union(members) => {
            for m in members {
                constraints_of(doc, m, out);
            }
        }
        _ => {}
    }
}

/// At most [`MAX_LINES`] lines of `text`.
fn cut(text: &str) -> String {
    let mut lines = text.lines();
    let mut out: Vec<&str> = lines.by_ref().take(MAX_LINES).collect();
    if lines.next().is_some() {
        out.push("…");
    }
    out.join("\n")
}

/// The field of the model declared with its name at `span`.
fn model_field(module: &Module, span: Span) -> Option<&model::Field> {
    let mut found = None;
    for tool in &module.tools {
        found = found
            .or_else(|| in_object(&tool.params, span))
            .or_else(|| tool.output.as_ref().and_then(|o| in_ty(o, span)));
    }
    for named in &module.types {
        found = found.or_else(|| in_ty(&named.ty, span));
    }
    found
}

fn in_object(object: &ObjectTy, span: Span) -> Option<&model::Field> {
    object
        .fields
        .iter()
        .find_map(|f| (f.span == span).then_some(f).or_else(|| in_ty(&f.ty, span)))
        .or_else(|| match &object.additional {
            Additional::Schema(t) => in_ty(t, span),
            Additional::Open | Additional::Closed => None,
        })
}

fn in_ty(ty: &Ty, span: Span) -> Option<&model::Field> {
    match ty {
        Ty::Object(o) => in_object(o, span),
        Ty::Array(a) => in_ty(&a.items, span),
        Ty::Tuple(t) => t
            .items
            .iter()
            .find_map(|i| in_ty(i, span))
            .or_else(|| match &t.rest {
                Additional::Schema(r) => in_ty(r, span),
                Additional::Open | Additional::Closed => None,
            }),
        Ty::Nullable(inner) => in_ty(inner, span),
        Ty::AnyOf(members) => members.iter().find_map(|m| in_ty(m, span)),
        Ty::Any
        | Ty::Never
        | Ty::Null
        | Ty::Boolean
        | Ty::Integer(_)
        | Ty::Number(_)
        | Ty::String(_)
        | Ty::Const(_)
        | Ty::Enum(_)
        | Ty::Ref(_) => None,
    }
}

/// The property schema the `json-schema` target emits for a field (its description, default
/// and examples included), with the `$defs` of the recursive types it refers to; `None` when it
/// is too large to emit.
fn field_schema(module: &Module, field: &model::Field) -> Option<Value> {
    let holder = Ty::Object(Box::new(ObjectTy {
        fields: vec![field.clone()],
        additional: Additional::Closed,
        rules: model::KeyRules::default(),
    }));
    let root = crate::emit::type_schema(module, &holder)?;
    let mut schema = root["properties"][field.name.as_str()].clone();
    if let (Value::Object(map), Some(defs)) = (&mut schema, root.get("$defs")) {
        map.insert("$defs".to_string(), defs.clone());
    }
    Some(schema)
}
