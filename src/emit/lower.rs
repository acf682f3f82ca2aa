//! Lowering the model into the restricted schema dialects of OpenAI strict mode, Anthropic
//! strict mode and Gemini.
//!
//! These dialects accept only a subset of JSON Schema. The lowering walks the model (not the
//! canonical JSON output) so that every constraint it cannot express can be folded into a
//! description ([`super::fold`]) with a warning at the constraint's own source span, and every
//! type it cannot express at all becomes an error at the span of the field that uses it. The
//! rules, and where each comes from, are listed in docs/targets.md.

use std::cmp::Ordering;

use indexmap::IndexSet;
use serde_json::{json, Map, Number, Value};

use super::fold;
use super::Target;
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::model::*;
use crate::validate::reading::{self, Reading, EXTRA_KEYS, TUPLE_REST};

/// Which restricted dialect to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// OpenAI Structured Outputs ("strict": true).
    Strict,
    /// Anthropic strict tool use ("strict": true): the JSON Schema subset of Anthropic's
    /// structured outputs.
    AnthropicStrict,
    /// Gemini's OpenAPI 3.0 subset (`Schema`, in `parameters`).
    GeminiOpenApi,
    /// The JSON Schema subset Gemini supports (`parametersJsonSchema`, `responseJsonSchema`).
    GeminiJson,
}

impl Flavor {
    /// Whether the dialect has `$defs`/`$ref`, so that a recursive type is a reference.
    fn has_refs(self) -> bool {
        matches!(self, Flavor::Strict | Flavor::GeminiJson)
    }

    /// Whether every object of the dialect is closed (`"additionalProperties": false`) and
    /// lists all its properties.
    fn closed(self) -> bool {
        matches!(self, Flavor::Strict | Flavor::AnthropicStrict)
    }

    /// How a validator for the dialect reads a call, which says what the dialect lowers (maps,
    /// extra keys and `any`, see [`Reading`]).
    fn reading(self) -> Reading {
        match self {
            Flavor::Strict => Reading::NullForAbsent,
            Flavor::AnthropicStrict => Reading::Closed,
            Flavor::GeminiOpenApi => Reading::Lowered,
            Flavor::GeminiJson => Reading::Source,
        }
    }
}

/// A schema under construction: the keywords, and the description with the sentences folded
/// into it, which are joined only when the schema is finished.
#[derive(Debug, Default)]
struct Node {
    map: Map<String, Value>,
    description: Option<String>,
    notes: Vec<String>,
}

impl Node {
    fn typed(t: &str) -> Node {
        let mut map = Map::new();
        map.insert("type".into(), Value::String(t.into()));
        Node {
            map,
            ..Node::default()
        }
    }
}

/// The string formats OpenAI strict mode supports (Structured Outputs, "Supported properties").
const STRICT_FORMATS: &[Format] = &[
    Format::DateTime,
    Format::Time,
    Format::Date,
    Format::Duration,
    Format::Email,
    Format::Hostname,
    Format::Ipv4,
    Format::Ipv6,
    Format::Uuid,
];

/// The string formats Anthropic strict mode supports (structured outputs, "JSON Schema
/// limitations").
const ANTHROPIC_FORMATS: &[Format] = &[
    Format::DateTime,
    Format::Time,
    Format::Date,
    Format::Duration,
    Format::Email,
    Format::Hostname,
    Format::Uri,
    Format::Ipv4,
    Format::Ipv6,
    Format::Uuid,
];

/// The largest bound of a counted repetition (`{n,m}`) that tooldef keeps in a pattern for
/// Anthropic strict mode, which supports "simple `{n,m}` cases" and not "complex `{n,m}`
/// quantifiers with large ranges" (structured outputs, "JSON Schema limitations"). The
/// documentation gives no number; this is tooldef's choice.
const ANTHROPIC_MAX_REPEAT: u32 = 100;

/// The string formats Gemini's JSON Schema subset supports (structured output guide, "JSON
/// Schema support").
const GEMINI_JSON_FORMATS: &[Format] = &[Format::DateTime, Format::Date, Format::Time];

/// The lowering of one tool into one dialect; collects its diagnostics.
pub(crate) struct Lowering<'m> {
    module: &'m Module,
    flavor: Flavor,
    target: Target,
    /// Errors and warnings, in the order found (deduplicated when taken).
    diagnostics: Vec<Diagnostic>,
    /// Strict and Gemini JSON: recursive types referenced so far, emitted under `$defs`.
    defs: IndexSet<TypeId>,
    /// Gemini JSON: while a `$defs` entry is lowered, how many optional fields enclose the
    /// current schema within it (`None` outside `$defs`). Gemini unrolls a cycle only through
    /// optional properties.
    optional_in_def: Option<usize>,
    /// While the entries of an open object are lowered: the span whose warning already said
    /// that their values travel as JSON text, so that their `any` gives no second one.
    open_entries_at: Option<Span>,
}

impl<'m> Lowering<'m> {
    pub(crate) fn new(module: &'m Module, flavor: Flavor, target: Target) -> Self {
        Lowering {
            module,
            flavor,
            target,
            diagnostics: Vec::new(),
            defs: IndexSet::new(),
            optional_in_def: None,
            open_entries_at: None,
        }
    }

    /// The diagnostics found, each reported once even when a named type is used many times.
    pub(crate) fn take_diagnostics(&mut self) -> Vec<Diagnostic> {
        super::unique(std::mem::take(&mut self.diagnostics))
    }

