//! References and rename: every place that names a type, an enum or a field.

use crate::ast::{self, Item};
use crate::diagnostic::Span;
use crate::syntax::{is_identifier, quote};

use super::locate::{self, Found};
use super::{Analysis, Edit, Location};
use crate::ast::Node;

/// Why a rename was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenameError {
    /// The document is not open, or nothing renamable stands at the offset.
    #[error("there is no type, enum or field to rename here")]
    Nothing,
    /// The document does not parse, so its names cannot all be found.
    #[error("the file has syntax errors; fix them before renaming")]
    Syntax,
    /// The name is a built-in type's.
    #[error("`{0}` is a built-in type and cannot be renamed")]
    Builtin(String),
    /// The name is not defined, so there is nothing to rename it with.
    #[error("`{0}` is not defined, so it cannot be renamed")]
    Undefined(String),
    /// A tool's name, which nothing in a file refers to.
    #[error("a tool's name is not referred to anywhere in `.tool` files; edit it where it is")]
    Tool,
    /// The new name is not an identifier.
    #[error(
        "`{0}` is not an identifier: use ASCII letters, digits and `_`, not starting with a digit"
    )]
    NotAnIdentifier(String),
    /// The new name is one a type or enum cannot have (a built-in type, `map`, `true`, `false`).
    #[error("`{0}` is reserved: it is read as a built-in type or a literal")]
    Reserved(String),
    /// The new name is taken: by another type or enum, or by another field of the same object.
    #[error("`{name}` is already the name of another {what}")]
    Taken {
        /// The new name.
        name: String,
        /// What holds it: `type or enum`, or `field of this object`.
        what: &'static str,
        /// Where it is defined.
        at: Location,
    },
}

/// What a rename or a reference search is about.
enum Target {
    /// A type or enum, by where it is defined.
    Named { name: String, definition: Location },
    /// A field, by the document and object that declare it.
    Field {
        document: String,
        body: Span,
        name: String,
        declaration: Span,
    },
}

fn target(
    analysis: &Analysis,
    key: &str,
    offset: usize,
) -> Result<(Target, Span, String), RenameError> {
    let doc = analysis.document(key).ok_or(RenameError::Nothing)?;
    if doc.file().is_none() {
        return Err(RenameError::Syntax);
    }
    let named = |name: &ast::Name| -> Result<(Target, Span, String), RenameError> {
        let definition = analysis
            .resolve(key, &name.text)
            .ok_or_else(|| RenameError::Undefined(name.text.clone()))?;
        Ok((
            Target::Named {
                name: name.text.clone(),
                definition,
            },
            name.span,
            name.text.clone(),
        ))
    };
    let field = |field: &ast::Field, body: &ast::ObjectBody| Target::Field {
        document: key.to_string(),
        body: body.span,
        name: field.name.text.clone(),
        declaration: field.name.span,
    };
    match locate::at(doc, offset).ok_or(RenameError::Nothing)? {
        Found::Definition(item) => {
            let name = item.name().ok_or(RenameError::Nothing)?;
            Ok((
                Target::Named {
                    name: name.text.clone(),
                    definition: Location {
                        document: key.to_string(),
                        span: name.span,
                    },
                },
                name.span,
                name.text.clone(),
            ))
        }
        Found::Reference(name) => named(name),
        Found::Builtin(name) => Err(RenameError::Builtin(name.text.clone())),
        Found::Tool(_) => Err(RenameError::Tool),
        Found::Field { field: f, body } => Ok((field(f, body), f.name.span, f.name.text.clone())),
        Found::Key {
            key: k,
            field: f,
            body,
        } => Ok((field(f, body), k.span, k.text.clone())),
    }
}

pub(super) fn prepare(
    analysis: &Analysis,
    key: &str,
    offset: usize,
) -> Result<(Span, String), RenameError> {
    target(analysis, key, offset).map(|(_, span, text)| (span, text))
}

pub(super) fn references(
    analysis: &Analysis,
    key: &str,
    offset: usize,
    include_declaration: bool,
) -> Vec<Location> {
    match target(analysis, key, offset) {
        Ok((target, _, _)) => places(analysis, &target, include_declaration),
        Err(_) => Vec::new(),
    }
}

