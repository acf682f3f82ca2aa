//! Importing: tool definitions in other formats → the model, and canonical `.tool` source.
//!
//! One file per dialect reads its envelope (where the tools, names and schemas are); the shared
//! core (`schema.rs`) turns JSON Schema into model types, recording where each part came from
//! (`origins.rs`). The result is printed and compiled by the checker, so an imported module is
//! exactly what its printed source compiles to, and every rule of the language (names, hidden
//! characters, depth, defaults, patterns) is the checker's: its diagnostics come back as issues
//! and warnings at the JSON pointer of the part they are about, with their codes. The importer
//! itself only reads JSON (a keyword of the wrong JSON type, one the language cannot express, a
//! `$ref` that does not resolve) and makes the repairs it announces: a default or example that
//! the checker refuses is dropped with a warning, as is a hidden character in a description.
//! What it finds carries a code too: its own (`import-not-json`, `import-unsupported`,
//! `import-dropped`, …, see [`Code`]), or the checker's where the checker has one for the same
//! thing (`schema-too-deep`, `missing-description`, `forbidden-character`).
//!
//! Rules (docs/language.md, "Open objects and JSON Schema interop"):
//! - Keywords the language cannot express (`not`, `if`/`then`/`else`, `allOf`,
//!   `patternProperties`, external `$ref`, …) are errors naming the keyword and its JSON
//!   pointer; nothing is dropped silently. Dropped annotations are warnings with their pointer.
//! - An import goes on past a tool it cannot express: the other tools are imported, and each
//!   refused one is listed in [`Imported::refused`] with its issues. [`Options::strict`] makes
//!   the import all or nothing; so is one in which every tool, or the document itself, is
//!   refused.
//! - `--from json-schema` is faithful: an object without `additionalProperties: false` stays
//!   open. The tool dialects close objects that declare properties (one warning per file);
//!   [`Options::keep_open`] keeps them open.

mod anthropic;
mod bfcl;
mod gemini;
mod json_schema;
mod mcp;
mod openai;
pub(crate) mod origins;
pub(crate) mod schema;

use serde_json::Value;

use crate::diagnostic::Code;
use crate::model::{Hints, Module, Tool, TypeId};
use origins::{Origins, Part, Repair, Table, ToolOrigin};

/// The formats `tooldef import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// A JSON Schema (one tool, or one named type when it is not an object), or a list of them.
    JsonSchema,
    /// OpenAI tools: Chat Completions `{"type": "function", "function": {...}}` or the
    /// Responses API's flat form, one or a list (or `{"tools": [...]}`).
    OpenAi,
    /// Anthropic tools: `{name, description, input_schema}`, one or a list.
    Anthropic,
    /// Gemini function declarations, bare or inside `{"functionDeclarations": [...]}`.
    Gemini,
    /// An MCP `tools/list` result, or a list of MCP tools.
    Mcp,
    /// BFCL function documents (a list, or JSON Lines), with BFCL's type names.
    Bfcl,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: &'static [Dialect] = &[
        Dialect::JsonSchema,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
        Dialect::Bfcl,
    ];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::JsonSchema => "json-schema",
            Dialect::OpenAi => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Mcp => "mcp",
            Dialect::Bfcl => "bfcl",
        }
    }

    /// The dialect called `name` on the command line.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.iter().copied().find(|d| d.as_str() == name)
    }
}

/// How to import.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The name of the tool (or type) made from a bare JSON Schema; by default its `title`, or
    /// `imported`.
    pub name: Option<String>,
    /// Keep objects open in the tool dialects (they are closed by default).
    pub keep_open: bool,
    /// Refuse hidden characters (the tool-poisoning guard, [`crate::hidden`]) in text shown to
    /// the model: an error with its pointer. By default they are removed from descriptions and
    /// titles, and a default or example holding one is dropped, each with a warning.
    pub deny_hidden: bool,
    /// All or nothing: a tool that cannot be imported fails the whole import. By default the
    /// other tools are imported and the refused ones listed in [`Imported::refused`].
    pub strict: bool,
}

/// Something the importer changed or left out, at a JSON pointer into the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Where, as a JSON pointer (RFC 6901) into the input document.
    pub pointer: String,
    /// What kind of change it is: the code of the checker's diagnostic behind it when the
    /// checker found it (a default that does not fit, dropped), else one of the importer's own
    /// (`import-dropped`, `import-closed-object`, …) or of a checker's rule it repaired
    /// (`forbidden-character` for a hidden character removed).
    pub code: Code,
    /// What happened.
    pub message: String,
}