    /// The schema of a tool's parameters. For Gemini, a closed tool without fields has no
    /// schema (`None`): Gemini rejects an OBJECT without properties and allows the parameters
    /// to be left out.
    pub(crate) fn parameters(&mut self, tool: &Tool) -> Option<Value> {
        let gemini = matches!(self.flavor, Flavor::GeminiOpenApi | Flavor::GeminiJson);
        if gemini
            && tool.params.fields.is_empty()
            && reading::lowered_extra(&tool.params, self.flavor.reading()).is_none()
            && (self.flavor == Flavor::GeminiOpenApi
                || matches!(tool.params.additional, Additional::Closed))
        {
            return None;
        }
        if self.flavor == Flavor::GeminiOpenApi {
            for f in &tool.params.fields {
                if !super::gemini::valid_parameter_name(&f.name) {
                    self.diagnostics.push(
                        Diagnostic::error(
                            Code::InvalidName,
                            f.span,
                            format!("`{}` is not a valid parameter name for {}", f.name, self.target.as_str()),
                        )
                        .with_label("not allowed by Gemini")
                        .with_help("Gemini parameter names start with a letter or `_` and hold only A-Z, a-z, 0-9 and `_`, at most 64 characters; rename the field"),
                    );
                }
            }
        }
        let node = self.object(&tool.params, tool.span, true);
        let root = self.finish(node);
        Some(self.with_defs(root))
    }

    /// The schema of a type on its own, as a structured output's root: a named type is inlined
    /// there (a root cannot be a reference).
    pub(crate) fn root_schema(&mut self, ty: &Ty, at: Span) -> Value {
        let node = match ty {
            Ty::Ref(id) => self.inline(*id, at),
            other => self.ty(other, at),
        };
        let root = self.finish(node);
        self.with_defs(root)
    }

    /// `root` with the `$defs` of the recursive types it references (dialects with references
    /// only).
    fn with_defs(&mut self, mut root: Map<String, Value>) -> Value {
        if self.flavor.has_refs() {
            let mut defs = Map::new();
            let mut i = 0;
            while let Some(&id) = self.defs.get_index(i) {
                self.optional_in_def = Some(0);
                let node = self.inline(id, self.module.get(id).span);
                self.optional_in_def = None;
                let schema = self.finish(node);
                defs.insert(self.module.get(id).name.clone(), Value::Object(schema));
                i += 1;
            }
            if !defs.is_empty() {
                root.insert("$defs".into(), Value::Object(defs));
            }
        }
        Value::Object(root)
    }

    fn type_name(&self, t: &str) -> String {
        match self.flavor {
            Flavor::Strict | Flavor::AnthropicStrict | Flavor::GeminiJson => t.to_string(),
            Flavor::GeminiOpenApi => t.to_ascii_uppercase(),
        }
    }

