//! Checking: the syntax tree → the compiled [`Module`], with every semantic error of the file
//! reported as a [`Diagnostic`] (never only the first).
//!
//! The checks are small methods on [`Checker`], one per construct, run in one pass over the
//! items; whole-module analyses (recursion, depth, defaults) run after it. The methods live by
//! concern: `names` (names and the texts a model reads), `attributes`, `types` (types and their
//! constraints), `values` (literal values) and `graph` (cycles, depth and size); this file holds
//! the items and the pass over them.

mod attributes;
mod graph;
mod key_rules;
mod names;
mod types;
mod values;

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::ast::{self, TypeKind};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::model::*;
use crate::validate;

use graph::{references, strongly_connected, unguarded_refs};
pub(crate) use key_rules::OBJECT_CONSTRAINTS;
use names::{duplicate, enum_folding};

/// The deepest schema a tool may have once named types are inlined (objects, arrays and unions
/// each count one level).
pub const MAX_SCHEMA_DEPTH: usize = 40;

/// The most unions and nullable types a value may be tried against one inside the other, through
/// named types, before an object, an array or a scalar (`type A = B | C`, `type B = D | null`:
/// 2). The validator takes stack for each, at every level of the value, and the schema depth does
/// not bound them when the types are recursive; at this limit and the deepest value the
/// validator takes, a release build needs about half of a 2 MiB thread's stack.
pub const MAX_UNION_DEPTH: usize = 8;

/// The deepest a literal value (`= default`, `@example`, `@meta`) may nest.
pub const MAX_VALUE_DEPTH: usize = 32;

/// The most subschemas a tool's schema may have once named types are inlined.
pub const MAX_SCHEMA_NODES: usize = 20_000;

/// The most bytes of text (names, descriptions, defaults, examples, enum values, patterns) a
/// tool's schema may carry once named types are inlined: a description is copied wherever its
/// type is, so a short source could otherwise ask for gigabytes of output.
pub const MAX_SCHEMA_TEXT: usize = 4 * 1024 * 1024;

/// Built-in type names; a named type may not reuse them.
pub(crate) const BUILTIN_TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "any", "null", "never",
];

pub(crate) const NUMBER_CONSTRAINTS: &[&str] = &[
    "min",
    "max",
    "exclusive_min",
    "exclusive_max",
    "multiple_of",
];

pub(crate) const STRING_CONSTRAINTS: &[&str] = &["min_length", "max_length", "pattern", "format"];

pub(crate) const ARRAY_CONSTRAINTS: &[&str] = &["min_items", "max_items", "unique"];

pub(crate) const FIELD_ANNOTATIONS: &[&str] = &["deprecated", "example"];

pub(crate) const TOOL_ATTRIBUTES: &[&str] = &[
    "title",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "requires_approval",
    "strict",
    "lax",
    "on_error",
    "retry",
    "on_invalid",
    "cache",
    "meta",
    "provider",
    "allow",
    "scope",
    "deprecated",
    "formats",
];

/// The attributes of a `type` and an `enum`; a `type` of an object also takes the rules across
/// its keys (`key_rules::OBJECT_CONSTRAINTS`).
pub(crate) const TYPE_ATTRIBUTES: &[&str] = &["deprecated"];

/// The help of every `forbidden-character` error.
const HIDDEN_HELP: &str = "control, zero-width, bidirectional-override and Unicode tag characters can hide instructions from reviewers; remove it";

/// Checks a parsed file. Returns the module when there are no errors; the diagnostics (errors
/// and warnings, in source order) either way. `broken` names the types and enums whose
/// definitions did not parse (so their uses are not reported as unknown); empty when the whole
/// source parsed.
pub(crate) fn check(file: &ast::File, broken: &[String]) -> (Option<Module>, Vec<Diagnostic>) {
    let mut checker = Checker {
        broken: broken.iter().cloned().collect(),
        ..Checker::default()
    };
    let module = checker.module(file);
    let mut diags = checker.diags;
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    if diags.iter().any(Diagnostic::is_error) {
        (None, diags)
    } else {
        (Some(module), diags)
    }
}

/// A field's examples and default, to check against its type once the whole module is known:
/// each value with where it was written and the code of its error.
struct Pending {
    ty: Ty,
    values: Vec<(Value, Span, Code)>,
}

#[derive(Default)]
struct Checker {
    diags: Vec<Diagnostic>,
    /// Named types and enums by name, with the span of the definition's name.
    names: HashMap<String, (TypeId, Span)>,
    /// Types and enums whose definitions did not parse.
    broken: HashSet<String>,
    /// What is left for "did you mean" suggestions.
    suggestions: crate::suggest::Budget,
    pending: Vec<Pending>,
    /// The module's patterns, compiled under its budget.
    patterns: crate::pattern::Patterns,
    /// Whether the patterns' budget has been reported spent.
    patterns_over: bool,
    /// How many times `any` has stood in for a type whose error is reported.
    stand_ins: usize,
}