/// Why part of the input cannot be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// Where, as a JSON pointer into the input document.
    pub pointer: String,
    /// The JSON Schema keyword at fault, when one is.
    pub keyword: Option<String>,
    /// What kind of problem it is: the code of the checker's diagnostic when the imported
    /// definitions break a rule of the language, else one of the importer's own
    /// (`import-not-json`, `import-unsupported`, …) when the input cannot be read.
    pub code: Code,
    /// What is wrong.
    pub message: String,
}

impl Issue {
    /// An issue found while reading the input, before the checker sees it.
    pub(crate) fn reading(
        pointer: impl Into<String>,
        code: Code,
        message: impl Into<String>,
    ) -> Issue {
        Issue {
            pointer: pointer.into(),
            keyword: None,
            code,
            message: message.into(),
        }
    }
}

/// `at POINTER: [code] message` (the root pointer written `/`).
fn located(
    f: &mut std::fmt::Formatter<'_>,
    pointer: &str,
    code: Code,
    message: &str,
) -> std::fmt::Result {
    let at = if pointer.is_empty() { "/" } else { pointer };
    write!(f, "at {at}: [{code}] {message}")
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        located(f, &self.pointer, self.code, &self.message)
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        located(f, &self.pointer, self.code, &self.message)
    }
}

/// An import that failed: every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .issues.iter().map(|i| i.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct ImportError {
    /// The problems, in the order found.
    pub issues: Vec<Issue>,
}

/// A successful import.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The model, exactly as [`Imported::source`] compiles.
    pub module: Module,
    /// The canonical `.tool` source.
    pub source: String,
    /// What was changed or left out, with pointers.
    pub warnings: Vec<Warning>,
    /// The tools left out because they cannot be imported, in the order found (always empty
    /// with [`Options::strict`]).
    pub refused: Vec<Refusal>,
}

/// A tool of the input that an import left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Where the tool is, as a JSON pointer into the input (`/tools/3`; empty for a document
    /// that is one tool).
    pub pointer: String,
    /// Every problem found in it, each at its own pointer.
    pub issues: Vec<Issue>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "the tool at {at} was not imported")?;
        for issue in &self.issues {
            write!(f, "\n  {issue}")?;
        }
        Ok(())
    }
}

/// The tools of one run of an import: the pointers of those it leaves out, and of those it
/// met (each a tool's entry, or a schema of a list of schemas), for telling which tool an issue
/// belongs to.
#[derive(Debug, Default)]
pub(crate) struct Units {
    skip: Vec<String>,
    pub seen: Vec<String>,
}

impl Units {
    /// Whether the tool at `pointer` is left out.
    pub(crate) fn skips(&self, pointer: &str) -> bool {
        self.skip.iter().any(|s| within(pointer, s))
    }

    /// The innermost tool met whose entry holds `pointer`.
    fn owner(&self, pointer: &str) -> Option<&str> {
        self.seen
            .iter()
            .filter(|u| within(pointer, u))
            .max_by_key(|u| u.len())
            .map(String::as_str)
    }
}

/// Whether the JSON pointer `pointer` is `of` or points into it.
fn within(pointer: &str, of: &str) -> bool {
    pointer
        .strip_prefix(of)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Reads an input document: JSON, or JSON Lines (one value per line, collected into a list).
pub fn parse_input(text: &str) -> Result<Value, ImportError> {
    let one = |message: String| ImportError {
        issues: vec![Issue::reading("", Code::ImportNotJson, message)],
    };
    match serde_json::from_str::<Value>(text) {
        Ok(v) => {
            refuse_duplicate_keys(text, "")?;
            Ok(v)
        }
        Err(first) => {
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            if lines.len() < 2 {
                return Err(one(format!("not JSON: {first}")));
            }
            let mut out = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                match serde_json::from_str::<Value>(l) {
                    Ok(v) => {
                        refuse_duplicate_keys(l, &format!("/{i}"))?;
                        out.push(v)
                    }
                    Err(e) => {
                        return Err(one(format!(
                            "not JSON ({first}), nor JSON Lines (line {}: {e})",
                            i + 1
                        )))
                    }
                }
            }
            Ok(Value::Array(out))
        }
    }
}

/// The most nesting the check for repeated keys follows (serde_json's own limit).
const MAX_INPUT_DEPTH: usize = 128;