/// Every place that names the target, sorted by document and position.
fn places(analysis: &Analysis, target: &Target, include_declaration: bool) -> Vec<Location> {
    let mut out = Vec::new();
    match target {
        Target::Named { name, definition } => {
            if include_declaration {
                out.push(definition.clone());
            }
            // Any document may name it: today each only its own types, with imports others.
            for key in analysis.keys() {
                let Some(file) = analysis.document(key).and_then(|d| d.file()) else {
                    continue;
                };
                // The names an import brings in name the definition too.
                let mut uses: Vec<Span> = file
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        ast::Item::Import(import) => Some(&import.names),
                        _ => None,
                    })
                    .flatten()
                    .filter(|n| &n.text == name)
                    .map(|n| n.span)
                    .collect();
                ast::each_node(&file.items, &mut |node| {
                    if let Node::Type(ast::TypeExpr {
                        kind: ast::TypeKind::Named(n),
                        ..
                    }) = node
                    {
                        if &n.text == name {
                            uses.push(n.span);
                        }
                    }
                });
                if uses.is_empty() || analysis.resolve(key, name).as_ref() != Some(definition) {
                    continue;
                }
                out.extend(uses.into_iter().map(|span| Location {
                    document: key.to_string(),
                    span,
                }));
            }
        }
        Target::Field {
            document,
            body,
            name,
            declaration,
        } => {
            if include_declaration {
                out.push(Location {
                    document: document.clone(),
                    span: *declaration,
                });
            }
            for key in analysis.keys() {
                let Some(doc) = analysis.document(key) else {
                    continue;
                };
                let Some(file) = doc.file() else {
                    continue;
                };
                let mut keys = Vec::new();
                ast::each_node(&file.items, &mut |node| {
                    let Node::Field(field) = node else {
                        return;
                    };
                    for value in locate::field_values(field) {
                        locate::value_keys(doc, &field.ty, value, &mut |k, f, b| {
                            if key == document && b.span == *body && &f.name.text == name {
                                keys.push(k.span);
                            }
                        });
                    }
                });
                out.extend(keys.into_iter().map(|span| Location {
                    document: key.to_string(),
                    span,
                }));
            }
        }
    }
    out.sort_by(|a, b| {
        (&a.document, a.span.start, a.span.end).cmp(&(&b.document, b.span.start, b.span.end))
    });
    out.dedup();
    out
}

/// Names a type or enum cannot take: a built-in type's (or `map`), or a literal's.
fn reserved(name: &str) -> bool {
    locate::is_builtin(name) || name == "true" || name == "false"
}

pub(super) fn rename(
    analysis: &Analysis,
    key: &str,
    offset: usize,
    new_name: &str,
) -> Result<Vec<Edit>, RenameError> {
    let (target, _, old) = target(analysis, key, offset)?;
    if !is_identifier(new_name) {
        return Err(RenameError::NotAnIdentifier(new_name.to_string()));
    }
    match &target {
        Target::Named { definition, .. } => {
            if reserved(new_name) {
                return Err(RenameError::Reserved(new_name.to_string()));
            }
            // Taken where the type is defined, or where any of its uses would see the new name.
            if new_name != old {
                for doc in std::iter::once(definition.document.as_str()).chain(analysis.keys()) {
                    if let Some(at) = analysis.resolve(doc, new_name) {
                        let uses_it = doc == definition.document
                            || analysis.resolve(doc, &old).as_ref() == Some(definition);
                        if uses_it {
                            return Err(RenameError::Taken {
                                name: new_name.to_string(),
                                what: "type or enum",
                                at,
                            });
                        }
                    }
                }
            }
        }
        Target::Field {
            document,
            body,
            declaration,
            ..
        } => {
            let sibling = analysis
                .document(document)
                .and_then(|d| d.file())
                .and_then(|file| sibling_named(file, *body, *declaration, new_name));
            if let Some(span) = sibling {
                return Err(RenameError::Taken {
                    name: new_name.to_string(),
                    what: "field of this object",
                    at: Location {
                        document: document.clone(),
                        span,
                    },
                });
            }
        }
    }
    if new_name == old {
        return Ok(Vec::new());
    }
    Ok(places(analysis, &target, true)
        .into_iter()
        .map(|l| {
            let old_text = analysis
                .text(&l.document)
                .and_then(|text| text.get(l.span.start..l.span.end))
                .unwrap_or_default();
            Edit {
                new_text: spelled_like(old_text, new_name),
                document: l.document,
                span: l.span,
            }
        })
        .collect())
}

/// `new_name` written the way the name it replaces was: quoted where that was a string
/// (`"h"`, `r#"h"#`), so the new name keeps the string's token boundaries; bare otherwise.
fn spelled_like(old_text: &str, new_name: &str) -> String {
    if is_identifier(old_text) {
        new_name.to_string()
    } else {
        quote(new_name)
    }
}

/// The name of another field called `name` in the object at `body`.
fn sibling_named(file: &ast::File, body: Span, field: Span, name: &str) -> Option<Span> {
    let mut found = None;
    let mut look = |b: &ast::ObjectBody| {
        if b.span == body {
            found = b
                .fields
                .iter()
                .find(|f| f.name.text == name && f.name.span != field)
                .map(|f| f.name.span);
        }
    };
    for item in &file.items {
        if let Item::Tool(t) = item {
            look(&t.params);
        }
    }
    ast::each_node(&file.items, &mut |node| {
        if let Node::Type(ast::TypeExpr {
            kind: ast::TypeKind::Object(b),
            ..
        }) = node
        {
            look(b);
        }
    });
    found
}