impl Checker {
    pub(super) fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// The built-in or defined type name closest to an unknown `name`, while the suggestion
    /// budget lasts.
    pub(super) fn closest_type_name(&mut self, name: &str) -> Option<&str> {
        let defined = self.names.keys().map(String::as_str);
        self.suggestions
            .did_you_mean(name, BUILTIN_TYPES.iter().copied().chain(defined))
    }

    fn module(&mut self, file: &ast::File) -> Module {
        // Pass 1: names of types and enums.
        let mut next = 0;
        for item in &file.items {
            let name = match item {
                ast::Item::Type(t) => &t.name,
                ast::Item::Enum(e) => &e.name,
                ast::Item::Tool(_) | ast::Item::Import(_) => continue,
            };
            let id = TypeId(next);
            next += 1;
            if BUILTIN_TYPES.contains(&name.text.as_str()) || name.text == "map" {
                self.error(
                    Diagnostic::error(
                        Code::InvalidName,
                        name.span,
                        format!("`{}` is a built-in type and cannot be redefined", name.text),
                    )
                    .with_label("built-in name")
                    .with_help("choose another name"),
                );
                continue;
            }
            if let Some((_, first)) = self.names.get(&name.text) {
                let first = *first;
                self.error(duplicate("type", &name.text, name.span, first));
                continue;
            }
            self.names.insert(name.text.clone(), (id, name.span));
        }

        // Pass 2: definitions.
        let mut types = Vec::new();
        let mut tools = Vec::new();
        let mut tool_names: HashMap<String, Span> = HashMap::new();
        for item in &file.items {
            match item {
                ast::Item::Type(t) => types.push(self.type_def(t)),
                ast::Item::Enum(e) => types.push(self.enum_def(e)),
                // Imports are resolved before the check (`modules`).
                ast::Item::Import(_) => {}
                ast::Item::Tool(t) => {
                    if let Some(first) = tool_names.get(&t.name.text) {
                        let first = *first;
                        self.error(duplicate("tool", &t.name.text, t.name.span, first));
                    } else {
                        tool_names.insert(t.name.text.clone(), t.name.span);
                    }
                    tools.push(self.tool_def(t));
                }
            }
        }
        let mut module = Module { tools, types };

        // Whole-module analyses.
        // The reference graph's components, each after every component it reaches: both the
        // recursion marks and the inlined sizes read them.
        let refs = references(&module, crate::shape::refs);
        let unguarded = references(&module, unguarded_refs);
        let components = strongly_connected(&refs);
        self.recursion(&mut module, file, &refs, &unguarded, &components);
        self.depth(&module);
        // Values are checked by the validator, which a chain of unions too deep would take
        // past the stack: with one, they wait until it is fixed.
        let too_deep = self.union_depth(&module, file, &unguarded);
        // All at once: the types are compiled together, so a named type used by many fields
        // with defaults is compiled once, not once a default.
        let mut pending = std::mem::take(&mut self.pending);
        if too_deep {
            pending.clear();
        }
        let checks = pending
            .iter()
            .flat_map(|p| p.values.iter().map(move |(value, ..)| (&p.ty, value)));
        let problems = validate::first_violations(&module, checks);
        let values = pending
            .iter()
            .flat_map(|p| p.values.iter().map(move |v| (&p.ty, v)));
        for ((ty, (value, span, code)), problem) in values.zip(problems) {
            let Some(problem) = problem else { continue };
            let what = if *code == Code::InvalidDefault {
                "default"
            } else {
                "example"
            };
            let mut d = Diagnostic::error(
                *code,
                *span,
                format!("the {what} does not fit the type: {problem}"),
            )
            .with_label(format!("invalid {what}"));
            // A string that none of the listed strings is: the closest of them.
            let mut listed = Vec::new();
            if let Value::String(sent) = value {
                if listed_strings(&module, ty, &mut listed, 0) {
                    if let Some(s) = self.suggestions.did_you_mean(sent, listed.iter().copied()) {
                        d = d
                            .with_help(format!("did you mean \"{s}\"?"))
                            .with_replacement(*span, sent, s, crate::syntax::quote(s));
                    }
                }
            }
            self.error(d);
        }
        module
    }

    // -----------------------------------------------------------------------------------------
    // Items

    fn tool_def(&mut self, t: &ast::ToolDef) -> Tool {
        self.tool_name(&t.name);
        let description = match self.description(t.doc.as_ref()) {
            Some(d) => d,
            None => {
                self.error(
                    Diagnostic::error(
                        Code::MissingDescription,
                        t.name.span,
                        format!("tool `{}` has no description", t.name.text),
                    )
                    .with_label("no `///` description")
                    .with_help("add a `///` doc comment above the tool saying what it does and when to call it; models choose tools by their descriptions"),
                );
                String::new()
            }
        };
        let params = self.object(&t.params);
        let mut tool = Tool {
            output: t.output.as_ref().map(|o| self.ty(o)),
            span: t.name.span,
            ..Tool::new(t.name.text.clone(), description, params)
        };
        self.tool_attributes(&mut tool, &t.attrs);
        if !allows(&t.attrs, Code::UndescribedField) {
            for f in &t.params.fields {
                if f.doc.is_none() {
                    self.error(
                        Diagnostic::warning(
                            Code::UndescribedField,
                            f.name.span,
                            format!(
                                "parameter `{}` of tool `{}` has no description",
                                f.name.text, t.name.text
                            ),
                        )
                        .with_label("no `///` description")
                        .with_help("add a `///` doc comment above the parameter saying what the model should put there; `@allow(undescribed-field)` on the tool turns this warning off"),
                    );
                }
            }
        }
        tool
    }