/// A key repeated in an object of `text` (JSON readers keep one of the two, silently) is an
/// error at its pointer, after `prefix`.
fn refuse_duplicate_keys(text: &str, prefix: &str) -> Result<(), ImportError> {
    let Ok(parsed) = crate::validate::parse_json(text, MAX_INPUT_DEPTH) else {
        // Deeper than the check follows: serde_json has read it, and the importer's own
        // depth limit reports it.
        return Ok(());
    };
    if parsed.duplicates.is_empty() {
        return Ok(());
    }
    Err(ImportError {
        issues: parsed
            .duplicates
            .iter()
            .map(|d| {
                let key = crate::validate::error::last_key(&d.path);
                Issue::reading(
                    format!("{prefix}{}", d.path),
                    Code::ImportDuplicateKey,
                    format!(
                        "the key `{key}` appears twice in this object; a JSON reader keeps only one of the two, so the import will not guess which was meant"
                    ),
                )
            })
            .collect(),
    })
}

/// Imports a document of the given dialect. Unless [`Options::strict`], a tool that cannot be
/// imported is left out and listed in [`Imported::refused`]; the import fails when every tool is
/// refused, or an issue belongs to no one tool (the document's shape, a clash between tools
/// that the checker places at neither).
pub fn import(doc: &Value, dialect: Dialect, options: &Options) -> Result<Imported, ImportError> {
    let mut units = Units::default();
    let mut refused: Vec<Refusal> = Vec::new();
    // Each round leaves out at least one more tool, so the rounds end.
    loop {
        units.seen.clear();
        let issues = match run(doc, dialect, options, &mut units) {
            Ok(mut imported) => {
                imported.refused = refused;
                return Ok(imported);
            }
            Err(e) if options.strict => return Err(e),
            Err(e) => e.issues,
        };
        let all = |issues: Vec<Issue>, refused: Vec<Refusal>| ImportError {
            issues: refused
                .into_iter()
                .flat_map(|r| r.issues)
                .chain(issues)
                .collect(),
        };
        let mut found: Vec<Refusal> = Vec::new();
        for issue in &issues {
            let Some(owner) = units.owner(&issue.pointer) else {
                return Err(all(issues, refused));
            };
            match found.iter_mut().find(|r| r.pointer == owner) {
                Some(r) => r.issues.push(issue.clone()),
                None => found.push(Refusal {
                    pointer: owner.to_string(),
                    issues: vec![issue.clone()],
                }),
            }
        }
        if found.is_empty() || found.len() >= units.seen.len() {
            return Err(all(issues, refused));
        }
        units.skip.extend(found.iter().map(|r| r.pointer.clone()));
        refused.extend(found);
    }
}

/// One round of [`import`], leaving out the tools `units` skips.
fn run(
    doc: &Value,
    dialect: Dialect,
    options: &Options,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    match dialect {
        Dialect::JsonSchema => json_schema::import(doc, options, units),
        Dialect::OpenAi => openai::import(doc, options, units),
        Dialect::Anthropic => anthropic::import(doc, options, units),
        Dialect::Gemini => gemini::import(doc, options, units),
        Dialect::Mcp => mcp::import(doc, options, units),
        Dialect::Bfcl => bfcl::import(doc, options, units),
    }
}

/// Imports a JSON Schema: an object schema becomes one tool, any other schema one named type;
/// a list of schemas becomes many. Objects stay open unless they say
/// `additionalProperties: false`. tooldef's own `--target json-schema` output (tools with a
/// `name` and `parameters`) imports as those tools; a document of another dialect is an error
/// that names the `--from` that reads it.
pub fn import_json_schema(doc: &Value, options: &Options) -> Result<Imported, ImportError> {
    import(doc, Dialect::JsonSchema, options)
}

/// Imports a JSON Schema as one named type (whatever its root), for validating values against
/// it: the import and the id of the type.
pub fn import_type(schema: &Value, name: &str) -> Result<(Imported, TypeId), ImportError> {
    json_schema::import_type(schema, name)
}

/// Imports OpenAI tool definitions.
pub fn import_openai(doc: &Value, options: &Options) -> Result<Imported, ImportError> {
    import(doc, Dialect::OpenAi, options)
}

/// Imports Anthropic tool definitions.
pub fn import_anthropic(doc: &Value, options: &Options) -> Result<Imported, ImportError> {
    import(doc, Dialect::Anthropic, options)
}