    fn dialect(&self) -> &'static str {
        match self.flavor {
            Flavor::Strict => "OpenAI strict mode",
            Flavor::AnthropicStrict => "Anthropic strict mode",
            Flavor::GeminiOpenApi => "Gemini's schema",
            Flavor::GeminiJson => "Gemini's JSON Schema",
        }
    }

    /// An error: `what` cannot be expressed for this target at all.
    fn unsupported(&mut self, span: Span, what: &str, why: &str, help: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::NotRepresentable,
                span,
                format!(
                    "{what} cannot be expressed for target {}: {why}",
                    self.target.as_str()
                ),
            )
            .with_label(format!("not representable in {}", self.dialect()))
            .with_help(help.to_string()),
        );
    }

    /// A warning: the constraint written at `span` was folded into the description.
    fn folded(&mut self, span: Span, what: &str) {
        self.diagnostics.push(
            Diagnostic::warning(
                Code::FoldedConstraint,
                span,
                format!(
                    "{} has no keyword for {what}; target {} states it in the description instead",
                    self.dialect(),
                    self.target.as_str()
                ),
            )
            .with_label("folded into the description")
            .with_help("the model sees this only as text; tooldef's validator still enforces it on the arguments"),
        );
    }

    /// A warning: `what`, written at `span`, is sent as `shape`, which the dialect can carry.
    fn lowered(&mut self, span: Span, what: &str, shape: &str) {
        self.diagnostics.push(
            Diagnostic::warning(
                Code::LoweredConstruct,
                span,
                format!(
                    "{} cannot carry {what}; target {} sends it as {shape}",
                    self.dialect(),
                    self.target.as_str()
                ),
            )
            .with_label(format!("sent as {shape}"))
            .with_help("read the calls with the target's validator (`Validator::for_target`, `dispatch --target`): it accepts this shape and gives the arguments back in the source's shape"),
        );
    }

    /// Turns a node into its schema, the description first.
    fn finish(&self, node: Node) -> Map<String, Value> {
        let mut m = node.map;
        if let Some(text) = fold::join(node.description.as_deref(), &node.notes) {
            // OpenAI strict mode rejects keywords beside `$ref`, and Gemini allows only `$`
            // keywords there; wrap it to carry a description.
            if self.flavor.has_refs() && m.contains_key("$ref") {
                let mut wrapper = Map::new();
                wrapper.insert("anyOf".into(), json!([Value::Object(m)]));
                m = wrapper;
            }
            m.shift_insert(0, "description".into(), Value::String(text));
        }
        m
    }

    fn ty(&mut self, ty: &Ty, at: Span) -> Node {
        if let Some(lowered) = reading::lowered_value_ty(ty, self.flavor.reading(), at) {
            return self.lowered_value(ty, &lowered, at);
        }
        match ty {
            // The empty schema accepts anything, and Gemini's JSON Schema takes it.
            Ty::Any if self.flavor == Flavor::GeminiJson => Node::default(),
            // Strict mode and Gemini's schema need a `type`: the value travels as JSON text.
            Ty::Any => {
                if self.open_entries_at != Some(at) {
                    self.lowered(at, "`any`", "a string of JSON text");
                }
                let mut node = Node::typed(&self.type_name("string"));
                node.notes.push(reading::JSON_TEXT_NOTE.to_string());
                node
            }
            Ty::Never => {
                self.unsupported(
                    at,
                    "`never`",
                    "the dialect has no schema that accepts nothing",
                    "leave the field out of the tool instead",
                );
                Node::default()
            }
            // The other dialects lower it above.
            Ty::Tuple(t) => self.tuple(t, at),
            Ty::Const(_) | Ty::Enum(_) if !literal_scalars(ty) => {
                self.unsupported(
                    at,
                    "a literal array or object",
                    "its enums and literals hold scalars only",
                    "use an object or array type with literal fields, or a string enum",
                );
                Node::default()
            }
            Ty::Null => Node::typed(&self.type_name("null")),
            Ty::Boolean => Node::typed(&self.type_name("boolean")),
            Ty::Integer(r) => self.number(r, true),
            Ty::Number(r) => self.number(r, false),
            Ty::String(r) => self.string(r),
            Ty::Const(v) => self.constant(v, at),
            Ty::Enum(members) => self.enumeration(members, at),
            Ty::Array(a) => self.array(a, at),
            Ty::Object(o) => self.object(o, at, false),
            Ty::Ref(id) => self.reference(*id, at),
            Ty::Nullable(inner) => self.nullable(inner, at),
            Ty::AnyOf(members) => self.any_of(members, at),
        }
    }

    /// A tuple, or a literal or enum of values that are not strings, as
    /// [`reading::lowered_value_ty`] made it (`lowered`).
    fn lowered_value(&mut self, ty: &Ty, lowered: &Ty, at: Span) -> Node {
        match ty {
            Ty::Tuple(t) => {
                let rest = !matches!(t.rest, Additional::Closed);
                let shape = if rest {
                    format!("an object with one key per position (\"0\", \"1\", …) and the items after them in the array `{TUPLE_REST}`")
                } else {
                    "an object with one key per position (\"0\", \"1\", …)".to_string()
                };
                self.lowered(at, "a tuple", &shape);
                let mut node = self.ty(lowered, at);
                node.notes.push(
                    if rest {
                        reading::TUPLE_REST_NOTE
                    } else {
                        reading::TUPLE_NOTE
                    }
                    .to_string(),
                );
                node
            }
            _ => {
                let what = match ty {
                    Ty::Const(_) => "a literal that is not a string",
                    _ => "an enum of values that are not strings",
                };
                self.lowered(
                    at,
                    what,
                    "a string enum of the values' JSON spellings (\"1\", \"true\")",
                );
                self.ty(lowered, at)
            }
        }
    }

    fn number(&mut self, r: &NumberRules, integer: bool) -> Node {
        if self.flavor == Flavor::AnthropicStrict {
            return self.folded_number(r, integer);
        }
        let mut node = Node::typed(&self.type_name(if integer { "integer" } else { "number" }));
        let mut folded_range = false;
        let put = |m: &mut Map<String, Value>, key: &str, b: &Option<Spanned<Number>>| {
            if let Some(b) = b {
                m.insert(key.into(), Value::Number(b.value.clone()));
            }
        };
        put(&mut node.map, "minimum", &r.minimum);
        put(&mut node.map, "maximum", &r.maximum);
        match self.flavor {
            Flavor::Strict => {
                put(&mut node.map, "exclusiveMinimum", &r.exclusive_minimum);
                put(&mut node.map, "exclusiveMaximum", &r.exclusive_maximum);
                put(&mut node.map, "multipleOf", &r.multiple_of);
            }
            Flavor::AnthropicStrict | Flavor::GeminiOpenApi | Flavor::GeminiJson => {
                let bounds = [
                    (&r.exclusive_minimum, "minimum", true),
                    (&r.exclusive_maximum, "maximum", false),
                ];
                for (bound, key, lower) in bounds {
                    let Some(b) = bound else { continue };
                    // An exclusive bound on an integer is an inclusive one, exactly; on a number
                    // the inclusive keyword keeps the weaker bound and the text the rest.
                    let exact = if integer {
                        step_inside(&b.value, lower)
                    } else {
                        None
                    };
                    let candidate = exact.clone().unwrap_or_else(|| b.value.clone());
                    // The candidate replaces the inclusive bound already there unless that one
                    // is tighter (compared exactly, as `NumberRules::lower` does).
                    let looser = if lower {
                        Ordering::Less
                    } else {
                        Ordering::Greater
                    };
                    let tighter = match node.map.get(key).and_then(Value::as_number) {
                        Some(current) => {
                            crate::validate::cmp_numbers(&candidate, current) != looser
                        }
                        None => true,
                    };
                    if tighter {
                        node.map.insert(key.into(), Value::Number(candidate));
                    }
                    if exact.is_none() && tighter {
                        let name = if lower {
                            "`@exclusive_min`"
                        } else {
                            "`@exclusive_max`"
                        };
                        self.folded(b.span, &format!("an exclusive bound ({name})"));
                        folded_range = true;
                    }
                }
                if let Some(m) = &r.multiple_of {
                    node.notes.push(fold::multiple_of(&m.value));
                    self.folded(m.span, "`@multiple_of`");
                }
            }
        }
        if folded_range {
            if let Some(sentence) = fold::range(r) {
                node.notes.insert(0, sentence);
            }
        }
        node
    }

    /// Anthropic strict mode: a number without any numeric keyword ("Numerical constraints
    /// (such as `minimum`, `maximum`, `multipleOf`)" are not supported), its range and multiple
    /// said in the description.
    fn folded_number(&mut self, r: &NumberRules, integer: bool) -> Node {
        let mut node = Node::typed(if integer { "integer" } else { "number" });
        if let Some(sentence) = fold::range(r) {
            node.notes.push(sentence);
            let bounds = [
                (&r.minimum, "`@min`"),
                (&r.maximum, "`@max`"),
                (&r.exclusive_minimum, "`@exclusive_min`"),
                (&r.exclusive_maximum, "`@exclusive_max`"),
            ];
            for (bound, name) in bounds {
                if let Some(b) = bound {
                    self.folded(b.span, &format!("a numeric bound ({name})"));
                }
            }
        }
        if let Some(m) = &r.multiple_of {
            node.notes.push(fold::multiple_of(&m.value));
            self.folded(m.span, "`@multiple_of`");
        }
        node
    }

    fn string(&mut self, r: &StringRules) -> Node {
        let mut node = Node::typed(&self.type_name("string"));
        let lengths_supported = self.flavor == Flavor::GeminiOpenApi;
        if lengths_supported {
            if let Some(n) = &r.min_length {
                node.map.insert("minLength".into(), json!(n.value));
            }
            if let Some(n) = &r.max_length {
                node.map.insert("maxLength".into(), json!(n.value));
            }
        } else if let Some(sentence) = fold::length(
            r.min_length.as_ref().map(|s| s.value),
            r.max_length.as_ref().map(|s| s.value),
        ) {
            node.notes.push(sentence);
            if let Some(n) = &r.min_length {
                self.folded(n.span, "`@min_length`");
            }
            if let Some(n) = &r.max_length {
                self.folded(n.span, "`@max_length`");
            }
        }
        if let Some(p) = &r.pattern {
            let kept = match self.flavor {
                Flavor::GeminiJson => false,
                Flavor::AnthropicStrict => anthropic_pattern(&p.value),
                Flavor::Strict | Flavor::GeminiOpenApi => true,
            };
            if !kept {
                node.notes.push(fold::pattern(&p.value));
                self.folded(p.span, "`@pattern`");
            } else {
                node.map.insert("pattern".into(), json!(p.value));
            }
        }
        if let Some(f) = &r.format {
            let supported = match self.flavor {
                Flavor::Strict => STRICT_FORMATS.contains(&f.value),
                Flavor::AnthropicStrict => ANTHROPIC_FORMATS.contains(&f.value),
                Flavor::GeminiOpenApi => f.value == Format::DateTime,
                Flavor::GeminiJson => GEMINI_JSON_FORMATS.contains(&f.value),
            };
            if supported {
                node.map.insert("format".into(), json!(f.value.as_str()));
            } else {
                node.notes.push(fold::format(f.value));
                self.folded(f.span, &format!("`@format({})`", f.value.as_str()));
            }
        }
        node
    }

    fn constant(&mut self, v: &Value, at: Span) -> Node {
        match (self.flavor, v) {
            (Flavor::GeminiJson, Value::Null) => Node::typed("null"),
            (Flavor::GeminiOpenApi, Value::String(_))
            | (Flavor::GeminiJson, Value::String(_) | Value::Number(_))
            | (Flavor::Strict | Flavor::AnthropicStrict, _) => {
                let mut node = match json_type(v) {
                    Some(t) => Node::typed(&self.type_name(t)),
                    None => Node::default(),
                };
                node.map.insert("enum".into(), json!([v]));
                node
            }
            (Flavor::GeminiOpenApi | Flavor::GeminiJson, _) => {
                let mut node = match json_type(v) {
                    Some(t) => Node::typed(&self.type_name(t)),
                    None => Node::default(),
                };
                node.notes.push(fold::constant(v));
                let what = match self.flavor {
                    Flavor::GeminiJson => "a literal that is not a string or a number",
                    _ => "a literal that is not a string",
                };
                self.folded(at, what);
                node
            }
        }
    }

    fn enumeration(&mut self, members: &[EnumMember], at: Span) -> Node {
        let documented = members.iter().any(|m| m.description.is_some());
        let values: Vec<Value> = members.iter().map(|m| m.value.clone()).collect();
        let mut types: Vec<&'static str> = Vec::new();
        for v in &values {
            if let Some(t) = json_type(v) {
                if !types.contains(&t) {
                    types.push(t);
                }
            }
        }
        if types.contains(&"number") {
            types.retain(|t| *t != "integer");
        }
        match self.flavor {
            Flavor::Strict | Flavor::AnthropicStrict => {
                let mut node = Node::default();
                match types.as_slice() {
                    [] => {}
                    [one] => {
                        node.map.insert("type".into(), json!(one));
                    }
                    // Anthropic strict mode: the values alone, no type array (see
                    // `make_nullable`).
                    _ if self.flavor == Flavor::AnthropicStrict => {}
                    many => {
                        node.map.insert("type".into(), json!(many));
                    }
                }
                node.map.insert("enum".into(), Value::Array(values));
                if documented {
                    node.notes.push(fold::one_of(members));
                }
                node
            }
            Flavor::GeminiJson => self.gemini_json_enum(members, documented, at),
            Flavor::GeminiOpenApi => {
                let strings: Vec<Value> =
                    values.iter().filter(|v| v.is_string()).cloned().collect();
                let others: Vec<&&str> = types
                    .iter()
                    .filter(|t| **t != "string" && **t != "null")
                    .collect();
                let nullable = values.iter().any(Value::is_null);
                let mut parts: Vec<Map<String, Value>> = Vec::new();
                if !strings.is_empty() {
                    let mut m = Node::typed("STRING").map;
                    m.insert("enum".into(), Value::Array(strings));
                    parts.push(m);
                }
                for t in &others {
                    parts.push(Node::typed(&self.type_name(t)).map);
                }
                let mut node = Node::default();
                match parts.len() {
                    0 => node.map = Node::typed("NULL").map,
                    1 => node.map = parts.remove(0),
                    _ => {
                        node.map.insert(
                            "anyOf".into(),
                            Value::Array(parts.into_iter().map(Value::Object).collect()),
                        );
                    }
                }
                if nullable {
                    set_nullable(&mut node.map);
                }
                if !others.is_empty() {
                    node.notes.push(fold::one_of(members));
                    self.folded(
                        at,
                        "an enum of values that are not strings (Gemini enums hold strings only)",
                    );
                } else if documented {
                    node.notes.push(fold::one_of(members));
                }
                node
            }
        }
    }

    fn array(&mut self, a: &ArrayTy, at: Span) -> Node {
        let mut node = Node::typed(&self.type_name("array"));
        let items = self.ty(&a.items, at);
        let items = self.finish(items);
        node.map.insert("items".into(), Value::Object(items));
        if self.flavor == Flavor::AnthropicStrict {
            self.item_count(&mut node, a);
        } else {
            if let Some(n) = &a.min_items {
                node.map.insert("minItems".into(), json!(n.value));
            }
            if let Some(n) = &a.max_items {
                node.map.insert("maxItems".into(), json!(n.value));
            }
        }
        if let Some(u) = &a.unique {
            if u.value {
                node.notes.push(fold::unique());
                self.folded(u.span, "`@unique`");
            }
        }
        node
    }

    /// Anthropic strict mode: an array's item count, where `minItems` may only be 0 or 1 and
    /// `maxItems` is not supported ("Array constraints beyond `minItems` of 0 or 1"). A larger
    /// minimum keeps `minItems: 1`, which it implies, and the whole count is said in the
    /// description.
    fn item_count(&mut self, node: &mut Node, a: &ArrayTy) {
        let (min, max) = (&a.min_items, &a.max_items);
        if let Some(n) = min {
            node.map.insert("minItems".into(), json!(n.value.min(1)));
        }
        let folds = min.as_ref().is_some_and(|n| n.value > 1) || max.is_some();
        if !folds {
            return;
        }
        if let Some(sentence) =
            fold::item_count(min.as_ref().map(|n| n.value), max.as_ref().map(|n| n.value))
        {
            node.notes.push(sentence);
        }
        for n in min.iter().filter(|n| n.value > 1).chain(max) {
            self.folded(
                n.span,
                "a number of items (`@min_items` above 1, `@max_items`)",
            );
        }
    }

    /// Gemini JSON: an enum as the `enum`s of its strings and of its numbers (an `anyOf` when
    /// both), `boolean` for its booleans, and `null` for its null. Gemini's enums hold strings
    /// and numbers only, so booleans are folded into the description.
    fn gemini_json_enum(&mut self, members: &[EnumMember], documented: bool, at: Span) -> Node {
        let values: Vec<&Value> = members.iter().map(|m| &m.value).collect();
        let strings: Vec<Value> = values
            .iter()
            .filter(|v| v.is_string())
            .map(|v| (*v).clone())
            .collect();
        let numbers: Vec<Value> = values
            .iter()
            .filter(|v| v.is_number())
            .map(|v| (*v).clone())
            .collect();
        let booleans = values.iter().any(|v| v.is_boolean());
        let mut parts: Vec<Map<String, Value>> = Vec::new();
        if !strings.is_empty() {
            let mut m = Node::typed("string").map;
            m.insert("enum".into(), Value::Array(strings));
            parts.push(m);
        }
        if !numbers.is_empty() {
            let integers = numbers.iter().all(|n| json_type(n) == Some("integer"));
            let mut m = Node::typed(if integers { "integer" } else { "number" }).map;
            m.insert("enum".into(), Value::Array(numbers));
            parts.push(m);
        }
        if booleans {
            parts.push(Node::typed("boolean").map);
        }
        if values.iter().any(|v| v.is_null()) {
            parts.push(Node::typed("null").map);
        }
        let mut node = Node::default();
        if parts.len() == 1 {
            node.map = parts.remove(0);
        } else {
            let members = parts.into_iter().map(Value::Object).collect();
            node.map.insert("anyOf".into(), Value::Array(members));
        }
        if booleans {
            node.notes.push(fold::one_of(members));
            self.folded(
                at,
                "an enum with boolean values (Gemini's enums hold strings and numbers only)",
            );
        } else if documented {
            node.notes.push(fold::one_of(members));
        }
        node
    }

    /// Gemini JSON: a tuple as `prefixItems`, its length bounded with `minItems`/`maxItems` (a
    /// closed tuple's `items: false` is said with `maxItems`, which the subset has).
    fn tuple(&mut self, t: &TupleTy, at: Span) -> Node {
        let mut node = Node::typed("array");
        if !t.items.is_empty() {
            let items = t
                .items
                .iter()
                .map(|i| {
                    let n = self.ty(i, at);
                    Value::Object(self.finish(n))
                })
                .collect();
            node.map.insert("prefixItems".into(), Value::Array(items));
        }
        if let Additional::Schema(rest) = &t.rest {
            let n = self.ty(rest, at);
            node.map
                .insert("items".into(), Value::Object(self.finish(n)));
        }
        let min = t.min_len();
        if min > 0 {
            node.map.insert("minItems".into(), json!(min));
        }
        if let Some(max) = t.max_len() {
            node.map.insert("maxItems".into(), json!(max));
        }
        if let Some(u) = &t.unique {
            if u.value {
                node.notes.push(fold::unique());
                self.folded(u.span, "`@unique`");
            }
        }
        node
    }

    /// An object; `params` when it is a tool's parameters, which stay an object when lowered.
    fn object(&mut self, o: &ObjectTy, at: Span, params: bool) -> Node {
        if let Some(lowered) = reading::lowered_object(o, self.flavor.reading(), at, params) {
            return self.lowered_object(o, &lowered, at, params);
        }
        let mut node = Node::typed(&self.type_name("object"));
        let mut additional = None;
        match (&o.additional, self.flavor) {
            (Additional::Closed, Flavor::GeminiJson) => additional = Some(Value::Bool(false)),
            (Additional::Schema(t), Flavor::GeminiJson) => {
                let n = self.ty(t, at);
                additional = Some(Value::Object(self.finish(n)));
            }
            // The declared fields are kept; Gemini's schema simply never sends other keys.
            // Strict mode's open keys are lowered above.
            _ => {}
        }
        // An object without fields that is open or has typed extra keys was lowered above: a
        // closed one accepts only `{}`, which no OBJECT of this dialect says.
        if o.fields.is_empty() && self.flavor == Flavor::GeminiOpenApi {
            self.unsupported(
                at,
                "an object without fields",
                "Gemini rejects an OBJECT whose `properties` are empty",
                "declare at least one field, or open the object (`{ ... }`) to accept any keys",
            );
        }
        let mut props = Map::new();
        let mut required = Vec::new();
        for f in &o.fields {
            let schema = self.field_within(f);
            props.insert(f.name.clone(), Value::Object(schema));
            if f.required || self.flavor == Flavor::Strict {
                required.push(Value::String(f.name.clone()));
            }
        }
        if !o.is_map() || self.flavor.closed() {
            node.map.insert("properties".into(), Value::Object(props));
        }
        if self.flavor == Flavor::Strict || !required.is_empty() {
            node.map.insert("required".into(), Value::Array(required));
        }
        if self.flavor.closed() {
            node.map
                .insert("additionalProperties".into(), Value::Bool(false));
        }
        if let Some(a) = additional {
            node.map.insert("additionalProperties".into(), a);
        }
        self.key_rules(&mut node, &o.rules);
        node
    }

    /// An object whose extra keys the dialect cannot carry, as [`reading::lowered_object`]
    /// made it (`lowered`): the array of its entries, or its fields and the property
    /// [`EXTRA_KEYS`] holding them.
    fn lowered_object(&mut self, o: &ObjectTy, lowered: &Ty, at: Span, params: bool) -> Node {
        let what = match (&o.additional, o.fields.is_empty() && !params) {
            (Additional::Open, _) => "an open object (`...`)",
            (_, true) => "a `map<...>`",
            (_, false) => "typed extra keys (`...: T`)",
        };
        // An open object's values are `any`: one warning says how both travel.
        let open = matches!(o.additional, Additional::Open);
        let values = if open {
            ", each value a string of JSON text"
        } else {
            ""
        };
        let outer = self.open_entries_at;
        if open {
            self.open_entries_at = Some(at);
        }
        let node = match lowered {
            Ty::Object(with_entries) => {
                if o.field(EXTRA_KEYS).is_some() {
                    self.unsupported(
                        at,
                        what,
                        &format!("its entries travel in the property `{EXTRA_KEYS}`, which is a declared field here"),
                        &format!("rename the field `{EXTRA_KEYS}`"),
                    );
                }
                let shape = format!(
                    "the property `{EXTRA_KEYS}`, an array of {{\"key\", \"value\"}} entries{values}"
                );
                self.lowered(at, what, &shape);
                self.object(with_entries, at, params)
            }
            entries => {
                let shape = format!("an array of {{\"key\", \"value\"}} entries{values}");
                self.lowered(at, what, &shape);
                let mut node = self.ty(entries, at);
                node.notes.push(reading::ENTRIES_NOTE.to_string());
                self.key_rules(&mut node, &o.rules);
                node
            }
        };
        self.open_entries_at = outer;
        node
    }

    /// The rules across an object's keys. Gemini's OpenAPI schema keeps the key counts
    /// (`minProperties`, `maxProperties`); everything else, and everything in the other
    /// dialects (whose documented keywords have neither the counts nor `not` and
    /// `dependentRequired`), is folded into the description.
    fn key_rules(&mut self, node: &mut Node, rules: &KeyRules) {
        let (min, max) = (&rules.min_properties, &rules.max_properties);
        if self.flavor == Flavor::GeminiOpenApi {
            if let Some(n) = min {
                node.map.insert("minProperties".into(), json!(n.value));
            }
            if let Some(n) = max {
                node.map.insert("maxProperties".into(), json!(n.value));
            }
        } else if let Some(sentence) =
            fold::key_count(min.as_ref().map(|n| n.value), max.as_ref().map(|n| n.value))
        {
            node.notes.push(sentence);
            for n in min.iter().chain(max) {
                self.folded(
                    n.span,
                    "a number of keys (`@min_properties`, `@max_properties`)",
                );
            }
        }
        for group in &rules.groups {
            node.notes.push(fold::key_group(&group.value));
            self.folded(
                group.span,
                &format!("a rule across fields (`@{}`)", group.value.attribute()),
            );
        }
    }

    /// A property's schema, counting an optional field among those that enclose what it holds.
    fn field_within(&mut self, f: &Field) -> Map<String, Value> {
        let optional = !f.required;
        if optional {
            self.optional_in_def = self.optional_in_def.map(|n| n + 1);
        }
        let schema = self.field(f);
        if optional {
            self.optional_in_def = self.optional_in_def.map(|n| n - 1);
        }
        schema
    }

    fn field(&mut self, f: &Field) -> Map<String, Value> {
        let mut node = self.ty(&f.ty, f.span);
        if let Some(d) = &f.description {
            node.description = Some(d.clone());
        }
        // A value of a type sent in another shape would not fit the schema: its default and
        // examples are said in the description, except a literal's, which are spelled as it is.
        let reading = self.flavor.reading();
        let resolved = self.module.resolve(&f.ty);
        let spelled = |v: &Value| reading::spelled_value(resolved, v, reading);
        let reshaped = reading::shown_differs(self.module, &f.ty, reading)
            && !reading::spells(resolved, reading);
        let in_schema = self.flavor == Flavor::GeminiOpenApi && !reshaped;
        // Anthropic strict mode supports "`default` property for all supported types".
        let default_in_schema = in_schema || (self.flavor == Flavor::AnthropicStrict && !reshaped);
        if let Some(v) = &f.default {
            if default_in_schema {
                let v = spelled(v).unwrap_or_else(|| v.clone());
                node.map.insert("default".into(), v);
            } else {
                node.notes.push(fold::default(v));
                let what = if reshaped {
                    "a default value (`= ...`) of a type sent in another shape"
                } else {
                    "a default value (`= ...`)"
                };
                self.folded(f.span, what);
            }
        }
        if in_schema {
            if let Some(first) = f.examples.first() {
                let first = spelled(first).unwrap_or_else(|| first.clone());
                node.map.insert("example".into(), first);
            }
        } else if let Some(sentence) = fold::examples(&f.examples) {
            node.notes.push(sentence);
        }
        if f.deprecated {
            node.notes.push(fold::deprecated());
        }
        // Strict mode lists every property in `required`; an optional one says "absent" with
        // null.
        if self.flavor == Flavor::Strict && f.null_means_absent(self.module) {
            node = self.make_nullable(node);
        }
        self.finish(node)
    }

    fn reference(&mut self, id: TypeId, at: Span) -> Node {
        let named = self.module.get(id);
        if !named.recursive {
            return self.inline(id, at);
        }
        if self.optional_in_def == Some(0) {
            self.required_cycle(named, at);
        }
        match self.flavor {
            Flavor::Strict | Flavor::GeminiJson => {
                self.defs.insert(id);
                let mut node = Node::default();
                node.map
                    .insert("$ref".into(), json!(format!("#/$defs/{}", named.name)));
                node
            }
            Flavor::GeminiOpenApi | Flavor::AnthropicStrict => {
                let (why, help) = if self.flavor == Flavor::GeminiOpenApi {
                    ("Gemini's schema has no `$ref`, and a recursive type cannot be inlined", "flatten the structure to a fixed depth for Gemini, or compile for a target with `$ref` (openai, anthropic, mcp)")
                } else {
                    ("Anthropic strict mode does not support recursive schemas", "flatten the structure to a fixed depth, or compile for `anthropic` (without strict mode)")
                };
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::NotRepresentable,
                        at,
                        format!(
                            "the recursive type `{}` cannot be expressed for target {}: {why}",
                            named.name,
                            self.target.as_str()
                        ),
                    )
                    .with_label("uses a recursive type")
                    .with_related(
                        named.span,
                        format!("`{}` refers to itself here", named.name),
                    )
                    .with_help(help),
                );
                Node::default()
            }
        }
    }

    /// Gemini JSON: the error for a reference, inside a recursive type, that no optional field
    /// encloses. Gemini unrolls a cycle to a limited depth and ends it by leaving out an
    /// optional property; a cycle through required properties (or through `null`) has no end.
    fn required_cycle(&mut self, named: &NamedType, at: Span) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::NotRepresentable,
                at,
                format!(
                    "the recursive type `{}` cannot be expressed for target {}: Gemini unrolls a recursion only through optional properties, and this reference is not inside one",
                    named.name,
                    self.target.as_str()
                ),
            )
            .with_label("a recursion through required fields")
            .with_related(named.span, format!("`{}` is recursive", named.name))
            .with_help("make a field on the way back to the type optional (`name?: T`), or compile for a target without this limit (openai, anthropic, mcp)"),
        );
    }

    /// The body of a named type, with its description unless the user of the type has its own.
    fn inline(&mut self, id: TypeId, at: Span) -> Node {
        let named = self.module.get(id);
        let mut node = self.ty(&named.ty, at);
        if node.description.is_none() {
            node.description = named.description.clone();
        }
        if named.deprecated {
            node.notes.push(fold::deprecated());
        }
        node
    }

    fn nullable(&mut self, inner: &Ty, at: Span) -> Node {
        let node = self.ty(inner, at);
        self.make_nullable(node)
    }

    fn make_nullable(&mut self, mut node: Node) -> Node {
        if node.map.is_empty() {
            return node; // `any`, already reported
        }
        match self.flavor {
            Flavor::GeminiOpenApi => {
                set_nullable(&mut node.map);
                node
            }
            Flavor::GeminiJson => {
                node.map = nullable_json(std::mem::take(&mut node.map));
                node
            }
            // The anthropic SDK's `transform_schema` cannot read a type array, so Anthropic
            // strict mode says `null` in the enum or with an `anyOf` member.
            Flavor::AnthropicStrict => {
                let m = &mut node.map;
                let null_type = json!({"type": "null"});
                if m.contains_key("enum") {
                    m.shift_remove("type");
                    push_null(m);
                } else if m.len() == 1 && m.contains_key("anyOf") {
                    if let Some(Value::Array(members)) = m.get_mut("anyOf") {
                        if !members.contains(&null_type) {
                            members.push(null_type);
                        }
                    }
                } else if m.get("type") != Some(&json!("null")) {
                    let inner = std::mem::take(m);
                    m.insert("anyOf".into(), json!([Value::Object(inner), null_type]));
                }
                node
            }
            Flavor::Strict => {
                let m = &mut node.map;
                let has_enum = m.contains_key("enum");
                match m.get("type").cloned() {
                    Some(Value::String(t)) if t != "null" => {
                        m.insert("type".into(), json!([t, "null"]));
                        if has_enum {
                            push_null(m);
                        }
                        node
                    }
                    Some(Value::Array(mut ts)) if has_enum => {
                        if !ts.contains(&json!("null")) {
                            ts.push(json!("null"));
                        }
                        m.insert("type".into(), Value::Array(ts));
                        push_null(m);
                        node
                    }
                    Some(Value::String(_)) => node, // already `null`
                    None if m.len() == 1 && m.contains_key("anyOf") => {
                        if let Some(Value::Array(members)) = m.get_mut("anyOf") {
                            members.push(json!({"type": "null"}));
                        }
                        node
                    }
                    _ => {
                        let inner = std::mem::take(&mut node.map);
                        node.map.insert(
                            "anyOf".into(),
                            json!([Value::Object(inner), {"type": "null"}]),
                        );
                        node
                    }
                }
            }
        }
    }

    fn any_of(&mut self, members: &[Ty], at: Span) -> Node {
        let mut node = Node::default();
        let mut schemas = Vec::new();
        let mut nullable = false;
        for m in members {
            if self.flavor == Flavor::GeminiOpenApi && matches!(self.module.resolve(m), Ty::Null) {
                nullable = true;
                continue;
            }
            let n = self.ty(m, at);
            schemas.push(Value::Object(self.finish(n)));
        }
        node.map.insert("anyOf".into(), Value::Array(schemas));
        if nullable {
            set_nullable(&mut node.map);
        }
        node
    }
}

