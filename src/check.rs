//! Checking: the syntax tree → the compiled [`Module`], with every semantic error of the file
//! reported as a [`Diagnostic`] (never only the first).
//!
//! The checks are small methods on [`Checker`], one per construct, run in one pass over the
//! items; whole-module analyses (recursion, depth, defaults) run after it.

use std::collections::{HashMap, HashSet};

use serde_json::{Number, Value};

use crate::ast::{self, AttrValue, Attribute, TypeExpr, TypeKind, ValueKind};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::emit::{self, fold::Folded};
use crate::hidden;
use crate::model::*;
use crate::suggest::did_you_mean;
use crate::validate;

/// The deepest schema a tool may have once named types are inlined (objects, arrays and unions
/// each count one level).
pub const MAX_SCHEMA_DEPTH: usize = 40;

/// The deepest a literal value (`= default`, `@example`, `@meta`) may nest.
pub const MAX_VALUE_DEPTH: usize = 32;

/// The most subschemas a tool's schema may have once named types are inlined.
pub const MAX_SCHEMA_NODES: usize = 20_000;

/// Built-in type names; a named type may not reuse them.
pub(crate) const BUILTIN_TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "any", "null", "never",
];

const NUMBER_CONSTRAINTS: &[&str] = &[
    "min",
    "max",
    "exclusive_min",
    "exclusive_max",
    "multiple_of",
];
const STRING_CONSTRAINTS: &[&str] = &["min_length", "max_length", "pattern", "format"];
const ARRAY_CONSTRAINTS: &[&str] = &["min_items", "max_items", "unique"];
const FIELD_ANNOTATIONS: &[&str] = &["deprecated", "example"];
const TOOL_ATTRIBUTES: &[&str] = &[
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
    "meta",
    "scope",
    "deprecated",
    "formats",
];
const TYPE_ATTRIBUTES: &[&str] = &["deprecated"];

/// The help of every `forbidden-character` error.
const HIDDEN_HELP: &str = "control, zero-width, bidirectional-override and Unicode tag characters can hide instructions from reviewers; remove it";

/// Checks a parsed file. Returns the module when there are no errors; the diagnostics (errors
/// and warnings, in source order) either way.
pub(crate) fn check(file: &ast::File) -> (Option<Module>, Vec<Diagnostic>) {
    let mut checker = Checker::default();
    let module = checker.module(file);
    let mut diags = checker.diags;
    diags.sort_by_key(|d| (d.span.start, d.span.end));
    if diags.iter().any(Diagnostic::is_error) {
        (None, diags)
    } else {
        (Some(module), diags)
    }
}

/// A value to check against a type once the whole module is known.
struct Pending {
    ty: Ty,
    value: Value,
    span: Span,
    code: Code,
}

#[derive(Default)]
struct Checker {
    diags: Vec<Diagnostic>,
    /// Named types and enums by name, with the span of the definition's name.
    names: HashMap<String, (TypeId, Span)>,
    pending: Vec<Pending>,
}