/// Imports Gemini function declarations.
pub fn import_gemini(doc: &Value, options: &Options) -> Result<Imported, ImportError> {
    import(doc, Dialect::Gemini, options)
}

/// Imports an MCP `tools/list` result.
pub fn import_mcp(doc: &Value, options: &Options) -> Result<Imported, ImportError> {
    import(doc, Dialect::Mcp, options)
}

/// Imports BFCL function documents.
pub fn import_bfcl(doc: &Value, options: &Options) -> Result<Imported, ImportError> {
    import(doc, Dialect::Bfcl, options)
}

// ---------------------------------------------------------------------------------------------
// Shared by the tool dialects

/// One tool as a dialect's envelope gives it.
pub(crate) struct ToolSpec<'d> {
    pub pointer: String,
    pub name: Option<&'d str>,
    pub description: Option<&'d str>,
    pub title: Option<&'d str>,
    pub input: Option<&'d Value>,
    pub input_key: &'static str,
    pub output: Option<&'d Value>,
    pub output_key: &'static str,
    pub annotations: Option<&'d Value>,
}

impl<'d> ToolSpec<'d> {
    pub(crate) fn new(pointer: String) -> Self {
        ToolSpec {
            pointer,
            name: None,
            description: None,
            title: None,
            input: None,
            input_key: "parameters",
            output: None,
            output_key: "outputSchema",
            annotations: None,
        }
    }
}

/// The list of entries of a document: a list, or the array under one of `keys`, or one entry.
pub(crate) fn entries<'d>(doc: &'d Value, keys: &[&str]) -> Vec<(String, &'d Value)> {
    if let Value::Array(items) = doc {
        return items
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("/{i}"), v))
            .collect();
    }
    for k in keys {
        if let Some(Value::Array(items)) = doc.get(*k) {
            return items
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("/{k}/{i}"), v))
                .collect();
        }
    }
    vec![(String::new(), doc)]
}

fn str_at<'d>(v: &'d Value, key: &str) -> Option<&'d str> {
    v.get(key).and_then(Value::as_str)
}