/// Whether Anthropic strict mode takes the pattern `p` as it is: it supports anchors,
/// quantifiers (simple `{n,m}` cases), classes and groups, and not "Backreferences",
/// "Lookahead/lookbehind assertions", "Word boundaries: `\b`, `\B`" nor "Complex `{n,m}`
/// quantifiers with large ranges" (structured outputs, "JSON Schema limitations"). A pattern
/// that the parser does not read is not taken either.
fn anthropic_pattern(p: &str) -> bool {
    use regex_syntax::ast::{parse::Parser, AssertionKind, Ast, RepetitionKind, RepetitionRange};
    fn fits(ast: &Ast) -> bool {
        match ast {
            Ast::Assertion(a) => matches!(
                a.kind,
                AssertionKind::StartLine
                    | AssertionKind::EndLine
                    | AssertionKind::StartText
                    | AssertionKind::EndText
            ),
            Ast::Repetition(r) => {
                let small = match &r.op.kind {
                    RepetitionKind::Range(
                        RepetitionRange::Exactly(n) | RepetitionRange::AtLeast(n),
                    ) => *n <= ANTHROPIC_MAX_REPEAT,
                    RepetitionKind::Range(RepetitionRange::Bounded(a, b)) => {
                        *a <= ANTHROPIC_MAX_REPEAT && *b <= ANTHROPIC_MAX_REPEAT
                    }
                    _ => true,
                };
                small && fits(&r.ast)
            }
            Ast::Group(g) => fits(&g.ast),
            Ast::Alternation(a) => a.asts.iter().all(fits),
            Ast::Concat(c) => c.asts.iter().all(fits),
            _ => true,
        }
    }
    Parser::new().parse(p).is_ok_and(|ast| fits(&ast))
}