impl Checker {
    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn module(&mut self, file: &ast::File) -> Module {
        // Pass 1: names of types and enums.
        let mut next = 0;
        for item in &file.items {
            let name = match item {
                ast::Item::Type(t) => &t.name,
                ast::Item::Enum(e) => &e.name,
                ast::Item::Tool(_) => continue,
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
        let refs: Vec<Vec<usize>> = module
            .types
            .iter()
            .map(|t| {
                let mut out = Vec::new();
                collect_refs(&t.ty, &mut out);
                out
            })
            .collect();
        let components = strongly_connected(&refs);
        self.recursion(&mut module, file, &refs, &components);
        self.depth(&module);
        for p in std::mem::take(&mut self.pending) {
            if let Some(problem) = validate::first_violation(&module, &p.ty, &p.value) {
                let what = if p.code == Code::InvalidDefault {
                    "default"
                } else {
                    "example"
                };
                self.error(
                    Diagnostic::error(
                        p.code,
                        p.span,
                        format!("the {what} does not fit the type: {problem}"),
                    )
                    .with_label(format!("invalid {what}")),
                );
            }
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
        tool
    }

    fn tool_name(&mut self, name: &ast::Name) {
        let ok = !name.text.is_empty()
            && name.text.len() <= 128
            && name
                .text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !ok {
            let rule = "tool names are 1 to 128 characters from A-Z, a-z, 0-9, `_`, `-` and `.`";
            // A hidden character is named, so that the message shows what the source does not.
            let help = match hidden::find(&name.text, hidden::Text::Line) {
                Some(h) => format!(
                    "{rule}; this one contains the invisible or control character {} ({})",
                    h.code_point(),
                    h.class.describe()
                ),
                None => rule.to_string(),
            };
            self.error(
                Diagnostic::error(
                    Code::InvalidName,
                    name.span,
                    format!("`{}` is not a valid tool name", hidden::reveal(&name.text)),
                )
                .with_label("invalid tool name")
                .with_help(help),
            );
        }
    }

    fn type_def(&mut self, t: &ast::TypeDef) -> NamedType {
        let description = self.description(t.doc.as_ref());
        let deprecated = self.item_attributes(&t.attrs);
        let kind = if matches!(t.body.kind, TypeKind::Object(_)) {
            NamedKind::Object
        } else {
            NamedKind::Alias
        };
        NamedType {
            name: t.name.text.clone(),
            kind,
            description,
            ty: self.ty(&t.body),
            recursive: false,
            deprecated,
            span: t.span,
        }
    }

    fn enum_def(&mut self, e: &ast::EnumDef) -> NamedType {
        let description = self.description(e.doc.as_ref());
        let deprecated = self.item_attributes(&e.attrs);
        let mut members: Vec<EnumMember> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for m in &e.members {
            let value = match &m.value {
                ast::EnumValue::Ident(s) | ast::EnumValue::String(s) => Value::String(s.clone()),
                ast::EnumValue::Integer(lexeme) => match self.number(lexeme, m.span) {
                    Some(n) => Value::Number(n),
                    None => continue,
                },
            };
            if let Some(i) = members
                .iter()
                .position(|x| validate::json_equal(&x.value, &value))
            {
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

    /// The description from a doc comment, checked for forbidden characters; `None` when absent
    /// or blank.
    fn description(&mut self, doc: Option<&ast::Doc>) -> Option<String> {
        let doc = doc?;
        if doc.text.trim().is_empty() {
            return None;
        }
        self.shown_text(&doc.text, doc.span, "description");
        Some(doc.text.clone())
    }

    /// Rejects characters that hide text from a human reviewer but not from a model (a guard
    /// against tool poisoning; the rule is [`crate::hidden`]).
    fn shown_text(&mut self, text: &str, span: Span, what: &str) {
        let kind = if what == "description" {
            hidden::Text::Prose
        } else {
            hidden::Text::Line
        };
        if let Some(h) = hidden::find(text, kind) {
            self.error(
                Diagnostic::error(
                    Code::ForbiddenCharacter,
                    span,
                    format!(
                        "{what} contains the invisible or control character {}",
                        h.code_point()
                    ),
                )
                .with_label("forbidden character")
                .with_help(HIDDEN_HELP),
            );
        }
    }

    /// Rejects hidden characters in the strings of a value (a default, an example, an enum
    /// value) that targets write into a description as JSON, where the model reads it as text.
    /// A value no target folds is data, and stays exempt.
    fn folded_value(&mut self, value: &Value, span: Span, folded: Folded) {
        let targets = emit::fold::folding_targets(folded);
        if targets.is_empty() {
            return;
        }
        let Some((inside, h)) = hidden::find_in_value(value) else {
            return;
        };
        let what = folded.noun();
        let at = if inside.is_empty() {
            String::new()
        } else {
            format!(" (at {inside} in the value)")
        };
        let names: Vec<&str> = targets.iter().map(|t| t.as_str()).collect();
        self.error(
            Diagnostic::error(
                Code::ForbiddenCharacter,
                span,
                format!(
                    "{what} contains the invisible or control character {}{at}",
                    h.code_point()
                ),
            )
            .with_label("forbidden character")
            .with_help(format!(
                "this {what} is folded into the description by targets {}, where the model reads it; {HIDDEN_HELP}",
                names.join(", ")
            )),
        );
    }

    // -----------------------------------------------------------------------------------------
    // Attributes

    /// The attributes of a `type` or `enum`; returns whether it is deprecated.
    fn item_attributes(&mut self, attrs: &[Attribute]) -> bool {
        let mut seen = Vec::new();
        let mut deprecated = false;
        for a in attrs {
            if !self.first_time(&mut seen, a) {
                continue;
            }
            match a.name.text.as_str() {
                "deprecated" => deprecated = self.flag(a).unwrap_or(true),
                _ => self.unknown_attribute(a, TYPE_ATTRIBUTES, "types and enums"),
            }
        }
        deprecated
    }

    fn tool_attributes(&mut self, tool: &mut Tool, attrs: &[Attribute]) {
        let mut seen = Vec::new();
        for a in attrs {
            if !self.first_time(&mut seen, a) {
                continue;
            }
            match a.name.text.as_str() {
                "title" => {
                    if let Some(s) = self.string_arg(a) {
                        self.shown_text(&s, a.span, "title");
                        tool.title = Some(s);
                    }
                }
                "read_only" => tool.hints.read_only = self.flag(a),
                "destructive" => tool.hints.destructive = self.flag(a),
                "idempotent" => tool.hints.idempotent = self.flag(a),
                "open_world" => tool.hints.open_world = self.flag(a),
                "requires_approval" => tool.requires_approval = self.flag(a).unwrap_or(true),
                "deprecated" => tool.deprecated = self.flag(a).unwrap_or(true),
                "strict" | "lax" => {
                    self.no_args(a);
                    let mode = if a.name.text == "strict" {
                        Mode::Strict
                    } else {
                        Mode::Lax
                    };
                    let other = if mode == Mode::Strict {
                        "lax"
                    } else {
                        "strict"
                    };
                    if let Some(&(_, first)) = seen.iter().find(|(n, _)| *n == other) {
                        self.error(
                            Diagnostic::error(
                                Code::ConflictingAttributes,
                                a.span,
                                "a tool cannot be both `@strict` and `@lax`",
                            )
                            .with_label("conflicts")
                            .with_related(first, "the other mode is set here")
                            .with_help("keep one of them"),
                        );
                    }
                    tool.mode = Some(mode);
                }
                "on_error" => {
                    tool.on_error = match self.word_arg(a, &["raise", "suppress"]).as_deref() {
                        Some("raise") => Some(OnError::Raise),
                        Some("suppress") => Some(OnError::Suppress),
                        _ => None,
                    }
                }
                "retry" => tool.retry = self.retry(a),
                "formats" => {
                    tool.formats = match self.word_arg(a, &["assert", "annotate"]).as_deref() {
                        Some("annotate") => Formats::Annotate,
                        _ => Formats::Assert,
                    }
                }
                "scope" => {
                    tool.scope = match self.single_arg(a).map(|x| &x.value) {
                        Some(AttrValue::Word(w)) => Some(w.text.clone()),
                        Some(AttrValue::Value(ast::Value {
                            kind: ValueKind::String(s),
                            span,
                        })) => {
                            self.shown_text(s, *span, "scope");
                            Some(s.clone())
                        }
                        Some(v) => {
                            self.bad_arg(v.span(), "`@scope` takes a name, e.g. `@scope(admin)`");
                            None
                        }
                        None => None,
                    }
                }
                "meta" => {
                    for arg in a.args() {
                        let Some(key) = &arg.name else {
                            self.bad_arg(arg.span, "`@meta` takes named arguments, e.g. `@meta(owner: \"search-team\")`");
                            continue;
                        };
                        let value = match &arg.value {
                            AttrValue::Word(w) => Some(Value::String(w.text.clone())),
                            AttrValue::Value(v) => self.value(v),
                        };
                        if let Some(value) = value {
                            // A repeated key is reported with the attribute's arguments.
                            tool.meta.insert(key.text.clone(), value);
                        }
                    }
                }
                _ => self.unknown_attribute(a, TOOL_ATTRIBUTES, "tools"),
            }
        }
        if tool.hints.read_only == Some(true) && tool.hints.destructive == Some(true) {
            let span = attrs
                .iter()
                .find(|a| a.name.text == "destructive")
                .map_or(tool.span, |a| a.span);
            self.error(
                Diagnostic::error(
                    Code::ConflictingAttributes,
                    span,
                    "a read-only tool cannot be destructive",
                )
                .with_label("conflicts with `@read_only`")
                .with_help(
                    "remove `@destructive`, or `@read_only` if the tool changes its environment",
                ),
            );
        }
    }

    fn retry(&mut self, a: &Attribute) -> Option<Retry> {
        let mut retry = Retry {
            times: 1,
            wait: Wait::Fixed(0.0),
            base: 1.0,
        };
        let mut ok = true;
        for arg in a.args() {
            let key = arg.name.as_ref().map(|n| n.text.as_str());
            match (key, &arg.value) {
                (Some("times"), AttrValue::Value(v)) => {
                    match self.value(v).as_ref().and_then(Value::as_u64) {
                        Some(n) if n <= u64::from(u32::MAX) => retry.times = n as u32,
                        _ => {
                            self.bad_arg(
                                v.span,
                                "`times` is a whole number of retries, e.g. `times: 3`",
                            );
                            ok = false;
                        }
                    }
                }
                (Some("wait"), AttrValue::Word(w)) if w.text == "linear" => {
                    retry.wait = Wait::Linear
                }
                (Some("wait"), AttrValue::Word(w)) if w.text == "exponential" => {
                    retry.wait = Wait::Exponential
                }
                (Some("wait"), AttrValue::Value(v))
                    if non_negative(self.value(v).as_ref()).is_some() =>
                {
                    retry.wait = Wait::Fixed(non_negative(self.value(v).as_ref()).unwrap_or(0.0));
                }
                (Some("wait"), v) => {
                    self.bad_arg(
                        v.span(),
                        "`wait` is `linear`, `exponential` or a number of seconds",
                    );
                    ok = false;
                }
                (Some("base"), AttrValue::Value(v))
                    if non_negative(self.value(v).as_ref()).is_some() =>
                {
                    retry.base = non_negative(self.value(v).as_ref()).unwrap_or(1.0);
                }
                (Some("base"), v) => {
                    self.bad_arg(v.span(), "`base` is a number of seconds, e.g. `base: 1.0`");
                    ok = false;
                }
                _ => {
                    self.bad_arg(arg.span, "`@retry` takes `times: N`, `wait: linear | exponential | SECONDS` and `base: SECONDS`");
                    ok = false;
                }
            }
        }
        ok.then_some(retry)
    }

    /// Records an attribute; reports it when it was already given. Returns whether it is new.
    /// Whether `a` is the first attribute of its name in `seen` (a list: items have few
    /// attributes, and a scan is cheaper than hashing); reports a repeat otherwise, and repeated
    /// argument names.
    fn first_time<'a>(&mut self, seen: &mut Vec<(&'a str, Span)>, a: &'a Attribute) -> bool {
        if let Some(&(_, first)) = seen.iter().find(|(n, _)| *n == a.name.text) {
            self.error(
                Diagnostic::error(
                    Code::DuplicateAttribute,
                    a.span,
                    format!("`@{}` is given twice", a.name.text),
                )
                .with_label("duplicate attribute")
                .with_related(first, "first given here"),
            );
            return false;
        }
        seen.push((&a.name.text, a.span));
        let mut names: Vec<(&str, Span)> = Vec::new();
        for arg in a.args() {
            let Some(n) = &arg.name else { continue };
            // The latest earlier one, as a map that kept the last span would report.
            let repeated = names
                .iter()
                .rev()
                .find(|(t, _)| *t == n.text)
                .map(|&(_, s)| s);
            names.push((&n.text, n.span));
            if let Some(first) = repeated {
                self.error(
                    Diagnostic::error(
                        Code::InvalidAttributeArgument,
                        n.span,
                        format!("argument `{}` is given twice", n.text),
                    )
                    .with_label("repeated argument")
                    .with_related(first, "first given here"),
                );
            }
        }
        true
    }

    fn unknown_attribute(&mut self, a: &Attribute, known: &[&str], applies_to: &str) {
        let name = a.name.text.as_str();
        let mut d = Diagnostic::error(
            Code::UnknownAttribute,
            a.name.span,
            format!("unknown attribute `@{name}` for {applies_to}"),
        )
        .with_label("unknown attribute");
        let all = NUMBER_CONSTRAINTS
            .iter()
            .chain(STRING_CONSTRAINTS)
            .chain(ARRAY_CONSTRAINTS)
            .chain(FIELD_ANNOTATIONS)
            .chain(TOOL_ATTRIBUTES);
        if let Some(s) = did_you_mean(name, known.iter().copied()) {
            d = d.with_help(format!("did you mean `@{s}`?"));
        } else if all.clone().any(|k| *k == name) {
            d = d.with_help(format!(
                "`@{name}` is not used on {applies_to}; the attributes here are {}",
                list(known)
            ));
        } else if let Some(s) = did_you_mean(name, all.copied()) {
            d = d.with_help(format!(
                "did you mean `@{s}`? (it does not apply to {applies_to})"
            ));
        } else {
            d = d.with_help(format!(
                "the attributes for {applies_to} are {}",
                list(known)
            ));
        }
        self.error(d);
    }

    fn bad_arg(&mut self, span: Span, message: &str) {
        self.error(
            Diagnostic::error(Code::InvalidAttributeArgument, span, message.to_string())
                .with_label("invalid argument"),
        );
    }

    fn no_args(&mut self, a: &Attribute) {
        if a.args.is_some() {
            self.bad_arg(a.span, &format!("`@{}` takes no arguments", a.name.text));
        }
    }

    /// A flag: `@x` is true, `@x(true)` / `@x(false)` say so explicitly.
    fn flag(&mut self, a: &Attribute) -> Option<bool> {
        match a.args() {
            [] => Some(true),
            [arg] if arg.name.is_none() => match &arg.value {
                AttrValue::Value(ast::Value {
                    kind: ValueKind::Bool(b),
                    ..
                }) => Some(*b),
                v => {
                    self.bad_arg(
                        v.span(),
                        &format!("`@{}` takes `true`, `false` or nothing", a.name.text),
                    );
                    None
                }
            },
            _ => {
                self.bad_arg(
                    a.span,
                    &format!("`@{}` takes `true`, `false` or nothing", a.name.text),
                );
                None
            }
        }
    }

    /// The one positional argument of an attribute.
    fn single_arg<'a>(&mut self, a: &'a Attribute) -> Option<&'a ast::AttrArg> {
        match a.args() {
            [arg] if arg.name.is_none() => Some(arg),
            _ => {
                self.bad_arg(
                    a.span,
                    &format!("`@{}` takes exactly one argument", a.name.text),
                );
                None
            }
        }
    }

    fn string_arg(&mut self, a: &Attribute) -> Option<String> {
        match &self.single_arg(a)?.value {
            AttrValue::Value(ast::Value {
                kind: ValueKind::String(s),
                ..
            }) => Some(s.clone()),
            v => {
                self.bad_arg(
                    v.span(),
                    &format!("`@{}` takes a string in double quotes", a.name.text),
                );
                None
            }
        }
    }

    fn word_arg(&mut self, a: &Attribute, words: &[&str]) -> Option<String> {
        let arg = self.single_arg(a)?;
        let text = match &arg.value {
            AttrValue::Word(w) => Some(w.text.clone()),
            AttrValue::Value(ast::Value {
                kind: ValueKind::String(s),
                ..
            }) => Some(s.clone()),
            _ => None,
        };
        match text {
            Some(t) if words.contains(&t.as_str()) => Some(t),
            _ => {
                self.bad_arg(
                    arg.value.span(),
                    &format!("`@{}` takes one of {}", a.name.text, list(words)),
                );
                None
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Values

    /// Converts a literal value, reporting numbers out of range and too deep nesting.
    fn value(&mut self, v: &ast::Value) -> Option<Value> {
        self.value_at(v, 0)
    }

    /// `depth` counts the arrays and objects around `v`.
    fn value_at(&mut self, v: &ast::Value, depth: usize) -> Option<Value> {
        let container = matches!(v.kind, ValueKind::Array(_) | ValueKind::Object(_));
        if container && depth >= MAX_VALUE_DEPTH {
            self.error(
                Diagnostic::error(
                    Code::NestingTooDeep,
                    v.span,
                    format!("values nest deeper than {MAX_VALUE_DEPTH} levels"),
                )
                .with_label("too deep"),
            );
            return None;
        }
        Some(match &v.kind {
            ValueKind::Null => Value::Null,
            ValueKind::Bool(b) => Value::Bool(*b),
            ValueKind::Number(lexeme) => Value::Number(self.number(lexeme, v.span)?),
            ValueKind::String(s) => Value::String(s.clone()),
            ValueKind::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.value_at(item, depth + 1)?);
                }
                Value::Array(out)
            }
            ValueKind::Object(entries) => {
                let mut out = serde_json::Map::new();
                for (key, item) in entries {
                    let value = self.value_at(item, depth + 1)?;
                    if out.insert(key.text.clone(), value).is_some() {
                        self.error(
                            Diagnostic::error(
                                Code::DuplicateName,
                                key.span,
                                format!("key `{}` appears twice in this object", key.text),
                            )
                            .with_label("duplicate key"),
                        );
                    }
                }
                Value::Object(out)
            }
        })
    }

    fn number(&mut self, lexeme: &str, span: Span) -> Option<Number> {
        let integral = !lexeme.contains(['.', 'e', 'E']);
        if integral {
            if let Ok(n) = lexeme.parse::<i64>() {
                return Some(Number::from(n));
            }
            if let Ok(n) = lexeme.parse::<u64>() {
                return Some(Number::from(n));
            }
        }
        match lexeme.parse::<Number>() {
            Ok(n) if integral && !(n.is_i64() || n.is_u64()) => {
                self.error(
                    Diagnostic::error(
                        Code::InvalidNumber,
                        span,
                        format!("the integer {lexeme} does not fit in 64 bits"),
                    )
                    .with_label("out of range")
                    .with_help("integers range from -9223372036854775808 to 18446744073709551615"),
                );
                None
            }
            Ok(n) => Some(n),
            Err(_) => {
                self.error(
                    Diagnostic::error(
                        Code::InvalidNumber,
                        span,
                        format!("the number {lexeme} is out of range"),
                    )
                    .with_label("out of range")
                    .with_help("numbers must be finite 64-bit floating-point values"),
                );
                None
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Types

    fn object(&mut self, body: &ast::ObjectBody) -> ObjectTy {
        let mut fields: Vec<Field> = Vec::new();
        let mut seen: HashMap<&str, Span> = HashMap::with_capacity(body.fields.len());
        for f in &body.fields {
            if let Some(&first) = seen.get(f.name.text.as_str()) {
                self.error(duplicate("field", &f.name.text, f.name.span, first));
                continue;
            }
            let field = self.field(f);
            seen.insert(&f.name.text, field.span);
            fields.push(field);
        }
        let additional = match (&body.rest, body.open) {
            (Some(rest), _) => Additional::Schema(self.ty(rest)),
            (None, Some(_)) => Additional::Open,
            (None, None) => Additional::Closed,
        };
        ObjectTy { fields, additional }
    }

    fn tuple(&mut self, t: &ast::TupleExpr) -> Ty {
        let mut items = Vec::with_capacity(t.items.len());
        let mut required = 0;
        let mut first_optional: Option<Span> = None;
        for item in &t.items {
            items.push(self.ty(&item.ty));
            match (item.optional, first_optional) {
                (true, None) => first_optional = Some(item.span),
                (false, None) => required += 1,
                (false, Some(optional)) => self.error(
                    Diagnostic::error(
                        Code::TupleOrder,
                        item.span,
                        "a required tuple item comes after an optional one",
                    )
                    .with_label("required")
                    .with_related(optional, "optional")
                    .with_help("items may be left off only from the end: put the required items first, or mark this one `?` too"),
                ),
                (true, Some(_)) => {}
            }
        }
        let rest = match (&t.rest, t.open) {
            (Some(rest), _) => Additional::Schema(self.ty(rest)),
            (None, Some(_)) => Additional::Open,
            (None, None) => Additional::Closed,
        };
        // A closed tuple of literals is exactly one array value: `[1, "a"]` is the literal
        // `[1, "a"]` (so that unions of them become enums, and schemas say `const`).
        if rest == Additional::Closed && required == items.len() {
            let values: Option<Vec<Value>> = items
                .iter()
                .map(|i| match i {
                    Ty::Const(v) => Some(v.clone()),
                    Ty::Null => Some(Value::Null),
                    _ => None,
                })
                .collect();
            if let Some(values) = values {
                return Ty::Const(Value::Array(values));
            }
        }
        Ty::Tuple(Box::new(TupleTy {
            items,
            required,
            rest,
            min_items: None,
            max_items: None,
            unique: None,
        }))
    }

    fn field(&mut self, f: &ast::Field) -> Field {
        if f.name.text.is_empty() {
            self.error(
                Diagnostic::error(
                    Code::InvalidName,
                    f.name.span,
                    "a field name cannot be empty",
                )
                .with_label("empty name"),
            );
        }
        self.shown_text(&f.name.text, f.name.span, "field name");
        let ty = self.ty(&f.ty);
        let mut field = Field {
            name: f.name.text.clone(),
            description: self.description(f.doc.as_ref()),
            required: !f.optional,
            ty,
            default: None,
            examples: Vec::new(),
            deprecated: false,
            span: f.name.span,
        };
        let mut seen = Vec::new();
        for a in &f.annotations {
            match a.name.text.as_str() {
                "deprecated" => {
                    if self.first_time(&mut seen, a) {
                        field.deprecated = self.flag(a).unwrap_or(true);
                    }
                }
                "example" => {
                    if let Some(arg) = self.single_arg(a) {
                        let value = match &arg.value {
                            AttrValue::Value(v) => self.value(v),
                            AttrValue::Word(w) => {
                                self.bad_arg(w.span, "`@example` takes a value; write strings in double quotes");
                                None
                            }
                        };
                        if let Some(v) = value {
                            self.folded_value(&v, arg.span, Folded::Example);
                            self.pending.push(Pending {
                                ty: field.ty.clone(),
                                value: v.clone(),
                                span: arg.span,
                                code: Code::InvalidExample,
                            });
                            field.examples.push(v);
                        }
                    }
                }
                name if is_constraint(name) => self.error(
                    Diagnostic::error(
                        Code::AttributeNotApplicable,
                        a.span,
                        format!("the constraint `@{name}` comes after a field annotation"),
                    )
                    .with_label("misplaced constraint")
                    .with_help("write constraints right after the type, then `@deprecated` and `@example(...)`"),
                ),
                _ => self.unknown_attribute(a, FIELD_ANNOTATIONS, "fields"),
            }
        }
        if let Some(d) = &f.default {
            if !f.optional {
                self.error(
                    Diagnostic::error(
                        Code::DefaultOnRequired,
                        d.span,
                        format!(
                            "required field `{}` has a default, which can never apply",
                            f.name.text
                        ),
                    )
                    .with_label("default on a required field")
                    .with_help(format!("make the field optional: `{}?: ...`", f.name.text)),
                );
            }
            if let Some(v) = self.value(d) {
                self.folded_value(&v, d.span, Folded::Default);
                self.pending.push(Pending {
                    ty: field.ty.clone(),
                    value: v.clone(),
                    span: d.span,
                    code: Code::InvalidDefault,
                });
                field.default = Some(v);
            }
        }
        field
    }

    fn ty(&mut self, e: &TypeExpr) -> Ty {
        match &e.kind {
            TypeKind::Named(n) => self.named(n),
            TypeKind::Literal(v) => match self.value(v) {
                Some(value) => Ty::Const(value),
                None => Ty::Any,
            },
            TypeKind::Array(items) => Ty::Array(Box::new(ArrayTy {
                items: self.ty(items),
                min_items: None,
                max_items: None,
                unique: None,
            })),
            TypeKind::Map(values) => Ty::Object(Box::new(ObjectTy {
                fields: Vec::new(),
                additional: Additional::Schema(self.ty(values)),
            })),
            TypeKind::Object(body) => Ty::Object(Box::new(self.object(body))),
            TypeKind::Tuple(t) => self.tuple(t),
            TypeKind::Union(members) => self.union(e.span, members),
            TypeKind::Constrained(inner, attrs) => {
                let mut ty = self.ty(inner);
                self.constraints(&mut ty, inner.span, attrs);
                ty
            }
        }
    }

    fn named(&mut self, n: &ast::Name) -> Ty {
        match n.text.as_str() {
            "string" => Ty::String(StringRules::default()),
            "integer" => Ty::Integer(NumberRules::default()),
            "number" => Ty::Number(NumberRules::default()),
            "boolean" => Ty::Boolean,
            "any" => Ty::Any,
            "null" => Ty::Null,
            "never" => Ty::Never,
            name => {
                if let Some((id, _)) = self.names.get(name) {
                    return Ty::Ref(*id);
                }
                let mut d =
                    Diagnostic::error(Code::UnknownType, n.span, format!("unknown type `{name}`"))
                        .with_label("not defined");
                let candidates: Vec<&str> = BUILTIN_TYPES
                    .iter()
                    .copied()
                    .chain(self.names.keys().map(String::as_str))
                    .collect();
                let hint = match name {
                    "int" | "i32" | "i64" | "long" => Some("integer"),
                    "float" | "double" | "f64" | "f32" => Some("number"),
                    "bool" => Some("boolean"),
                    "str" | "String" | "text" => Some("string"),
                    _ => None,
                };
                if let Some(s) = hint.or_else(|| did_you_mean(name, candidates.iter().copied())) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                } else if name == "map" {
                    d = d.with_help("write `map<T>` for an object whose values are all of type T");
                } else {
                    d = d.with_help("define it with `type` or `enum`, or use a built-in type: string, integer, number, boolean, any, null");
                }
                self.error(d);
                Ty::Any
            }
        }
    }

    fn union(&mut self, span: Span, members: &[TypeExpr]) -> Ty {
        let mut nullable = false;
        let mut out: Vec<Ty> = Vec::new();
        let mut seen = crate::model::MemberSet::default();
        for m in members {
            let ty = self.ty(m);
            let parts = match ty {
                Ty::Null => {
                    if nullable {
                        self.redundant(m.span, "`null` appears twice in this union");
                    }
                    nullable = true;
                    continue;
                }
                Ty::Nullable(inner) => {
                    nullable = true;
                    vec![*inner]
                }
                Ty::AnyOf(inner) => inner,
                other => vec![other],
            };
            for part in parts {
                if seen.insert(&part) {
                    out.push(part);
                } else {
                    self.redundant(m.span, "this member repeats an earlier member of the union");
                }
            }
        }
        if out.contains(&Ty::Any) {
            self.redundant(
                span,
                "`any` in a union accepts every value, so the union is `any`",
            );
            return Ty::Any;
        }
        let ty = if !out.is_empty() && out.iter().all(|t| matches!(t, Ty::Const(_))) {
            let mut values: Vec<EnumMember> = Vec::new();
            let mut seen = crate::model::ValueSet::default();
            for t in out {
                if let Ty::Const(value) = t {
                    if !seen.insert(&value, false) {
                        self.redundant(span, "a literal appears twice in this union");
                    } else {
                        values.push(EnumMember {
                            value,
                            description: None,
                        });
                    }
                }
            }
            if let Some(folded) = enum_folding(&values) {
                for m in &values {
                    self.folded_value(&m.value, span, folded);
                }
            }
            Ty::Enum(values)
        } else if out.len() == 1 {
            out.pop().unwrap_or(Ty::Any)
        } else if out.is_empty() {
            Ty::Null
        } else {
            Ty::AnyOf(out)
        };
        if nullable && ty != Ty::Null {
            Ty::Nullable(Box::new(ty))
        } else {
            ty
        }
    }

    fn redundant(&mut self, span: Span, message: &str) {
        self.diags.push(
            Diagnostic::warning(Code::RedundantUnion, span, message.to_string())
                .with_label("redundant")
                .with_help("remove the repeated member"),
        );
    }

    fn constraints(&mut self, ty: &mut Ty, ty_span: Span, attrs: &[Attribute]) {
        let mut seen = Vec::new();
        for a in attrs {
            if !is_constraint(&a.name.text) {
                let known: Vec<&str> = applicable(ty).to_vec();
                let mut d = Diagnostic::error(
                    Code::UnknownAttribute,
                    a.name.span,
                    format!("unknown constraint `@{}`", a.name.text),
                )
                .with_label("unknown constraint");
                let all = NUMBER_CONSTRAINTS
                    .iter()
                    .chain(STRING_CONSTRAINTS)
                    .chain(ARRAY_CONSTRAINTS)
                    .chain(FIELD_ANNOTATIONS);
                if let Some(s) = did_you_mean(&a.name.text, known.iter().copied())
                    .or_else(|| did_you_mean(&a.name.text, all.copied()))
                {
                    d = d.with_help(format!("did you mean `@{s}`?"));
                } else if TOOL_ATTRIBUTES.contains(&a.name.text.as_str()) {
                    d = d.with_help(format!(
                        "`@{}` is a tool attribute; write it before `tool`",
                        a.name.text
                    ));
                } else if known.is_empty() {
                    d = d.with_help(format!("a {} takes no constraints", ty.kind_name()));
                } else {
                    d = d.with_help(format!(
                        "constraints for {} are {}",
                        ty.kind_name(),
                        list(&known)
                    ));
                }
                self.error(d);
                continue;
            }
            if !self.first_time(&mut seen, a) {
                continue;
            }
            self.constraint(ty, ty_span, a);
        }
        self.check_ranges(ty);
    }

    fn constraint(&mut self, ty: &mut Ty, ty_span: Span, a: &Attribute) {
        let name = a.name.text.as_str();
        let kind_name = ty.kind_name();
        let target: &mut Ty = match ty {
            Ty::Nullable(inner) => inner,
            other => other,
        };
        match (target, name) {
            (Ty::Integer(r) | Ty::Number(r), _) if NUMBER_CONSTRAINTS.contains(&name) => {
                let Some(n) = self.number_arg(a) else { return };
                let slot = match name {
                    "min" => &mut r.minimum,
                    "max" => &mut r.maximum,
                    "exclusive_min" => &mut r.exclusive_minimum,
                    "exclusive_max" => &mut r.exclusive_maximum,
                    _ => {
                        if n.as_f64().is_none_or(|x| x <= 0.0) {
                            self.error(
                                Diagnostic::error(
                                    Code::InvalidRange,
                                    a.span,
                                    "`@multiple_of` must be greater than 0",
                                )
                                .with_label("not positive"),
                            );
                            return;
                        }
                        &mut r.multiple_of
                    }
                };
                *slot = Some(Spanned::new(n, a.span));
            }
            (Ty::String(r), "min_length" | "max_length") => {
                let Some(n) = self.length_arg(a) else { return };
                let slot = if name == "min_length" {
                    &mut r.min_length
                } else {
                    &mut r.max_length
                };
                *slot = Some(Spanned::new(n, a.span));
            }
            (Ty::String(r), "pattern") => {
                let Some(p) = self.string_arg(a) else { return };
                if let Err(e) = crate::pattern::Pattern::new(&p) {
                    let mut d = Diagnostic::error(
                        Code::InvalidPattern,
                        a.span,
                        format!("invalid pattern: {}", first_line(&e.to_string())),
                    )
                    .with_label("invalid regular expression");
                    let text = e.to_string();
                    d = if text.contains("look-around") || text.contains("backreference") {
                        d.with_help("patterns use linear-time regular expressions (the `regex` crate's syntax): lookaround and backreferences are not supported")
                    } else {
                        d.with_help(format!("the regex engine says:\n{text}"))
                    };
                    self.error(d);
                    return;
                }
                r.pattern = Some(Spanned::new(p, a.span));
            }
            (Ty::String(r), "format") => {
                let Some(arg) = self.single_arg(a) else {
                    return;
                };
                let text = match &arg.value {
                    AttrValue::Word(w) => w.text.clone(),
                    AttrValue::Value(ast::Value {
                        kind: ValueKind::String(s),
                        ..
                    }) => s.clone(),
                    _ => String::new(),
                };
                match Format::from_name(&text) {
                    Some(f) => r.format = Some(Spanned::new(f, a.span)),
                    None => {
                        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
                        let mut d = Diagnostic::error(
                            Code::InvalidAttributeArgument,
                            arg.span,
                            format!("unknown format `{text}`"),
                        )
                        .with_label("unknown format");
                        d = match did_you_mean(&text, names.iter().copied()) {
                            Some(s) => d.with_help(format!("did you mean `{s}`?")),
                            None => d.with_help(format!("the formats are {}", list(&names))),
                        };
                        self.error(d);
                    }
                }
            }
            (Ty::Array(arr), "min_items" | "max_items") => {
                let Some(n) = self.length_arg(a) else { return };
                let slot = if name == "min_items" {
                    &mut arr.min_items
                } else {
                    &mut arr.max_items
                };
                *slot = Some(Spanned::new(n, a.span));
            }
            (Ty::Array(arr), "unique") => {
                if let Some(b) = self.flag(a) {
                    arr.unique = Some(Spanned::new(b, a.span));
                }
            }
            (Ty::Tuple(t), "min_items") => {
                let Some(n) = self.length_arg(a) else { return };
                // A minimum within the positional items makes them required: one spelling.
                match usize::try_from(n) {
                    Ok(k) if k <= t.items.len() => {
                        t.required = t.required.max(k);
                        t.min_items = None;
                    }
                    _ => t.min_items = Some(Spanned::new(n, a.span)),
                }
            }
            (Ty::Tuple(t), "max_items") => {
                let Some(n) = self.length_arg(a) else { return };
                t.max_items = Some(Spanned::new(n, a.span));
            }
            (Ty::Tuple(t), "unique") => {
                if let Some(b) = self.flag(a) {
                    t.unique = Some(Spanned::new(b, a.span));
                }
            }
            (target, _) => {
                let applies = if NUMBER_CONSTRAINTS.contains(&name) {
                    "integer and number"
                } else if STRING_CONSTRAINTS.contains(&name) {
                    "string"
                } else {
                    "arrays"
                };
                let mut d = Diagnostic::error(
                    Code::AttributeNotApplicable,
                    a.span,
                    format!(
                        "`@{name}` applies to {applies}, not to {}",
                        article(kind_name)
                    ),
                )
                .with_label(format!("not for {kind_name}"))
                .with_related(ty_span, format!("this is {}", article(kind_name)));
                let options = applicable(target);
                d = if matches!(target, Ty::Ref(_)) {
                    d.with_help("constraints on a named type go inside its definition")
                } else if options.is_empty() {
                    d.with_help(format!("{} takes no constraints", article(kind_name)))
                } else {
                    d.with_help(format!("constraints for {kind_name} are {}", list(options)))
                };
                self.error(d);
            }
        }
    }

    fn number_arg(&mut self, a: &Attribute) -> Option<Number> {
        let arg = self.single_arg(a)?;
        if let AttrValue::Value(
            v @ ast::Value {
                kind: ValueKind::Number(lexeme),
                ..
            },
        ) = &arg.value
        {
            return self.number(lexeme, v.span);
        }
        self.bad_arg(arg.span, &format!("`@{}` takes a number", a.name.text));
        None
    }

    fn length_arg(&mut self, a: &Attribute) -> Option<u64> {
        let arg = self.single_arg(a)?;
        if let AttrValue::Value(ast::Value {
            kind: ValueKind::Number(lexeme),
            ..
        }) = &arg.value
        {
            if let Ok(n) = lexeme.parse::<u64>() {
                return Some(n);
            }
            if lexeme.starts_with('-') {
                self.error(
                    Diagnostic::error(
                        Code::InvalidRange,
                        arg.span,
                        format!("`@{}` cannot be negative", a.name.text),
                    )
                    .with_label("negative length"),
                );
                return None;
            }
        }
        self.bad_arg(
            arg.span,
            &format!(
                "`@{}` takes a whole number, e.g. `@{}(1)`",
                a.name.text, a.name.text
            ),
        );
        None
    }

    fn check_ranges(&mut self, ty: &Ty) {
        let ty = match ty {
            Ty::Nullable(inner) => inner,
            other => other,
        };
        match ty {
            Ty::Integer(r) | Ty::Number(r) => {
                let lower = tighter(&r.minimum, &r.exclusive_minimum, true);
                let upper = tighter(&r.maximum, &r.exclusive_maximum, false);
                if let (Some((lo, lo_ex, lo_span)), Some((hi, hi_ex, hi_span))) = (lower, upper) {
                    if lo > hi || (lo == hi && (lo_ex || hi_ex)) {
                        self.error(
                            Diagnostic::error(
                                Code::InvalidRange,
                                hi_span,
                                "no number satisfies both bounds",
                            )
                            .with_label("upper bound")
                            .with_related(lo_span, "lower bound")
                            .with_help("the lower bound must be below the upper bound"),
                        );
                    }
                }
            }
            Ty::String(r) => {
                self.length_range(&r.min_length, &r.max_length, "min_length", "max_length")
            }
            Ty::Array(a) => self.length_range(&a.min_items, &a.max_items, "min_items", "max_items"),
            Ty::Tuple(t) => {
                if t.min_items.is_some() && t.max_items.is_some() {
                    self.length_range(&t.min_items, &t.max_items, "min_items", "max_items");
                } else if let (Some(max), Some(bound)) =
                    (t.max_len(), t.max_items.as_ref().or(t.min_items.as_ref()))
                {
                    if t.min_len() > max {
                        let (what, help) = if t.max_items.is_some() {
                            (
                                format!("`@max_items({max})` is below the {} required items of the tuple", t.min_len()),
                                "mark the items that may be left off with `?`, or raise `@max_items`",
                            )
                        } else {
                            (
                                format!("`@min_items({})` asks for more items than the closed tuple has ({max})", t.min_len()),
                                "open the tuple with `...` or `...: T`, or lower `@min_items`",
                            )
                        };
                        self.error(
                            Diagnostic::error(Code::InvalidRange, bound.span, what)
                                .with_label("no array fits")
                                .with_help(help),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    fn length_range(
        &mut self,
        min: &Option<Spanned<u64>>,
        max: &Option<Spanned<u64>>,
        lo: &str,
        hi: &str,
    ) {
        if let (Some(min), Some(max)) = (min, max) {
            if min.value > max.value {
                self.error(
                    Diagnostic::error(
                        Code::InvalidRange,
                        max.span,
                        format!("`@{hi}({})` is below `@{lo}({})`", max.value, min.value),
                    )
                    .with_label("upper bound")
                    .with_related(min.span, "lower bound")
                    .with_help(format!("`@{lo}` must not exceed `@{hi}`")),
                );
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Whole-module analyses

    /// Marks the named types that take part in a reference cycle, and rejects the cycles that
    /// no finite value can satisfy (every step through a required field or a non-empty array).
    fn recursion(
        &mut self,
        module: &mut Module,
        file: &ast::File,
        refs: &[Vec<usize>],
        components: &[Vec<usize>],
    ) {
        let n = module.types.len();
        let musts: Vec<Vec<usize>> = module
            .types
            .iter()
            .map(|t| must_contain(&t.ty).into_iter().map(|id| id.0).collect())
            .collect();
        for component in components {
            let cyclic = component.len() > 1 || refs[component[0]].contains(&component[0]);
            if cyclic {
                for &i in component {
                    module.types[i].recursive = true;
                }
            }
        }
        let name_spans: Vec<Span> = file
            .items
            .iter()
            .filter_map(|item| match item {
                ast::Item::Type(t) => Some(t.name.span),
                ast::Item::Enum(e) => Some(e.name.span),
                ast::Item::Tool(_) => None,
            })
            .collect();
        let mut reported = vec![false; n];
        for component in cycles(&musts) {
            let names = cycle_names(module, &component);
            for &i in &component {
                reported[i] = true;
                let span = name_spans.get(i).copied().unwrap_or(module.types[i].span);
                self.error(
                    Diagnostic::error(
                        Code::InfiniteRecursion,
                        span,
                        format!(
                            "type `{}` contains itself through required fields ({}), so no finite value fits it",
                            module.types[i].name,
                            names
                        ),
                    )
                    .with_label("infinitely recursive")
                    .with_help("break the cycle with an optional field (`name?: T`), a nullable type (`T | null`), an array (`T[]`) or a map"),
                );
            }
        }
        // `type A = A | string`: a reference to itself with nothing around it adds no value.
        let unguarded: Vec<Vec<usize>> = module
            .types
            .iter()
            .map(|t| {
                let mut out = Vec::new();
                collect_unguarded(&t.ty, &mut out);
                out
            })
            .collect();
        for component in cycles(&unguarded) {
            let names = cycle_names(module, &component);
            for &i in component.iter().filter(|&&i| !reported[i]) {
                let span = name_spans.get(i).copied().unwrap_or(module.types[i].span);
                self.error(
                    Diagnostic::error(
                        Code::InfiniteRecursion,
                        span,
                        format!(
                            "type `{}` is defined as a union containing itself ({}), which adds no value",
                            module.types[i].name,
                            names
                        ),
                    )
                    .with_label("refers to itself")
                    .with_help("a recursive type must nest itself inside an object, an array or a map; remove the self-reference from the union"),
                );
            }
        }
    }

    /// Rejects tools whose inlined schema nests deeper than [`MAX_SCHEMA_DEPTH`] or has more
    /// than [`MAX_SCHEMA_NODES`] schemas (a type used twice by each of 30 nested types inlines
    /// to 2^30 copies), counted as [`crate::shape`] says: through aliases, and with the body of
    /// every recursive type the tool reaches.
    fn depth(&mut self, module: &Module) {
        let shapes = crate::shape::Shapes::of(module);
        for tool in &module.tools {
            let shape = shapes.tool(module, tool);
            let (depth, size) = (shape.depth, shape.size);
            if depth > MAX_SCHEMA_DEPTH {
                self.error(
                    Diagnostic::error(
                        Code::SchemaTooDeep,
                        tool.span,
                        format!(
                            "the schema of tool `{}` nests {depth} levels deep once named types are inlined; the limit is {MAX_SCHEMA_DEPTH}",
                            tool.name
                        ),
                    )
                    .with_label("too deep")
                    .with_help("flatten the arguments (each alias in a chain counts as a level); models handle shallow schemas far better"),
                );
            } else if size > MAX_SCHEMA_NODES as u64 {
                self.error(
                    Diagnostic::error(
                        Code::SchemaTooLarge,
                        tool.span,
                        format!(
                            "the schema of tool `{}` has {} subschemas once named types are inlined; the limit is {MAX_SCHEMA_NODES}",
                            tool.name,
                            if size == u64::MAX { "too many".to_string() } else { size.to_string() }
                        ),
                    )
                    .with_label("too large")
                    .with_help("named types used many times are copied at every use, and a recursive type's body counts once; simplify the types"),
                );
            }
        }
    }
}

fn duplicate(what: &str, name: &str, span: Span, first: Span) -> Diagnostic {
    Diagnostic::error(
        Code::DuplicateName,
        span,
        format!("the {what} `{name}` is defined more than once"),
    )
    .with_label(format!("duplicate {what}"))
    .with_related(first, "first defined here")
    .with_help(format!(
        "rename or remove one of the two; {what} names must be unique"
    ))
}

fn is_constraint(name: &str) -> bool {
    NUMBER_CONSTRAINTS.contains(&name)
        || STRING_CONSTRAINTS.contains(&name)
        || ARRAY_CONSTRAINTS.contains(&name)
}

fn applicable(ty: &Ty) -> &'static [&'static str] {
    match ty {
        Ty::Integer(_) | Ty::Number(_) => NUMBER_CONSTRAINTS,
        Ty::String(_) => STRING_CONSTRAINTS,
        Ty::Array(_) | Ty::Tuple(_) => ARRAY_CONSTRAINTS,
        Ty::Nullable(inner) => applicable(inner),
        _ => &[],
    }
}

fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn article(kind: &str) -> String {
    if kind.starts_with("union") {
        return format!("a {kind}");
    }
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

fn first_line(s: &str) -> &str {
    s.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map_or_else(
            || s.lines().next().unwrap_or(s),
            |l| l.trim_start_matches("error:").trim(),
        )
}

fn non_negative(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
        .filter(|x| *x >= 0.0 && x.is_finite())
}

/// The tighter of an inclusive and an exclusive bound: (value, exclusive, span).
fn tighter(
    inclusive: &Option<Spanned<Number>>,
    exclusive: &Option<Spanned<Number>>,
    lower: bool,
) -> Option<(f64, bool, Span)> {
    let inc = inclusive
        .as_ref()
        .and_then(|b| Some((b.value.as_f64()?, false, b.span)));
    let exc = exclusive
        .as_ref()
        .and_then(|b| Some((b.value.as_f64()?, true, b.span)));
    match (inc, exc) {
        (Some(i), Some(e)) => {
            let e_wins = if lower { e.0 >= i.0 } else { e.0 <= i.0 };
            Some(if e_wins { e } else { i })
        }
        (a, b) => a.or(b),
    }
}

/// How targets fold an enum's values into descriptions, if any does
/// ([`emit::fold::enum_folding`]).
fn enum_folding(members: &[EnumMember]) -> Option<Folded> {
    emit::fold::enum_folding(
        members.iter().map(|m| &m.value),
        members.iter().any(|m| m.description.is_some()),
    )
}

/// The strongly connected components that contain a cycle.
fn cycles(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    strongly_connected(adj)
        .into_iter()
        .filter(|c| c.len() > 1 || adj[c[0]].contains(&c[0]))
        .collect()
}

/// "A → B → C" (at most six names) for a cycle's message.
fn cycle_names(module: &Module, component: &[usize]) -> String {
    let mut names: Vec<&str> = component
        .iter()
        .map(|&i| module.types[i].name.as_str())
        .collect();
    names.sort_unstable();
    if names.len() > 6 {
        format!("{} → … ({} types)", names[..6].join(" → "), names.len())
    } else {
        names.join(" → ")
    }
}

/// The named types a type refers to without any array, object or map around the reference.
fn collect_unguarded(ty: &Ty, out: &mut Vec<usize>) {
    match ty {
        Ty::Ref(id) if !out.contains(&id.0) => out.push(id.0),
        Ty::Nullable(t) => collect_unguarded(t, out),
        Ty::AnyOf(ts) => ts.iter().for_each(|t| collect_unguarded(t, out)),
        _ => {}
    }
}

fn collect_refs(ty: &Ty, out: &mut Vec<usize>) {
    match ty {
        Ty::Ref(id) if !out.contains(&id.0) => out.push(id.0),
        Ty::Array(a) => collect_refs(&a.items, out),
        Ty::Tuple(t) => {
            t.items.iter().for_each(|i| collect_refs(i, out));
            if let Additional::Schema(r) = &t.rest {
                collect_refs(r, out);
            }
        }
        Ty::Object(o) => {
            for f in &o.fields {
                collect_refs(&f.ty, out);
            }
            if let Additional::Schema(t) = &o.additional {
                collect_refs(t, out);
            }
        }
        Ty::Nullable(t) => collect_refs(t, out),
        Ty::AnyOf(ts) => ts.iter().for_each(|t| collect_refs(t, out)),
        _ => {}
    }
}

/// The named types that every value of `ty` must contain.
fn must_contain(ty: &Ty) -> HashSet<TypeId> {
    match ty {
        Ty::Ref(id) => HashSet::from([*id]),
        Ty::Object(o) => o
            .fields
            .iter()
            .filter(|f| f.required)
            .flat_map(|f| must_contain(&f.ty))
            .collect(),
        Ty::Array(a) if a.min_items.as_ref().is_some_and(|m| m.value > 0) => must_contain(&a.items),
        Ty::Tuple(t) => {
            let mut out: HashSet<TypeId> = t.items[..t.required.min(t.items.len())]
                .iter()
                .flat_map(must_contain)
                .collect();
            if t.min_len() > t.items.len() as u64 {
                if let Additional::Schema(r) = &t.rest {
                    out.extend(must_contain(r));
                }
            }
            out
        }
        Ty::AnyOf(ts) => {
            let mut sets = ts.iter().map(must_contain);
            let first = sets.next().unwrap_or_default();
            sets.fold(first, |acc, s| acc.intersection(&s).copied().collect())
        }
        _ => HashSet::new(),
    }
}

/// Tarjan's algorithm without recursion: the strongly connected components of a graph, each
/// emitted after every component it reaches.
fn strongly_connected(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adj[v].get(*edge) {
                *edge += 1;
                if w >= n {
                    continue;
                }
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn finds_cycles_and_orders_sinks_first() {
        // 0 → 1 → 2 → 1, 3 alone
        let adj = vec![vec![1], vec![2], vec![1], vec![]];
        let sccs = strongly_connected(&adj);
        let mut sorted: Vec<Vec<usize>> = sccs
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.sort();
                c
            })
            .collect();
        sorted.sort();
        assert_eq!(sorted, vec![vec![0], vec![1, 2], vec![3]]);
        let pos = |x: usize| sccs.iter().position(|c| c.contains(&x)).unwrap();
        assert!(
            pos(1) < pos(0),
            "the cycle is emitted before what reaches it"
        );
    }

    #[test]
    fn deep_chains_do_not_recurse() {
        let n = 200_000;
        let adj: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        assert_eq!(strongly_connected(&adj).len(), n);
    }
}