/// Builds the module of a tool dialect and finishes the import.
pub(crate) fn tools(
    specs: Vec<ToolSpec<'_>>,
    rules: schema::Rules,
    mut errors: Vec<Issue>,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    let mut core = schema::Core::new(rules);
    let mut tools = Vec::new();
    for spec in specs {
        let ptr = spec.pointer.clone();
        if units.skips(&ptr) {
            continue;
        }
        units.seen.push(ptr.clone());
        let Some(name) = spec.name else {
            core.error(
                &ptr,
                None,
                Code::ImportInvalidTool,
                "the tool has no `name`",
            );
            continue;
        };
        // Whether the name is valid, and unique, is the checker's to say.
        if name.contains('.') {
            core.warn(
                &format!("{ptr}/name"),
                Code::InvalidName,
                format!("the tool name `{}` contains `.`, which OpenAI, Anthropic and Gemini reject; those targets will refuse it until it is renamed", crate::hidden::reveal(name)),
            );
        }
        let mut origin = ToolOrigin {
            pointer: ptr.clone(),
            name: Some(format!("{ptr}/name")),
            ..ToolOrigin::default()
        };
        let description = match spec
            .description
            .and_then(|d| core.description(d, &format!("{ptr}/description")))
        {
            Some(d) => {
                origin.description = Some(format!("{ptr}/description"));
                d
            }
            None => {
                core.warn(
                    &format!("{ptr}/description"),
                    Code::MissingDescription,
                    "the tool has no description; its name was used (models choose tools by their descriptions: write one)",
                );
                name.to_string()
            }
        };
        let input_ptr = format!("{ptr}/{}", spec.input_key);
        origin.params = input_ptr.clone();
        let empty = Value::Object(serde_json::Map::new());
        let input = match spec.input {
            Some(i) => i,
            None => {
                core.warn(
                    &input_ptr,
                    Code::ImportInterpreted,
                    "the tool has no parameter schema; it takes no parameters",
                );
                &empty
            }
        };
        let Some(input_map) = input.as_object() else {
            core.error(
                &input_ptr,
                None,
                Code::ImportNotASchema,
                "the parameter schema must be an object",
            );
            continue;
        };
        let mut input_map = input_map.clone();
        if !input_map.contains_key("type")
            && !["anyOf", "oneOf", "allOf", "$ref"]
                .iter()
                .any(|k| input_map.contains_key(*k))
        {
            input_map.insert("type".into(), Value::String("object".into()));
        }
        let input_value = Value::Object(input_map);
        core.reset_defs();
        core.set_defs_owned(&input_value, &input_ptr);
        let params = match core
            .ty(&input_value, &input_ptr)
            .map(|t| core.root_object(t))
        {
            // A root `$ref` to an object definition: that object, as its definition says.
            Some(Ok((o, Some(_)))) => o,
            Some(Ok((mut o, None))) => {
                // A tool's parameters are closed too when they declare none: a tool that takes
                // no parameters takes no unknown ones either.
                if rules.close_objects
                    && o.additional == crate::model::Additional::Open
                    && !input_value
                        .as_object()
                        .is_some_and(|m| m.contains_key("additionalProperties"))
                {
                    o.additional = crate::model::Additional::Closed;
                    core.closed_by_default = true;
                }
                o
            }
            Some(Err(_)) => {
                core.error(
                    &input_ptr,
                    None,
                    Code::ImportInvalidTool,
                    "the parameters must be an object schema",
                );
                continue;
            }
            None => continue,
        };
        let output = match spec.output {
            Some(o) => {
                core.reset_defs();
                let output_ptr = format!("{ptr}/{}", spec.output_key);
                core.set_defs_owned(o, &output_ptr);
                origin.output = Some(output_ptr.clone());
                core.ty(o, &output_ptr)
            }
            None => None,
        };
        let mut hints = Hints::default();
        let mut title = spec.title.map(|t| core.title(t, &format!("{ptr}/title")));
        if title.is_some() {
            origin.title = Some(format!("{ptr}/title"));
        }
        if let Some(a) = spec.annotations {
            let aptr = format!("{ptr}/annotations");
            match a.as_object() {
                Some(m) => {
                    for (k, v) in m {
                        let slot = match k.as_str() {
                            "readOnlyHint" => Some(&mut hints.read_only),
                            "destructiveHint" => Some(&mut hints.destructive),
                            "idempotentHint" => Some(&mut hints.idempotent),
                            "openWorldHint" => Some(&mut hints.open_world),
                            "title" => {
                                match (v.as_str(), &title) {
                                    (Some(t), None) => {
                                        title = Some(core.title(t, &format!("{aptr}/title")));
                                        origin.title = Some(format!("{aptr}/title"));
                                    }
                                    (Some(t), Some(existing)) if t != existing => core.warn(
                                        &format!("{aptr}/title"),
                                        Code::ImportDropped,
                                        "the annotation title differs from the tool's title; the tool's title was kept",
                                    ),
                                    _ => {}
                                }
                                None
                            }
                            _ => {
                                core.warn(&format!("{aptr}/{k}"), Code::ImportDropped, format!("the annotation `{k}` has no place in the language and was dropped"));
                                None
                            }
                        };
                        if let Some(slot) = slot {
                            match v.as_bool() {
                                Some(b) => *slot = Some(b),
                                None => core.warn(
                                    &format!("{aptr}/{k}"),
                                    Code::ImportDropped,
                                    format!("`{k}` is not a boolean; it was dropped"),
                                ),
                            }
                        }
                    }
                }
                None => core.warn(
                    &aptr,
                    Code::ImportDropped,
                    "`annotations` is not an object; it was dropped",
                ),
            }
        }
        if hints.read_only == Some(true) && hints.destructive == Some(true) {
            core.warn(
                &format!("{ptr}/annotations"),
                Code::ConflictingAttributes,
                "a read-only tool cannot be destructive; `destructiveHint` was dropped",
            );
            hints.destructive = None;
        }
        tools.push(Tool {
            title,
            output,
            hints,
            ..Tool::new(name, description, params)
        });
        core.origins.tools.push(origin);
    }
    if core.closed_by_default {
        core.warn(
            "",
            Code::ImportClosedObject,
            "objects that declare properties but say nothing about other keys were closed (an unknown argument is a model mistake); pass --keep-open to keep them open",
        );
    }
    errors.append(&mut core.errors);
    if !errors.is_empty() {
        return Err(ImportError { issues: errors });
    }
    finish(
        Module {
            tools,
            types: core.types,
        },
        core.warnings,
        core.origins,
        rules.deny_hidden,
    )
}

/// How many times the importer repairs what the checker refuses and checks again: each round
/// drops every default and example refused in the round before, so a second round finds none.
const REPAIR_ROUNDS: usize = 3;