/// The JSON Schema type name of a scalar value.
fn json_type(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// Whether a literal or enum holds only scalar values.
fn literal_scalars(ty: &Ty) -> bool {
    let scalar = |v: &Value| !matches!(v, Value::Array(_) | Value::Object(_));
    match ty {
        Ty::Const(v) => scalar(v),
        Ty::Enum(members) => members.iter().all(|m| scalar(&m.value)),
        _ => true,
    }
}

/// Adds `null` to an `enum`, once.
fn push_null(m: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

/// Gemini JSON: a schema that also accepts `null`: a type array for a plain typed schema, else
/// `{"type": "null"}` added to an `anyOf` (Gemini's `enum` holds strings and numbers, so `null`
/// cannot join one, and nothing may stand beside a `$ref`).
fn nullable_json(mut m: Map<String, Value>) -> Map<String, Value> {
    let null_type = json!({"type": "null"});
    let plain = !m.contains_key("enum") && !m.contains_key("$ref");
    match m.get("type").cloned() {
        Some(Value::String(t)) if t == "null" => m,
        Some(Value::String(t)) if plain => {
            m.insert("type".into(), json!([t, "null"]));
            m
        }
        None if m.len() == 1 && m.contains_key("anyOf") => {
            if let Some(Value::Array(members)) = m.get_mut("anyOf") {
                if !members.contains(&null_type) {
                    members.push(null_type);
                }
            }
            m
        }
        _ => {
            let mut wrapper = Map::new();
            wrapper.insert("anyOf".into(), json!([Value::Object(m), null_type]));
            wrapper
        }
    }
}

/// Gemini: `nullable: true`, on each member of an `anyOf` (the keyword belongs to typed schemas).
fn set_nullable(m: &mut Map<String, Value>) {
    if let Some(Value::Array(members)) = m.get_mut("anyOf") {
        for member in members {
            if let Value::Object(o) = member {
                set_nullable(o);
            }
        }
    } else if m.get("type").and_then(Value::as_str) != Some("NULL") {
        m.insert("nullable".into(), Value::Bool(true));
    }
}

/// The integer just inside an exclusive bound (`> 2.5` is `>= 3`, `< 3` is `<= 2`), when it
/// fits a JSON integer.
fn step_inside(bound: &Number, lower: bool) -> Option<Number> {
    let step: i128 = if lower { 1 } else { -1 };
    let v: i128 = if let Some(i) = bound.as_i64() {
        i128::from(i) + step
    } else if let Some(u) = bound.as_u64() {
        i128::from(u) + step
    } else {
        let f = bound.as_f64()?;
        // `> f` is `>= floor(f) + 1` and `< f` is `<= ceil(f) - 1`. Beyond 2^53 a float no
        // longer holds every integer; leave such bounds to the text.
        let edge = if lower { f.floor() } else { f.ceil() };
        if !edge.is_finite() || edge.abs() > 9_007_199_254_740_992.0 {
            return None;
        }
        edge as i128 + step
    };
    if let Ok(i) = i64::try_from(v) {
        Some(Number::from(i))
    } else {
        u64::try_from(v).ok().map(Number::from)
    }
}
