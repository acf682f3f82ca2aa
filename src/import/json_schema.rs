//! `--from json-schema`: a bare JSON Schema (or a list of them), read faithfully.

use serde_json::Value;

use super::schema::{named_kind, type_name, Core, Rules};
use super::{finish, ImportError, Imported, Issue, Options};
use crate::model::{Module, NamedType, Tool, Ty, TypeId};

/// Faithful rules: objects stay open unless they say otherwise.
fn rules(options: &Options) -> Rules {
    Rules {
        close_objects: false,
        openapi: false,
        bfcl: false,
        deny_hidden: options.deny_hidden,
    }
}

fn fail(core: Core) -> ImportError {
    ImportError {
        issues: core.errors,
    }
}

pub(super) fn import(doc: &Value, options: &Options) -> Result<Imported, ImportError> {
    let mut core = Core::new(rules(options));
    let mut tools = Vec::new();
    let list: Vec<(String, &Value)> = match doc {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("/{i}"), v))
            .collect(),
        other => vec![(String::new(), other)],
    };
    let many = list.len() > 1 || doc.is_array();
    for (i, (ptr, schema)) in list.into_iter().enumerate() {
        let title = schema.get("title").and_then(Value::as_str);
        let base = options.name.clone().or(title.map(str::to_string));
        let name = match (base, many) {
            (Some(b), true) => format!("{b}_{}", i + 1),
            (Some(b), false) => b,
            (None, true) => format!("imported_{}", i + 1),
            (None, false) => "imported".to_string(),
        };
        core.reset_defs();
        core.set_defs(schema, &ptr);
        // The root's `title` names the tool (and is kept as its title), so it is not an
        // annotation left behind.
        let mut root = schema.clone();
        if let Value::Object(m) = &mut root {
            m.shift_remove("title");
        }
        let Some(ty) = core.ty(&root, &ptr) else {
            continue;
        };
        match ty {
            Ty::Object(o) => {
                let valid = !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
                let name = if valid {
                    name
                } else {
                    let clean: String = name
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                        .collect();
                    core.warn(
                        &ptr,
                        format!("`{name}` is not a tool name; the tool was named `{clean}`"),
                    );
                    clean
                };
                let description = match schema
                    .get("description")
                    .and_then(Value::as_str)
                    .and_then(|d| core.description(d, &format!("{ptr}/description")))
                {
                    Some(d) => d,
                    None => {
                        core.warn(
                            &ptr,
                            "the schema has no description; the tool's name was used",
                        );
                        name.clone()
                    }
                };
                let title = title.map(|t| core.title(t, &format!("{ptr}/title")));
                tools.push(Tool {
                    title,
                    ..Tool::new(name, description, *o)
                });
            }
            other => {
                let tname = core.fresh_type_name(&name);
                core.warn(&ptr, format!("the schema does not describe an object, so it cannot be a tool's parameters; it became the named type `{tname}`"));
                push_named(&mut core, tname, other, schema, &ptr);
            }
        }
    }
    if !core.errors.is_empty() {
        return Err(fail(core));
    }
    let warnings = std::mem::take(&mut core.warnings);
    finish(
        Module {
            tools,
            types: core.types,
        },
        warnings,
    )
}

fn push_named(core: &mut Core, name: String, ty: Ty, schema: &Value, ptr: &str) -> TypeId {
    let description = schema
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| core.description(d, &format!("{ptr}/description")));
    let id = TypeId(core.types.len());
    core.types.push(NamedType {
        name,
        kind: named_kind(&ty),
        description,
        ty,
        recursive: false,
        deprecated: false,
        span: Default::default(),
    });
    id
}

pub(super) fn import_type(schema: &Value, name: &str) -> Result<(Imported, TypeId), ImportError> {
    let mut core = Core::new(rules(&Options::default()));
    core.set_defs(schema, "");
    let Some(ty) = core.ty(schema, "") else {
        return Err(fail(core));
    };
    if !core.errors.is_empty() {
        return Err(fail(core));
    }
    let tname = core.fresh_type_name(&type_name(name));
    push_named(&mut core, tname.clone(), ty, schema, "");
    let warnings = std::mem::take(&mut core.warnings);
    let imported = finish(
        Module {
            tools: Vec::new(),
            types: core.types,
        },
        warnings,
    )?;
    match imported.module.named(&tname) {
        Some((id, _)) => Ok((imported, id)),
        None => Err(ImportError {
            issues: vec![Issue {
                pointer: String::new(),
                keyword: None,
                message: format!("the type `{tname}` was lost in printing"),
            }],
        }),
    }
}