/// Prints the module and compiles the print with the checker, so the result is exactly what its
/// source says. The checker's diagnostics come back at the pointers the side table gives; a
/// default or an example it refuses is dropped with a warning (as is a hidden character in one
/// unless `deny_hidden`), a bare schema's tool name it refuses is made valid, and the module is
/// checked again.
pub(crate) fn finish(
    mut module: Module,
    mut warnings: Vec<Warning>,
    mut origins: Origins,
    deny_hidden: bool,
) -> Result<Imported, ImportError> {
    for round in 0..REPAIR_ROUNDS {
        let built = crate::print::syntax_tree(&module).map_err(|e| ImportError {
            // The model has no spelling in the language.
            issues: vec![Issue::reading("", Code::ImportUnsupported, e.0)],
        })?;
        let source = crate::print::file(&built);
        let parsed = crate::syntax::parse_recovering(&source);
        let (checked, found) = crate::check::check(&parsed.file, &parsed.broken_names);
        let mut diagnostics = parsed.errors;
        diagnostics.extend(found);
        let table = Table::new(&built, &parsed.file, &origins);
        let places = table.places(&diagnostics);
        let last = round + 1 == REPAIR_ROUNDS;
        let mut repairs = Vec::new();
        let mut repaired = Vec::new();
        let mut issues = Vec::new();
        let mut notes = Vec::new();
        for (d, place) in diagnostics.iter().zip(&places) {
            let pointer = place.as_ref().map_or("", |p| p.pointer).to_string();
            if !d.is_error() {
                // A property the schema leaves undescribed is the schema's, not something the
                // import did: the printed source carries it over as it was.
                if d.code == Code::UndescribedField {
                    continue;
                }
                notes.push(Warning {
                    pointer,
                    code: d.code,
                    message: d.message.clone(),
                });
                continue;
            }
            let part = place.as_ref().map_or(Part::Other, |p| p.part);
            match repair(d.code, part, &origins, deny_hidden).filter(|_| !last) {
                Some(r) => {
                    if !repairs.contains(&r) {
                        let done = match r {
                            Repair::RenameTool(i) => format!(
                                "the tool was named `{}`",
                                module.tools.get(i).map_or_else(String::new, |t| {
                                    origins::valid_tool_name(&t.name)
                                })
                            ),
                            Repair::DropDefault(_) | Repair::DropExample(..) => {
                                "it was dropped".to_string()
                            }
                        };
                        repaired.push(Warning {
                            pointer,
                            code: d.code,
                            message: format!("{}; {done}", d.message),
                        });
                        repairs.push(r);
                    }
                }
                None => issues.push(Issue {
                    pointer,
                    keyword: None,
                    code: d.code,
                    message: d.message.clone(),
                }),
            }
        }
        if !issues.is_empty() {
            return Err(ImportError { issues });
        }
        if repairs.is_empty() {
            if let Some(module) = checked {
                warnings.extend(notes);
                return Ok(Imported {
                    module,
                    source,
                    warnings,
                    refused: Vec::new(),
                });
            }
        }
        warnings.extend(repaired);
        origins.repair(&mut module, &repairs);
    }
    // Not reached: the last round repairs nothing, so it returns.
    Err(ImportError {
        issues: vec![Issue::reading(
            "",
            Code::ImportUnsupported,
            "the imported definitions could not be repaired",
        )],
    })
}

/// The repair the importer makes for an error of the checker at a part; `None` when the error
/// stands.
fn repair(code: Code, part: Part, origins: &Origins, deny_hidden: bool) -> Option<Repair> {
    // A hidden character in a value a target folds into a description: dropped, unless
    // `--deny-hidden` makes it an error.
    let value_refused = |c: Code| {
        matches!(c, Code::NestingTooDeep | Code::InvalidNumber)
            || (c == Code::ForbiddenCharacter && !deny_hidden)
    };
    match part {
        Part::Default(tag)
            if matches!(code, Code::InvalidDefault | Code::DefaultOnRequired)
                || value_refused(code) =>
        {
            Some(Repair::DropDefault(tag))
        }
        Part::Example(tag, i) if code == Code::InvalidExample || value_refused(code) => {
            Some(Repair::DropExample(tag, i))
        }
        // A name the importer made from a title: renamed.
        Part::ToolName(i)
            if code == Code::InvalidName
                && origins.tools.get(i).is_some_and(|t| t.name.is_none()) =>
        {
            Some(Repair::RenameTool(i))
        }
        _ => None,
    }
}