    fn type_def(&mut self, t: &ast::TypeDef) -> NamedType {
        let description = self.description(t.doc.as_ref());
        let mut ty = self.ty(&t.body);
        let deprecated = self.item_attributes(&t.attrs, Some(&mut ty));
        // An alias that comes out as an object with fields (`{ a: T } | { a: T }`, one member
        // once repeats are dropped) is that object type: the form it prints and reads back as.
        let object = matches!(&ty, Ty::Object(o) if !o.is_map());
        let kind = if object || matches!(t.body.kind, TypeKind::Object(_)) {
            NamedKind::Object
        } else {
            NamedKind::Alias
        };
        NamedType {
            name: t.name.text.clone(),
            kind,
            description,
            ty,
            recursive: false,
            deprecated,
            span: t.span,
        }
    }

    fn enum_def(&mut self, e: &ast::EnumDef) -> NamedType {
        let description = self.description(e.doc.as_ref());
        let deprecated = self.item_attributes(&e.attrs, None);
        let mut members: Vec<EnumMember> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        let mut seen = validate::Positions::with_capacity(e.members.len());
        for m in &e.members {
            let value = match &m.value {
                ast::EnumValue::Ident(s) | ast::EnumValue::String(s) => Value::String(s.clone()),
                ast::EnumValue::Integer(lexeme) => match self.number(lexeme, m.span) {
                    Some(n) => Value::Number(n),
                    None => continue,
                },
            };
            if let Some(i) = seen.insert(&value, members.len(), |i| &members[i].value) {
                self.error(duplicate(
                    "enum value",
                    &value.to_string(),
                    m.span,
                    spans[i],
                ));
                continue;
            }
            spans.push(m.span);
            members.push(EnumMember {
                value,
                description: self.description(m.doc.as_ref()),
            });
        }
        if let Some(folded) = enum_folding(&members) {
            for (m, span) in members.iter().zip(&spans) {
                self.folded_value(&m.value, *span, folded);
            }
        }
        if e.members.is_empty() {
            self.error(
                Diagnostic::error(
                    Code::InvalidRange,
                    e.name.span,
                    format!("enum `{}` has no values", e.name.text),
                )
                .with_label("empty enum")
                .with_help(
                    "an enum needs at least one value; no argument could ever match an empty one",
                ),
            );
        }
        NamedType {
            name: e.name.text.clone(),
            kind: NamedKind::Enum,
            description,
            ty: Ty::Enum(members),
            recursive: false,
            deprecated,
            span: e.span,
        }
    }
}

/// Whether every string `ty` takes is one of a list (an enum's, string literals', through
/// unions, names ([`Module::resolve`]) and `null`; types that take no string add nothing): its strings are then added
/// to `out`, the candidates of a "did you mean" for a string it does not take.
fn listed_strings<'a>(
    module: &'a Module,
    ty: &'a Ty,
    out: &mut Vec<&'a str>,
    depth: usize,
) -> bool {
    // Unions and nullable types nest at most `MAX_UNION_DEPTH` deep in a checked module.
    if depth > MAX_UNION_DEPTH {
        return false;
    }
    match module.resolve(ty) {
        Ty::Const(v) => {
            out.extend(v.as_str());
            true
        }
        Ty::Enum(members) => {
            out.extend(members.iter().filter_map(|m| m.value.as_str()));
            true
        }
        Ty::String(_) | Ty::Any => false,
        Ty::Nullable(inner) => listed_strings(module, inner, out, depth + 1),
        Ty::AnyOf(members) => members
            .iter()
            .all(|m| listed_strings(module, m, out, depth + 1)),
        // Left only by an alias cycle, which the checker rejects.
        Ty::Ref(_) => false,
        Ty::Never
        | Ty::Null
        | Ty::Boolean
        | Ty::Integer(_)
        | Ty::Number(_)
        | Ty::Array(_)
        | Ty::Tuple(_)
        | Ty::Object(_) => true,
    }
}

/// Whether an item's `@allow(...)` names the lint `code` (checked by the attribute's own rule).
fn allows(attrs: &[ast::Attribute], code: Code) -> bool {
    attrs.iter().filter(|a| a.name.text == "allow").any(|a| {
        a.args()
            .iter()
            .any(|arg| matches!(&arg.value, ast::AttrValue::Word(w) if w.text == code.as_str()))
    })
}
