//! `--from json-schema`: a bare JSON Schema (or a list of them), read faithfully; or tooldef's
//! own `--target json-schema` output (`{name, description, parameters, output?}` documents).
//! A document of another dialect is refused with the `--from` that reads it.

use serde_json::Value;

use super::origins::{enum_pointers, ToolOrigin, TypeOrigin};
use super::schema::{named_kind, type_name, Core, Rules};
use super::ToolSpec;
use super::{
    entries, finish, str_at, tools, Dialect, ImportError, Imported, Issue, Options, Units,
};
use crate::diagnostic::Code;
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

/// The keywords that make an object a schema rather than a document that holds schemas.
const SCHEMA_KEYWORDS: &[&str] = &[
    "$schema",
    "$ref",
    "$defs",
    "definitions",
    "type",
    "properties",
    "additionalProperties",
    "patternProperties",
    "required",
    "items",
    "prefixItems",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
];

/// What an entry of the document is, when it is not a schema.
enum Entry {
    /// tooldef's `--target json-schema` tool (or any `{name, parameters}` function document
    /// whose parameters are JSON Schema).
    Tool,
    /// A tool of another dialect.
    Other(Dialect),
}

fn entry_kind(doc: &Value, entry: &Value) -> Option<Entry> {
    let m = entry.as_object()?;
    // OpenAI's `type` is `function`, which no schema's `type` is.
    if m.contains_key("function") || str_at(entry, "type") == Some("function") {
        return Some(Entry::Other(Dialect::OpenAi));
    }
    if SCHEMA_KEYWORDS.iter().any(|k| m.contains_key(*k)) {
        return None;
    }
    let dialect =
        if doc.get("functionDeclarations").is_some() || m.contains_key("functionDeclarations") {
            Dialect::Gemini
        } else if m.contains_key("input_schema") {
            Dialect::Anthropic
        } else if m.contains_key("inputSchema") {
            Dialect::Mcp
        } else if m.get("parameters").and_then(|p| p.get("type")) == Some(&Value::from("dict")) {
            Dialect::Bfcl
        } else if m.get("name").is_some_and(Value::is_string)
            && m.get("parameters").is_some_and(Value::is_object)
        {
            return Some(Entry::Tool);
        } else {
            return None;
        };
    Some(Entry::Other(dialect))
}

pub(super) fn import(
    doc: &Value,
    options: &Options,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    let listed = entries(doc, &["tools", "functionDeclarations"]);
    let kinds: Vec<Option<Entry>> = listed.iter().map(|(_, e)| entry_kind(doc, e)).collect();
    if let Some((i, dialect)) = kinds.iter().enumerate().find_map(|(i, k)| match k {
        Some(Entry::Other(d)) => Some((i, *d)),
        _ => None,
    }) {
        return Err(ImportError {
            issues: vec![Issue::reading(
                listed[i].0.clone(),
                Code::ImportWrongFormat,
                format!(
                    "this is a tool in the {} format, not a JSON Schema; import it with `--from {}`",
                    dialect.as_str(),
                    dialect.as_str()
                ),
            )],
        });
    }
    if !kinds.is_empty() && kinds.iter().all(|k| matches!(k, Some(Entry::Tool))) {
        return tool_documents(listed, options, units);
    }
    schemas(doc, options, units)
}

/// tooldef's own `--target json-schema` output: `{name, description, parameters, output?}`.
fn tool_documents(
    listed: Vec<(String, &Value)>,
    options: &Options,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    let specs = listed
        .into_iter()
        .map(|(ptr, entry)| {
            let mut spec = ToolSpec::new(ptr);
            spec.name = str_at(entry, "name");
            spec.title = str_at(entry, "title");
            spec.description = str_at(entry, "description");
            spec.input = entry.get("parameters");
            spec.output = entry.get("output");
            spec.output_key = "output";
            spec
        })
        .collect();
    tools(specs, rules(options), Vec::new(), units)
}

/// A schema, or a list of them.
fn schemas(doc: &Value, options: &Options, units: &mut Units) -> Result<Imported, ImportError> {
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
        if units.skips(&ptr) {
            continue;
        }
        units.seen.push(ptr.clone());
        let title = schema.get("title").and_then(Value::as_str);
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
        // A root `$ref` to an object definition is that object; the definition's description
        // stands for the root's when it has none.
        let object = core.root_object(ty);
        let def = match &object {
            Ok((_, Some(id))) => core.type_pointer(*id).and_then(|p| {
                let p = p.strip_prefix(ptr.as_str())?;
                schema.pointer(p).map(|d| (d, format!("{ptr}{p}")))
            }),
            _ => None,
        };
        let (described, description_ptr) = match &def {
            Some((d, dptr)) if schema.get("description").is_none() => (*d, dptr.clone()),
            _ => (schema, ptr.clone()),
        };
        let base = options.name.clone().or(title.map(str::to_string));
        let name = match (base, many) {
            (Some(b), true) => format!("{b}_{}", i + 1),
            (Some(b), false) => b,
            (None, true) => format!("imported_{}", i + 1),
            (None, false) => "imported".to_string(),
        };
        match object {
            Ok((o, _)) => {
                // A name the checker refuses (from a title) is made valid in `finish`.
                let mut origin = ToolOrigin {
                    pointer: ptr.clone(),
                    name: None,
                    params: ptr.clone(),
                    ..ToolOrigin::default()
                };
                let description = match described
                    .get("description")
                    .and_then(Value::as_str)
                    .and_then(|d| core.description(d, &format!("{description_ptr}/description")))
                {
                    Some(d) => {
                        origin.description = Some(format!("{description_ptr}/description"));
                        d
                    }
                    None => {
                        core.warn(
                            &ptr,
                            Code::MissingDescription,
                            "the schema has no description; the tool's name was used",
                        );
                        name.clone()
                    }
                };
                let title = title.map(|t| core.title(t, &format!("{ptr}/title")));
                if title.is_some() {
                    origin.title = Some(format!("{ptr}/title"));
                }
                tools.push(Tool {
                    title,
                    ..Tool::new(name, description, o)
                });
                core.origins.tools.push(origin);
            }
            Err(other) => {
                let tname = core.fresh_type_name(&name);
                core.warn(&ptr, Code::ImportInterpreted, format!("the schema does not describe an object, so it cannot be a tool's parameters; it became the named type `{tname}`"));
                push_named(&mut core, tname, *other, schema, &ptr);
            }
        }
    }
    if !core.errors.is_empty() {
        return Err(fail(core));
    }
    let warnings = std::mem::take(&mut core.warnings);
    let deny_hidden = core.rules.deny_hidden;
    finish(
        Module {
            tools,
            types: core.types,
        },
        warnings,
        core.origins,
        deny_hidden,
    )
}

fn push_named(core: &mut Core, name: String, ty: Ty, schema: &Value, ptr: &str) -> TypeId {
    let description = schema
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| core.description(d, &format!("{ptr}/description")));
    let id = TypeId(core.types.len());
    core.origins.types.push(TypeOrigin {
        members: enum_pointers(&ty, schema, ptr),
        pointer: ptr.to_string(),
    });
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
        core.origins,
        false,
    )?;
    match imported.module.named(&tname) {
        Some((id, _)) => Ok((imported, id)),
        None => Err(ImportError {
            issues: vec![Issue::reading(
                "",
                Code::ImportUnsupported,
                format!("the type `{tname}` was lost in printing"),
            )],
        }),
    }
}
