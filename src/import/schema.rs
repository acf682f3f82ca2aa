//! The shared core of every importer: a JSON Schema (draft 2020-12, with the draft-07 and
//! OpenAPI spellings the tool dialects use) → model types.
//!
//! Untyped schemas keep their meaning: each JSON type the schema allows becomes one member of a
//! union, and each keyword constrains only the member it applies to, so `{"minLength": 2}`
//! becomes `string @min_length(2) | number | boolean | any[] | { ... } | null`.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::origins::{enum_pointers, FieldOrigin, Origins, TypeOrigin};
use super::{Issue, Warning};
use crate::diagnostic::Code;
use crate::hidden::{self, Text};
use crate::model::*;
use crate::validate::error::{escape_pointer, unescape_pointer};

/// The JSON types, in the order union members are written.
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "null",
];

/// Keywords JSON Schema defines that the language cannot express: always an error.
const UNSUPPORTED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "allOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$anchor",
    "$id",
    "contentSchema",
];

/// Annotation keywords the model has no place for: dropped with a warning.
const DROPPED_ANNOTATIONS: &[&str] = &[
    "title",
    "readOnly",
    "writeOnly",
    "$comment",
    "contentEncoding",
    "contentMediaType",
    "example",
    "propertyOrdering",
];

/// How the core reads schemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    /// Close objects that declare properties but say nothing about other keys.
    pub close_objects: bool,
    /// Accept the OpenAPI `nullable: true` and upper-case type names (Gemini).
    pub openapi: bool,
    /// Read BFCL's type names (`dict`, `float`, `tuple`, Java names) and its `optional` key;
    /// an `enum` none of whose values fits the type is dropped (with a warning) instead of
    /// refused.
    pub bfcl: bool,
    /// Hidden characters in text shown to the model are left for the checker to refuse, not
    /// removed with a warning ([`super::Options::deny_hidden`]).
    pub deny_hidden: bool,
}

impl Rules {
    /// The rules of a tool dialect: objects closed unless `--keep-open`, plain JSON Schema.
    pub(crate) fn tool_dialect(options: &super::Options) -> Rules {
        Rules {
            close_objects: !options.keep_open,
            openapi: false,
            bfcl: false,
            deny_hidden: options.deny_hidden,
        }
    }
}

/// Converts schemas of one document; named types come from `$defs` / `definitions`.
pub(crate) struct Core {
    pub rules: Rules,
    pub types: Vec<NamedType>,
    pub warnings: Vec<Warning>,
    pub errors: Vec<Issue>,
    defs: Option<(Map<String, Value>, &'static str)>,
    defs_ptr: String,
    /// Whether an object was closed because the dialect closes objects by default.
    pub closed_by_default: bool,
    /// Where each part of the model came from.
    pub origins: Origins,
    def_ids: HashMap<String, TypeId>,
    /// The named types made from definitions, by the text of every definition each reaches
    /// (its name first): a list of tools often repeats one `$defs` in every tool, and each copy
    /// is then the same type, not `Comment`, `Comment2`, ….
    shared: HashMap<String, TypeId>,
    /// Each definition of the current root as JSON text, with the definitions it refers to.
    def_texts: HashMap<String, (String, Vec<String>)>,
    /// The bytes of definitions that working out what they reach may still read in this
    /// import; once spent, each definition becomes a type of its own.
    share_budget: usize,
    type_names: std::collections::HashSet<String>,
    /// For each base name given a number, the next number to try: every lower one is taken.
    next_number: HashMap<String, usize>,
    depth: usize,
    /// Whether the next schema read is a property's, whose `default` and `examples` the field
    /// keeps; anywhere else they have no place.
    property: bool,
}

/// The deepest schema nesting the importer follows.
const MAX_DEPTH: usize = 64;

/// How many bytes of definitions an import reads to find copies of one definition (each
/// definition's text counted once for every definition that reaches it): a chain of definitions
/// each reaching all that follow would otherwise cost the square of its length.
const SHARE_BUDGET: usize = 16 << 20;

/// A name usable as a `.tool` type name, from any string.
pub(crate) fn type_name(raw: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.push(c.to_ascii_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

impl Core {
    pub(crate) fn new(rules: Rules) -> Self {
        Core {
            rules,
            types: Vec::new(),
            warnings: Vec::new(),
            errors: Vec::new(),
            defs: None,
            defs_ptr: String::new(),
            closed_by_default: false,
            origins: Origins::default(),
            def_ids: HashMap::new(),
            shared: HashMap::new(),
            def_texts: HashMap::new(),
            share_budget: SHARE_BUDGET,
            type_names: std::collections::HashSet::new(),
            next_number: HashMap::new(),
            depth: 0,
            property: false,
        }
    }

    pub(crate) fn warn(&mut self, pointer: &str, code: Code, message: impl Into<String>) {
        self.warnings.push(Warning {
            pointer: pointer.to_string(),
            code,
            message: message.into(),
        });
    }

    pub(crate) fn error(
        &mut self,
        pointer: &str,
        keyword: Option<&str>,
        code: Code,
        message: impl Into<String>,
    ) {
        self.errors.push(Issue {
            keyword: keyword.map(str::to_string),
            ..Issue::reading(pointer, code, message)
        });
    }

    /// Registers the named definitions of a document root (`$defs`, or draft-07
    /// `definitions`); each becomes a named type when first referenced.
    pub(crate) fn reset_defs(&mut self) {
        self.defs = None;
        self.def_ids.clear();
        self.def_texts.clear();
    }

    /// Registers the named definitions of a document root (see [`Core::set_defs`]).
    pub(crate) fn set_defs_owned(&mut self, root: &Value, root_ptr: &str) {
        self.set_defs(root, root_ptr)
    }

    pub(crate) fn set_defs(&mut self, root: &Value, root_ptr: &str) {
        self.defs_ptr = root_ptr.to_string();
        for key in ["$defs", "definitions"] {
            if let Some(d) = root.get(key) {
                match d.as_object() {
                    Some(m) => {
                        if self.defs.is_some() {
                            self.error(
                                &format!("{root_ptr}/{key}"),
                                Some(key),
                                Code::ImportUnsupported,
                                "both `$defs` and `definitions` are given; use one",
                            );
                        }
                        let static_key = if key == "$defs" {
                            "$defs"
                        } else {
                            "definitions"
                        };
                        self.defs = Some((m.clone(), static_key));
                    }
                    None => self.error(
                        &format!("{root_ptr}/{key}"),
                        Some(key),
                        Code::ImportInvalidKeyword,
                        format!("`{key}` must be an object"),
                    ),
                }
            }
        }
        let names: Vec<String> = self
            .defs
            .as_ref()
            .map(|(m, _)| m.keys().cloned().collect())
            .unwrap_or_default();
        // Import every definition, referenced or not, so none is silently lost.
        for name in names {
            self.reference_def(&name);
        }
    }

    /// The text of definition `def` and of every definition it reaches, in name order, each
    /// after its name: two definitions with the same text mean the same type. `None` when a
    /// definition it reaches is missing (an error, reported where the reference is read), or
    /// when the import has read [`SHARE_BUDGET`] bytes of definitions for this.
    fn reach(&mut self, def: &str) -> Option<String> {
        let mut seen = std::collections::BTreeSet::from([def.to_string()]);
        let mut queue = vec![def.to_string()];
        while let Some(name) = queue.pop() {
            let (bytes, refs) = self.def_text(&name).map(|(t, r)| (t.len(), r.clone()))?;
            self.share_budget = self.share_budget.checked_sub(bytes + name.len())?;
            for r in refs {
                if seen.insert(r.clone()) {
                    queue.push(r);
                }
            }
        }
        // The definition's own name first: two definitions of one cycle reach the same set.
        let mut reach = serde_json::to_string(def).ok()?;
        reach.push('\n');
        for name in &seen {
            let (text, _) = self.def_texts.get(name)?;
            reach.push_str(&serde_json::to_string(name).ok()?);
            reach.push(':');
            reach.push_str(text);
            reach.push('\n');
        }
        Some(reach)
    }

    /// Definition `name` of the current root as JSON text, with the local definitions it
    /// refers to; worked out once per root.
    fn def_text(&mut self, name: &str) -> Option<&(String, Vec<String>)> {
        if !self.def_texts.contains_key(name) {
            let schema = self.defs.as_ref()?.0.get(name)?;
            let text = serde_json::to_string(schema).ok()?;
            let mut refs = Vec::new();
            // Through a stack of its own: a definition may nest deeper than the thread's stack.
            let mut stack = vec![schema];
            while let Some(v) = stack.pop() {
                match v {
                    Value::Object(m) => {
                        if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                            refs.extend(local_definition(r));
                        }
                        stack.extend(m.values());
                    }
                    Value::Array(items) => stack.extend(items),
                    _ => {}
                }
            }
            self.def_texts.insert(name.to_string(), (text, refs));
        }
        self.def_texts.get(name)
    }

    /// The object a tool's parameters take from the model type of a root schema: the object
    /// itself, or the object definition a root `$ref` names (Pydantic writes a recursive model
    /// as `{"$ref": "#/$defs/Node", "$defs": {"Node": {...}}}`), with that definition; any
    /// other type is given back.
    pub(crate) fn root_object(&self, ty: Ty) -> Result<(ObjectTy, Option<TypeId>), Box<Ty>> {
        match ty {
            Ty::Object(o) => Ok((*o, None)),
            Ty::Ref(id) => match self.types.get(id.0).map(|t| &t.ty) {
                Some(Ty::Object(o)) => Ok(((**o).clone(), Some(id))),
                _ => Err(Box::new(Ty::Ref(id))),
            },
            other => Err(Box::new(other)),
        }
    }

    /// The JSON pointer of the definition a named type was made from.
    pub(crate) fn type_pointer(&self, id: TypeId) -> Option<&str> {
        self.origins.types.get(id.0).map(|o| o.pointer.as_str())
    }

    /// A unique type name for a definition.
    pub(crate) fn fresh_type_name(&mut self, raw: &str) -> String {
        let base = type_name(raw);
        let base = if crate::check::BUILTIN_TYPES.contains(&base.to_ascii_lowercase().as_str())
            || base == "Map"
        {
            format!("{base}Type")
        } else {
            base
        };
        // The base, else the base and the first free number from 2; each base resumes where
        // it stopped, so many definitions of one base cost one try each, not one per earlier.
        let mut name = base.clone();
        if self.type_names.contains(&name) {
            let n = self.next_number.entry(base.clone()).or_insert(2);
            loop {
                name = format!("{base}{n}");
                *n += 1;
                if !self.type_names.contains(&name) {
                    break;
                }
            }
        }
        self.type_names.insert(name.clone());
        name
    }

    fn reference_def(&mut self, def: &str) -> Option<TypeId> {
        if let Some(id) = self.def_ids.get(def) {
            return Some(*id);
        }
        let (defs, key) = self.defs.as_ref()?;
        let key = *key;
        let schema = defs.get(def)?.clone();
        let schema = &schema;
        let reach = self.reach(def);
        if let Some(id) = reach.as_ref().and_then(|r| self.shared.get(r)) {
            let id = *id;
            self.def_ids.insert(def.to_string(), id);
            return Some(id);
        }
        let root_ptr = self.defs_ptr.clone();
        let id = TypeId(self.types.len());
        let name = self.fresh_type_name(def);
        self.def_ids.insert(def.to_string(), id);
        if let Some(reach) = reach {
            self.shared.insert(reach, id);
        }
        self.types.push(NamedType {
            name,
            kind: NamedKind::Alias,
            description: None,
            ty: Ty::Any,
            recursive: false,
            deprecated: false,
            span: Default::default(),
        });
        let ptr = format!("{root_ptr}/{key}/{}", escape_pointer(def));
        self.origins.types.push(TypeOrigin {
            pointer: ptr.clone(),
            members: Vec::new(),
        });
        let ty = self.ty(schema, &ptr).unwrap_or(Ty::Any);
        if let Some(o) = self.origins.types.get_mut(id.0) {
            o.members = enum_pointers(&ty, schema, &ptr);
        }
        let description = schema
            .get("description")
            .and_then(Value::as_str)
            .and_then(|d| self.description(d, &ptr));
        let kind = named_kind(&ty);
        if let Some(t) = self.types.get_mut(id.0) {
            t.ty = ty;
            t.kind = kind;
            t.description = description;
            t.deprecated = schema.get("deprecated") == Some(&Value::Bool(true));
        }
        Some(id)
    }

    /// A description as `.tool` doc comments hold it: line ends normalised, lines trimmed at
    /// the end, the whole trimmed; `None` when blank.
    pub(crate) fn description(&mut self, text: &str, ptr: &str) -> Option<String> {
        // Hidden characters go first (with a warning), so that what is left is judged blank or
        // not as the checker will judge it.
        let text = self.shown_text(text, ptr, "description", Text::Prose);
        let lines: Vec<&str> = text
            .split('\n')
            .map(|l| l.trim_end_matches('\r').trim_end())
            .collect();
        let joined = lines.join("\n");
        let trimmed = joined.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }

    /// A tool's title, without hidden characters.
    pub(crate) fn title(&mut self, text: &str, ptr: &str) -> String {
        self.shown_text(text, ptr, "title", Text::Line)
    }

    /// The tool-poisoning guard ([`crate::hidden`]) on a text shown to the model: a hidden
    /// character is removed with a warning. Under `--deny-hidden` the text is kept as it is, and
    /// the checker refuses it at its pointer. Returns the text to import.
    fn shown_text(&mut self, text: &str, ptr: &str, what: &str, kind: Text) -> String {
        if self.rules.deny_hidden {
            return text.to_string();
        }
        let Some(h) = hidden::find(text, kind) else {
            return text.to_string();
        };
        self.warn(
            ptr,
            Code::ForbiddenCharacter,
            format!(
                "the {what} contains the invisible or control character {}; it was removed",
                h.code_point()
            ),
        );
        hidden::strip(text, kind)
    }

    /// How each of `values` breaks `ty` under strict validation, against the named types so far
    /// (`ty` compiled once for all of them).
    fn violations(&mut self, ty: &Ty, values: &[Value]) -> Vec<Option<String>> {
        let module = Module {
            tools: Vec::new(),
            types: std::mem::take(&mut self.types),
        };
        let r = crate::validate::first_violations(&module, values.iter().map(|v| (ty, v)));
        self.types = module.types;
        r
    }

    /// The model type of a schema, or `None` after reporting an error.
    pub(crate) fn ty(&mut self, schema: &Value, ptr: &str) -> Option<Ty> {
        let property = std::mem::take(&mut self.property);
        if self.depth >= MAX_DEPTH {
            self.error(
                ptr,
                None,
                Code::SchemaTooDeep,
                format!("the schema nests deeper than {MAX_DEPTH} levels"),
            );
            return None;
        }
        self.depth += 1;
        if let (false, Value::Object(s)) = (property, schema) {
            self.values_without_place(s, ptr);
        }
        let r = self.ty_inner(schema, ptr);
        self.depth -= 1;
        r
    }

    /// A `default` or `examples` on a schema that is not a property's (a tool's parameters, a
    /// definition, an item, a branch: Pydantic writes a model's `examples` at its root) has no
    /// place in the language: dropped with a warning.
    fn values_without_place(&mut self, s: &Map<String, Value>, ptr: &str) {
        for key in ["default", "examples"] {
            if s.contains_key(key) {
                self.warn(
                    &format!("{ptr}/{key}"),
                    Code::ImportDropped,
                    format!("`{key}` is kept only on a property (as its `= default` or `@example`); here it has no place in the language and was dropped"),
                );
            }
        }
    }

    fn ty_inner(&mut self, schema: &Value, ptr: &str) -> Option<Ty> {
        let s = match schema {
            Value::Bool(true) => return Some(Ty::Any),
            Value::Bool(false) => return Some(Ty::Never),
            // `{"not": {}}` (or `true`): the `false` schema as an object (what the emitter
            // writes for `never`); nothing else the schema says can widen it.
            Value::Object(s) if s.get("not").is_some_and(accepts_everything) => {
                return Some(Ty::Never)
            }
            Value::Object(s) => s,
            other => {
                self.error(
                    ptr,
                    None,
                    Code::ImportNotASchema,
                    format!("a schema must be an object or a boolean, not {other}"),
                );
                return None;
            }
        };
        for key in s.keys() {
            if UNSUPPORTED.contains(&key.as_str()) {
                self.error(
                    &format!("{ptr}/{}", escape_pointer(key)),
                    Some(key),
                    Code::ImportUnsupported,
                    format!("the keyword `{key}` has no equivalent in the language"),
                );
            }
        }
        if !self.errors.is_empty() && UNSUPPORTED.iter().any(|k| s.contains_key(*k)) {
            return None;
        }
        if let Some(r) = s.get("$ref") {
            return self.reference(s, r, ptr);
        }
        let branches = match (s.get("anyOf"), s.get("oneOf")) {
            (Some(_), Some(_)) => {
                self.error(
                    ptr,
                    Some("oneOf"),
                    Code::ImportUnsupported,
                    "`anyOf` and `oneOf` together cannot be expressed",
                );
                return None;
            }
            (Some(b), None) => Some(("anyOf", b)),
            (None, Some(b)) => Some(("oneOf", b)),
            (None, None) => None,
        };
        if let Some((key, b)) = branches {
            return self.branches(s, key, b, ptr);
        }
        self.plain(s, ptr)
    }

    fn reference(&mut self, s: &Map<String, Value>, r: &Value, ptr: &str) -> Option<Ty> {
        let rptr = format!("{ptr}/$ref");
        // A `type` that repeats the definition's own (as the MCP target writes beside a
        // recursive root, whose `outputSchema` must say `object`) adds nothing.
        let repeats_type = |key: &str| {
            key == "type"
                && r.as_str().and_then(local_definition).is_some_and(|def| {
                    let own = self.defs.as_ref().and_then(|(defs, _)| defs.get(&def));
                    own.and_then(|d| d.get("type"))
                        .is_some_and(|t| Some(t) == s.get("type"))
                })
        };
        for key in s.keys() {
            if repeats_type(key) {
                continue;
            }
            if !matches!(
                key.as_str(),
                "$ref"
                    | "$schema"
                    | "$defs"
                    | "definitions"
                    | "description"
                    | "title"
                    | "default"
                    | "examples"
                    | "deprecated"
                    | "$comment"
            ) {
                self.error(
                    &format!("{ptr}/{}", escape_pointer(key)),
                    Some(key),
                    Code::ImportUnsupported,
                    format!("`{key}` beside `$ref` cannot be expressed; only annotations may sit beside a reference"),
                );
                return None;
            }
        }
        let Some(text) = r.as_str() else {
            self.error(
                &rptr,
                Some("$ref"),
                Code::ImportInvalidKeyword,
                "`$ref` must be a string",
            );
            return None;
        };
        let Some(def) = local_definition(text) else {
            self.error(
                &rptr,
                Some("$ref"),
                Code::ImportUnsupported,
                format!("the reference `{text}` is not to a local `#/$defs/...` definition; external and root references are not supported"),
            );
            return None;
        };
        if def.contains('/') {
            self.error(
                &rptr,
                Some("$ref"),
                Code::ImportUnsupported,
                format!("the reference `{text}` points inside a definition"),
            );
            return None;
        }
        match self.reference_def(&def) {
            Some(id) => Some(Ty::Ref(id)),
            None => {
                self.error(
                    &rptr,
                    Some("$ref"),
                    Code::ImportUnresolvedRef,
                    format!("the reference `{text}` names no definition"),
                );
                None
            }
        }
    }

    fn branches(&mut self, s: &Map<String, Value>, key: &str, b: &Value, ptr: &str) -> Option<Ty> {
        let bptr = format!("{ptr}/{key}");
        let Some(list) = b.as_array() else {
            self.error(
                &bptr,
                Some(key),
                Code::ImportInvalidKeyword,
                format!("`{key}` must be an array"),
            );
            return None;
        };
        if list.is_empty() {
            self.error(
                &bptr,
                Some(key),
                Code::ImportUnsatisfiable,
                format!("an empty `{key}` accepts no value"),
            );
            return None;
        }
        let others: Vec<&String> = s
            .keys()
            .filter(|k| {
                !matches!(
                    k.as_str(),
                    "anyOf"
                        | "oneOf"
                        | "discriminator"
                        | "description"
                        | "title"
                        | "default"
                        | "examples"
                        | "deprecated"
                        | "$comment"
                        | "$schema"
                        | "$defs"
                        | "definitions"
                )
            })
            .collect();
        // `type` beside the branches restricts every branch: it is moved into the branches
        // that have none, and must already hold in those that have one.
        let outer_type = s.get("type").filter(|_| others.len() == 1);
        if let Some(k) = others.first().filter(|_| outer_type.is_none()) {
            self.error(
                &format!("{ptr}/{}", escape_pointer(k)),
                Some(k),
                Code::ImportUnsupported,
                format!("`{k}` beside `{key}` cannot be expressed; move it into every branch"),
            );
            return None;
        }
        let mut moved = Vec::new();
        for (i, branch) in list.iter().enumerate() {
            match (outer_type, branch.get("type")) {
                (Some(t), None) => {
                    let mut b = branch.clone();
                    if let Value::Object(m) = &mut b {
                        m.insert("type".into(), t.clone());
                    }
                    moved.push(b);
                }
                (Some(t), Some(bt)) if t != bt => {
                    self.error(
                        &format!("{bptr}/{i}/type"),
                        Some("type"),
                        Code::ImportUnsupported,
                        format!("the branch's `type` differs from the `type` beside `{key}`; the intersection cannot be expressed"),
                    );
                    return None;
                }
                _ => moved.push(branch.clone()),
            }
        }
        let list = &moved;
        let mut members = Vec::new();
        let mut kinds: Vec<Option<Vec<&'static str>>> = Vec::new();
        for (i, branch) in list.iter().enumerate() {
            let p = format!("{bptr}/{i}");
            if branch.get("description").is_some() {
                self.warn(&p, Code::ImportDropped, "the description of a union branch has no place in the language and was dropped");
            }
            members.push(self.ty(branch, &p)?);
            kinds.push(branch_types(branch));
        }
        if let Some(d) = s.get("discriminator") {
            // Branches told apart by a tag are disjoint, so `oneOf` equals `anyOf`; the union
            // is the language's discriminated union (`Module::discriminator`) once each branch
            // is seen to require its own tag.
            self.discriminator(d, list, &format!("{ptr}/discriminator"), &bptr)?;
            return Some(union(members));
        }
        if key == "oneOf" {
            // `oneOf` means "exactly one"; it equals `anyOf` only when no value fits two
            // branches, which is certain when the branches accept disjoint JSON types.
            if closed_objects_disjoint(list) {
                return Some(union(members));
            }
            let mut seen: Vec<&str> = Vec::new();
            for (i, k) in kinds.iter().enumerate() {
                let Some(k) = k else {
                    self.error(
                        &format!("{bptr}/{i}"),
                        Some("oneOf"),
                        Code::ImportUnsupported,
                        "`oneOf` is only supported when every branch has a `type` and no two branches share one (then it equals `anyOf`)",
                    );
                    return None;
                };
                for t in k {
                    let clash = seen.contains(t)
                        || (*t == "integer" && seen.contains(&"number"))
                        || (*t == "number" && seen.contains(&"integer"));
                    if clash {
                        self.error(
                            &format!("{bptr}/{i}"),
                            Some("oneOf"),
                            Code::ImportUnsupported,
                            format!("`oneOf` branches that overlap (both accept {t}) cannot be expressed"),
                        );
                        return None;
                    }
                    seen.push(t);
                }
            }
        }
        Some(union(members))
    }

    /// Checks an OpenAPI `discriminator` (`propertyName`, optional `mapping`) beside the
    /// branches `list` (at `bptr`): every branch, inline or a local `$ref`, must require the
    /// property with a string `const` or one-value `enum`, a different tag in each, and each
    /// entry of `mapping` must name a branch's reference whose tag is the entry's key. What the
    /// discriminator says is then already said by the branches, so it adds nothing to the type.
    fn discriminator(&mut self, d: &Value, list: &[Value], dptr: &str, bptr: &str) -> Option<()> {
        let Some(name) = d.get("propertyName").and_then(Value::as_str) else {
            self.error(
                dptr,
                Some("discriminator"),
                Code::ImportInvalidKeyword,
                "`discriminator` must be an object with a string `propertyName`",
            );
            return None;
        };
        let mut tags: Vec<(Option<&str>, String)> = Vec::new();
        for (i, branch) in list.iter().enumerate() {
            let p = format!("{bptr}/{i}");
            let reference = branch.get("$ref").and_then(Value::as_str);
            let target = match reference.and_then(local_definition) {
                Some(def) => self
                    .defs
                    .as_ref()
                    .and_then(|(defs, _)| defs.get(&def))
                    .cloned(),
                None => Some(branch.clone()),
            };
            let tag = target.as_ref().and_then(|t| branch_tag(t, name));
            let Some(tag) = tag else {
                self.error(
                    &p,
                    Some("discriminator"),
                    Code::ImportUnsupported,
                    format!("the branch does not require `{name}` with a string `const` or one-value `enum`, so the `discriminator` cannot tell it apart"),
                );
                return None;
            };
            if tags.iter().any(|(_, t)| *t == tag) {
                self.error(
                    &p,
                    Some("discriminator"),
                    Code::ImportUnsupported,
                    format!("two branches have the tag \"{tag}\"; the `discriminator` cannot tell them apart"),
                );
                return None;
            }
            tags.push((reference, tag));
        }
        let Some(mapping) = d.get("mapping") else {
            return Some(());
        };
        let mptr = format!("{dptr}/mapping");
        let Some(mapping) = mapping.as_object() else {
            self.error(
                &mptr,
                Some("mapping"),
                Code::ImportInvalidKeyword,
                "`mapping` must be an object of tags to references",
            );
            return None;
        };
        for (key, value) in mapping {
            let p = format!("{mptr}/{}", escape_pointer(key));
            let branch = value
                .as_str()
                .and_then(|v| tags.iter().find(|(r, _)| *r == Some(v)));
            let problem = match branch {
                None => format!("the mapping's `{key}` names no branch's `$ref`"),
                Some((_, tag)) if tag != key => {
                    format!("the mapping gives `{key}` to a branch whose tag is \"{tag}\"")
                }
                Some(_) => continue,
            };
            self.error(&p, Some("mapping"), Code::ImportInvalidKeyword, problem);
            return None;
        }
        Some(())
    }

    /// A schema without `$ref`, `anyOf` or `oneOf`.
    fn plain(&mut self, s: &Map<String, Value>, ptr: &str) -> Option<Ty> {
        for key in s.keys() {
            let known = matches!(
                key.as_str(),
                "type"
                    | "enum"
                    | "const"
                    | "minimum"
                    | "maximum"
                    | "exclusiveMinimum"
                    | "exclusiveMaximum"
                    | "multipleOf"
                    | "minLength"
                    | "maxLength"
                    | "pattern"
                    | "format"
                    | "items"
                    | "prefixItems"
                    | "minItems"
                    | "maxItems"
                    | "uniqueItems"
                    | "properties"
                    | "required"
                    | "additionalProperties"
                    | "minProperties"
                    | "maxProperties"
                    | "dependentRequired"
                    | "description"
                    | "default"
                    | "examples"
                    | "deprecated"
                    | "$schema"
                    | "$defs"
                    | "definitions"
            ) || (self.rules.openapi && key == "nullable")
                || (self.rules.bfcl && key == "optional");
            if !known && !UNSUPPORTED.contains(&key.as_str()) {
                let p = format!("{ptr}/{}", escape_pointer(key));
                if DROPPED_ANNOTATIONS.contains(&key.as_str()) {
                    self.warn(
                        &p,
                        Code::ImportDropped,
                        format!(
                            "the annotation `{key}` has no place in the language and was dropped"
                        ),
                    );
                } else {
                    self.warn(&p, Code::ImportDropped, format!("the unknown keyword `{key}` was ignored (JSON Schema ignores unknown keywords too)"));
                }
            }
        }
        // The JSON types the schema allows.
        let mut allowed: Vec<&'static str> = match s.get("type") {
            None => TYPES.to_vec(),
            Some(t) => {
                let names: Vec<&Value> = match t {
                    Value::Array(a) => a.iter().collect(),
                    other => vec![other],
                };
                let mut out = Vec::new();
                for n in names {
                    let Some(n) = n.as_str() else {
                        self.error(
                            &format!("{ptr}/type"),
                            Some("type"),
                            Code::ImportInvalidKeyword,
                            format!("`type` must name types, not {n}"),
                        );
                        return None;
                    };
                    match self.type_keyword(n, ptr) {
                        Some(Some(t)) => {
                            if !out.contains(&t) {
                                out.push(t)
                            }
                        }
                        Some(None) => return self.plain_untyped(s, ptr, TYPES.to_vec()),
                        None => return None,
                    }
                }
                out
            }
        };
        if s.get("nullable") == Some(&Value::Bool(true)) && !allowed.contains(&"null") {
            allowed.push("null");
        }
        self.plain_untyped(s, ptr, allowed)
    }

    /// The JSON type a `type` name stands for; `Some(None)` for "any type".
    fn type_keyword(&mut self, n: &str, ptr: &str) -> Option<Option<&'static str>> {
        let lower = n.to_ascii_lowercase();
        let direct = TYPES.iter().copied().find(|t| *t == n);
        if let Some(t) = direct {
            return Some(Some(t));
        }
        if self.rules.openapi {
            if let Some(t) = TYPES.iter().copied().find(|t| *t == lower) {
                return Some(Some(t));
            }
        }
        if self.rules.bfcl {
            let mapped = match n {
                "dict" | "HashMap" | "Map" => Some("object"),
                "float" | "double" | "Double" | "Float" => Some("number"),
                "tuple" | "ArrayList" | "Array" | "List" | "list" => Some("array"),
                "String" | "char" | "str" => Some("string"),
                "long" | "Long" | "int" | "Integer" => Some("integer"),
                "Boolean" | "bool" => Some("boolean"),
                "any" | "" => return Some(None),
                _ => None,
            };
            if let Some(t) = mapped {
                if !matches!(n, "dict" | "float" | "tuple") {
                    self.warn(
                        &format!("{ptr}/type"),
                        Code::ImportInterpreted,
                        format!("the type name `{n}` was read as `{t}`"),
                    );
                }
                return Some(Some(t));
            }
        }
        self.error(
            &format!("{ptr}/type"),
            Some("type"),
            Code::ImportInvalidKeyword,
            format!("unknown type `{n}`"),
        );
        None
    }

    fn plain_untyped(
        &mut self,
        s: &Map<String, Value>,
        ptr: &str,
        allowed: Vec<&'static str>,
    ) -> Option<Ty> {
        let has_number = allowed.contains(&"number");
        let mut members: Vec<Ty> = Vec::new();
        let mut nullable = false;
        let any_constraint = |keys: &[&str]| keys.iter().any(|k| s.contains_key(*k));
        let all_types = TYPES.iter().all(|t| allowed.contains(t));
        for t in &allowed {
            match *t {
                "null" => nullable = true,
                "boolean" => members.push(Ty::Boolean),
                "string" => members.push(Ty::String(self.string_rules(s, ptr)?)),
                "integer" if has_number => {}
                "integer" => members.push(Ty::Integer(self.number_rules(s, ptr)?)),
                "number" => members.push(Ty::Number(self.number_rules(s, ptr)?)),
                "array" => members.push(self.array(s, ptr)?),
                "object" => members.push(self.object(s, ptr)?),
                _ => {}
            }
        }
        let constrained = any_constraint(&[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "pattern",
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "properties",
            "required",
            "additionalProperties",
            "minProperties",
            "maxProperties",
            "dependentRequired",
        ]) || (s.contains_key("format")
            && s.get("format")
                .and_then(Value::as_str)
                .and_then(Format::from_name)
                .is_some());
        let mut ty = if all_types && !constrained {
            Ty::Any
        } else {
            let inner = union(members);
            match inner {
                Ty::Null => Ty::Null,
                t if nullable => Ty::Nullable(Box::new(t)),
                t => t,
            }
        };
        if allowed.is_empty() {
            self.error(
                &format!("{ptr}/type"),
                Some("type"),
                Code::ImportUnsatisfiable,
                "an empty `type` list accepts no value",
            );
            return None;
        }
        if let Some(values) = self.values(s, ptr)? {
            // Keep the values that also fit the rest of the schema.
            let mut kept = Vec::new();
            let problems = self.violations(&ty, &values);
            for (v, problem) in values.into_iter().zip(problems) {
                if problem.is_none() {
                    kept.push(v);
                } else {
                    self.warn(ptr, Code::ImportDropped, format!("the value {v} of `enum`/`const` does not fit the rest of the schema and can never match; it was left out"));
                }
            }
            // OpenAPI's `nullable: true` admits null beside the enum's values (as the gemini
            // target writes a nullable enum).
            if self.rules.openapi
                && s.get("nullable") == Some(&Value::Bool(true))
                && !kept.iter().any(Value::is_null)
                && !kept.is_empty()
            {
                kept.push(Value::Null);
            }
            if kept.is_empty() && self.rules.bfcl {
                self.warn(
                    &format!("{ptr}/enum"),
                    Code::ImportDropped,
                    "no value of `enum` fits the type; the enum was dropped and the type kept",
                );
            } else {
                ty = literal_type(kept);
            }
        }
        Some(ty)
    }

    /// The values of `enum` or `const`, if given.
    fn values(&mut self, s: &Map<String, Value>, ptr: &str) -> Option<Option<Vec<Value>>> {
        let mut values: Option<Vec<Value>> = None;
        if let Some(e) = s.get("enum") {
            match e.as_array() {
                Some(a) => values = Some(a.clone()),
                None => {
                    self.error(
                        &format!("{ptr}/enum"),
                        Some("enum"),
                        Code::ImportInvalidKeyword,
                        "`enum` must be an array",
                    );
                    return None;
                }
            }
        }
        // How deep a value may nest, and whether a value that a target writes into a
        // description holds a hidden character, is the checker's to say.
        if let Some(c) = s.get("const") {
            values = Some(match values {
                Some(vs) => vs
                    .into_iter()
                    .filter(|v| crate::validate::json_equal(v, c))
                    .collect(),
                None => vec![c.clone()],
            });
        }
        Some(values)
    }

    fn number(
        &mut self,
        s: &Map<String, Value>,
        key: &str,
        ptr: &str,
    ) -> Option<Option<Spanned<Number>>> {
        match s.get(key) {
            None => Some(None),
            Some(Value::Number(n)) => {
                let tag = self.origins.keyword(format!("{ptr}/{key}"));
                Some(Some(Spanned::new(n.clone(), tag)))
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/{key}"),
                    Some(key),
                    Code::ImportInvalidKeyword,
                    format!("`{key}` must be a number, not {other}"),
                );
                None
            }
        }
    }

    fn count(
        &mut self,
        s: &Map<String, Value>,
        key: &str,
        ptr: &str,
    ) -> Option<Option<Spanned<u64>>> {
        match s.get(key) {
            None => Some(None),
            Some(Value::Number(n)) => {
                let v = n.as_u64().or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19)
                        .map(|f| f as u64)
                });
                match v {
                    Some(v) => {
                        let tag = self.origins.keyword(format!("{ptr}/{key}"));
                        Some(Some(Spanned::new(v, tag)))
                    }
                    None => {
                        self.error(
                            &format!("{ptr}/{key}"),
                            Some(key),
                            Code::ImportInvalidKeyword,
                            format!("`{key}` must be a whole number, not {n}"),
                        );
                        None
                    }
                }
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/{key}"),
                    Some(key),
                    Code::ImportInvalidKeyword,
                    format!("`{key}` must be a whole number, not {other}"),
                );
                None
            }
        }
    }

    fn number_rules(&mut self, s: &Map<String, Value>, ptr: &str) -> Option<NumberRules> {
        let rules = NumberRules {
            minimum: self.number(s, "minimum", ptr)?,
            maximum: self.number(s, "maximum", ptr)?,
            exclusive_minimum: self.number(s, "exclusiveMinimum", ptr)?,
            exclusive_maximum: self.number(s, "exclusiveMaximum", ptr)?,
            multiple_of: self.number(s, "multipleOf", ptr)?,
        };
        Some(rules)
    }

    fn string_rules(&mut self, s: &Map<String, Value>, ptr: &str) -> Option<StringRules> {
        let mut rules = StringRules {
            min_length: self.count(s, "minLength", ptr)?,
            max_length: self.count(s, "maxLength", ptr)?,
            pattern: None,
            format: None,
        };
        if let Some(p) = s.get("pattern") {
            let Some(p) = p.as_str() else {
                self.error(
                    &format!("{ptr}/pattern"),
                    Some("pattern"),
                    Code::ImportInvalidKeyword,
                    "`pattern` must be a string",
                );
                return None;
            };
            // Whether the engine takes the pattern is the checker's to say.
            let tag = self.origins.keyword(format!("{ptr}/pattern"));
            rules.pattern = Some(Spanned::new(p.to_string(), tag));
        }
        if let Some(f) = s.get("format") {
            match f.as_str().map(|n| (n, Format::from_name(n))) {
                Some((_, Some(f))) => {
                    let tag = self.origins.keyword(format!("{ptr}/format"));
                    rules.format = Some(Spanned::new(f, tag))
                }
                Some((n, None)) => {
                    self.warn(&format!("{ptr}/format"), Code::ImportDropped, format!("the format `{n}` is unknown to the language and was dropped (formats are annotations in JSON Schema)"));
                }
                None => {
                    self.error(
                        &format!("{ptr}/format"),
                        Some("format"),
                        Code::ImportInvalidKeyword,
                        "`format` must be a string",
                    );
                    return None;
                }
            }
        }
        Some(rules)
    }

    fn array(&mut self, s: &Map<String, Value>, ptr: &str) -> Option<Ty> {
        let items = match s.get("items") {
            None => Ty::Any,
            Some(i) => self.ty(i, &format!("{ptr}/items"))?,
        };
        let prefix = match s.get("prefixItems") {
            None => None,
            Some(Value::Array(p)) if !p.is_empty() => {
                let mut out = Vec::with_capacity(p.len());
                for (i, item) in p.iter().enumerate() {
                    out.push(self.ty(item, &format!("{ptr}/prefixItems/{i}"))?);
                }
                Some(out)
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/prefixItems"),
                    Some("prefixItems"),
                    Code::ImportInvalidKeyword,
                    format!("`prefixItems` must be a non-empty array of schemas, not {other}"),
                );
                return None;
            }
        };
        let unique = match s.get("uniqueItems") {
            None => None,
            Some(Value::Bool(true)) => Some(Spanned::new(
                true,
                self.origins.keyword(format!("{ptr}/uniqueItems")),
            )),
            Some(Value::Bool(false)) => None,
            Some(other) => {
                self.error(
                    &format!("{ptr}/uniqueItems"),
                    Some("uniqueItems"),
                    Code::ImportInvalidKeyword,
                    format!("`uniqueItems` must be a boolean, not {other}"),
                );
                return None;
            }
        };
        let min_items = self.count(s, "minItems", ptr)?;
        let max_items = self.count(s, "maxItems", ptr)?;
        let Some(prefix) = prefix else {
            return Some(Ty::Array(Box::new(ArrayTy {
                items,
                min_items,
                max_items,
                unique,
            })));
        };
        // `minItems` within the positional items says how many of them are required; beyond
        // them it stays a constraint.
        let min = min_items.as_ref().map_or(0, |m| m.value);
        let required = usize::try_from(min).map_or(prefix.len(), |m| m.min(prefix.len()));
        let min_items = min_items.filter(|m| m.value > prefix.len() as u64);
        // A `maxItems` within the positional items leaves no room for more (Pydantic writes a
        // `tuple[float, float]` as two `prefixItems` with `maxItems: 2` and no `items`): the
        // tuple is closed, and a `maxItems` equal to its length says nothing more.
        let full = max_items
            .as_ref()
            .is_some_and(|m| m.value <= prefix.len() as u64);
        let max_items = max_items.filter(|m| m.value != prefix.len() as u64);
        let rest = match items {
            _ if full => Additional::Closed,
            Ty::Never => Additional::Closed,
            Ty::Any => Additional::Open,
            t => Additional::Schema(t),
        };
        Some(Ty::Tuple(Box::new(TupleTy {
            items: prefix,
            required,
            rest,
            min_items,
            max_items,
            unique,
        })))
    }

    pub(crate) fn object(&mut self, s: &Map<String, Value>, ptr: &str) -> Option<Ty> {
        let empty = Map::new();
        let props = match s.get("properties") {
            None => &empty,
            Some(Value::Object(p)) => p,
            Some(other) => {
                self.error(
                    &format!("{ptr}/properties"),
                    Some("properties"),
                    Code::ImportInvalidKeyword,
                    format!("`properties` must be an object, not {other}"),
                );
                return None;
            }
        };
        let mut required: Vec<String> = Vec::new();
        match s.get("required") {
            None => {}
            Some(Value::Array(r)) => {
                for v in r {
                    match v.as_str() {
                        Some(n) => required.push(n.to_string()),
                        None => {
                            self.error(
                                &format!("{ptr}/required"),
                                Some("required"),
                                Code::ImportInvalidKeyword,
                                format!("`required` lists names, not {v}"),
                            );
                            return None;
                        }
                    }
                }
            }
            // Some dialects (and old drafts) write `required: true` on a property; it is read
            // where the property is read.
            Some(Value::Bool(_)) if self.rules.bfcl => {}
            Some(other) => {
                self.error(
                    &format!("{ptr}/required"),
                    Some("required"),
                    Code::ImportInvalidKeyword,
                    format!("`required` must be an array, not {other}"),
                );
                return None;
            }
        }
        let required_set: std::collections::HashSet<&str> =
            required.iter().map(String::as_str).collect();
        let mut fields = Vec::new();
        let mut failed = false;
        for (name, p) in props {
            let pptr = format!("{ptr}/properties/{}", escape_pointer(name));
            self.property = true;
            let Some(ty) = self.ty(p, &pptr) else {
                failed = true;
                continue;
            };
            let is_required = required_set.contains(name.as_str());
            if self.rules.bfcl {
                if let Some(Value::Bool(opt)) = p.get("optional") {
                    self.warn(&format!("{pptr}/optional"), Code::ImportInterpreted, "the non-standard `optional` key was read: the parameter is optional when it is true and `required` does not list it");
                    if *opt && is_required {
                        self.warn(
                            &format!("{pptr}/optional"),
                            Code::ImportInterpreted,
                            "`optional: true` contradicts `required`; the parameter stays required",
                        );
                    }
                }
            }
            let description = p
                .get("description")
                .and_then(Value::as_str)
                .and_then(|d| self.description(d, &format!("{pptr}/description")));
            // Whether the default and the examples fit, and whether the name is one a field
            // may have, is the checker's to say (the importer drops what it refuses).
            let mut examples = Vec::new();
            let mut example_pointers = Vec::new();
            if let Some(ex) = p.get("examples") {
                match ex.as_array() {
                    Some(list) => {
                        for (i, e) in list.iter().enumerate() {
                            examples.push(e.clone());
                            example_pointers.push(format!("{pptr}/examples/{i}"));
                        }
                    }
                    None => self.warn(
                        &format!("{pptr}/examples"),
                        Code::ImportDropped,
                        "`examples` is not an array; it was dropped",
                    ),
                }
            }
            let origin = FieldOrigin {
                members: enum_pointers(&ty, p, &pptr),
                pointer: pptr,
                examples: example_pointers,
            };
            fields.push(Field {
                name: name.clone(),
                description,
                required: is_required,
                ty,
                default: p.get("default").cloned(),
                examples,
                deprecated: p.get("deprecated") == Some(&Value::Bool(true)),
                span: self.origins.field(origin),
            });
        }
        if failed {
            return None;
        }
        let additional = match s.get("additionalProperties") {
            Some(Value::Bool(false)) => Additional::Closed,
            Some(Value::Bool(true)) => Additional::Open,
            Some(a @ Value::Object(m)) => {
                if m.is_empty() {
                    Additional::Open
                } else {
                    Additional::Schema(self.ty(a, &format!("{ptr}/additionalProperties"))?)
                }
            }
            Some(other) => {
                self.error(
                    &format!("{ptr}/additionalProperties"),
                    Some("additionalProperties"),
                    Code::ImportNotASchema,
                    format!("`additionalProperties` must be a schema, not {other}"),
                );
                return None;
            }
            None if self.rules.close_objects && !props.is_empty() => {
                self.closed_by_default = true;
                Additional::Closed
            }
            None => Additional::Open,
        };
        let mut added = std::collections::HashSet::new();
        for r in &required {
            if !props.contains_key(r) && added.insert(r.as_str()) {
                if additional == Additional::Closed {
                    self.error(&format!("{ptr}/required"), Some("required"), Code::ImportUnsatisfiable, format!("`{r}` is required but not a property of a closed object, so no value fits"));
                    return None;
                }
                let ty = match &additional {
                    Additional::Schema(t) => t.clone(),
                    _ => Ty::Any,
                };
                self.warn(&format!("{ptr}/required"), Code::ImportInterpreted, format!("`{r}` is required but has no property schema; it was declared as a field of the type other keys hold"));
                fields.push(Field {
                    name: r.clone(),
                    description: None,
                    required: true,
                    ty,
                    default: None,
                    examples: Vec::new(),
                    deprecated: false,
                    span: Default::default(),
                });
            }
        }
        let rules = self.key_rules(s, ptr)?;
        Some(Ty::Object(Box::new(ObjectTy {
            fields,
            additional,
            rules,
        })))
    }

    /// `minProperties`, `maxProperties` and `dependentRequired` (whose names must be declared
    /// properties: the language states rules over its fields).
    fn key_rules(&mut self, s: &Map<String, Value>, ptr: &str) -> Option<KeyRules> {
        let mut rules = KeyRules {
            min_properties: self.count(s, "minProperties", ptr)?,
            max_properties: self.count(s, "maxProperties", ptr)?,
            groups: Vec::new(),
        };
        let Some(dependent) = s.get("dependentRequired") else {
            return Some(rules);
        };
        let at = format!("{ptr}/dependentRequired");
        let Value::Object(dependent) = dependent else {
            self.error(
                &at,
                Some("dependentRequired"),
                Code::ImportInvalidKeyword,
                format!("`dependentRequired` must be an object, not {dependent}"),
            );
            return None;
        };
        for (key, needs) in dependent {
            let names: Option<Vec<String>> = needs
                .as_array()
                .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect());
            let Some(names) = names else {
                self.error(&at, Some("dependentRequired"), Code::ImportInvalidKeyword, format!("`dependentRequired` lists the names `{key}` asks for, in an array of strings, not {needs}"));
                return None;
            };
            // Whether the names are declared fields is the checker's to say.
            let needs: Vec<String> = names.into_iter().filter(|n| n != key).collect();
            if !needs.is_empty() {
                let group = KeyGroup::Requires {
                    key: key.clone(),
                    needs,
                };
                let tag = self
                    .origins
                    .keyword(format!("{at}/{}", escape_pointer(key)));
                rules.groups.push(Spanned::new(group, tag));
            }
        }
        Some(rules)
    }
}

/// The keyword a named type is written with: `type X { }` for objects with fields, `enum` for
/// sets of strings and integers, `type X = T` otherwise.
pub(crate) fn named_kind(ty: &Ty) -> NamedKind {
    match ty {
        Ty::Object(o) if !o.is_map() || !o.fields.is_empty() => NamedKind::Object,
        Ty::Enum(ms)
            if ms.len() > 1
                && ms
                    .iter()
                    .all(|m| m.value.is_string() || m.value.is_i64() || m.value.is_u64()) =>
        {
            NamedKind::Enum
        }
        _ => NamedKind::Alias,
    }
}

/// Whether every branch is a closed object (`type: object`, `additionalProperties: false`) and
/// no value can fit two of them: for each pair, one requires a key the other does not declare.
fn closed_objects_disjoint(list: &[Value]) -> bool {
    let closed = |b: &Value| {
        b.get("type") == Some(&Value::String("object".into()))
            && b.get("additionalProperties") == Some(&Value::Bool(false))
    };
    if !list.iter().all(closed) {
        return false;
    }
    let declares = |b: &Value, k: &str| b.get("properties").and_then(|p| p.get(k)).is_some();
    let requires_foreign = |a: &Value, b: &Value| {
        a.get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().filter_map(Value::as_str).any(|k| !declares(b, k)))
    };
    list.iter().enumerate().all(|(i, a)| {
        list[i + 1..]
            .iter()
            .all(|b| requires_foreign(a, b) || requires_foreign(b, a))
    })
}

/// The JSON types a union branch accepts, when it says (`type`, `const`, `enum`).
fn branch_types(b: &Value) -> Option<Vec<&'static str>> {
    let kind = |v: &Value| -> &'static str {
        match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if crate::validate::is_integer(n) => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    };
    if let Some(c) = b.get("const") {
        return Some(vec![kind(c)]);
    }
    if let Some(Value::Array(vs)) = b.get("enum") {
        let mut out: Vec<&'static str> = vs.iter().map(kind).collect();
        out.dedup();
        return Some(out);
    }
    match b.get("type")? {
        Value::String(t) => TYPES.iter().copied().find(|x| x == t).map(|x| vec![x]),
        Value::Array(ts) => ts
            .iter()
            .map(|t| {
                t.as_str()
                    .and_then(|t| TYPES.iter().copied().find(|x| *x == t))
            })
            .collect(),
        _ => None,
    }
}

/// The union of member types, normalised as the language reads `A | B | null`.
pub(crate) fn union(members: Vec<Ty>) -> Ty {
    crate::model::union_of(members).ty
}

/// The type of an `enum`/`const`'s values: a literal, an enum, nullable when `null` is among
/// them, `never` when none is left.
fn literal_type(values: Vec<Value>) -> Ty {
    let mut nullable = false;
    let mut members: Vec<EnumMember> = Vec::new();
    let mut seen = crate::model::ValueSet::default();
    for v in values {
        if v.is_null() {
            nullable = true;
        } else if seen.insert(&v, false) {
            members.push(EnumMember {
                value: v,
                description: None,
            });
        }
    }
    let inner = match members.len() {
        0 if nullable => return Ty::Null,
        0 => return Ty::Never,
        1 => Ty::Const(members.remove(0).value),
        _ => Ty::Enum(members),
    };
    if nullable {
        Ty::Nullable(Box::new(inner))
    } else {
        inner
    }
}

/// Whether a schema is `true` or `{}`, which accept every value.
fn accepts_everything(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// The name of the local definition `reference` (`#/$defs/Name` or `#/definitions/Name`)
/// points to, unescaped; `None` for any other reference.
fn local_definition(reference: &str) -> Option<String> {
    let def = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    Some(unescape_pointer(def).into_owned())
}

/// The tag an object schema gives the property `name`: a string `const` or a one-value string
/// `enum`, when the property is required.
fn branch_tag(schema: &Value, name: &str) -> Option<String> {
    let required = schema.get("required")?.as_array()?;
    if !required.iter().any(|r| r.as_str() == Some(name)) {
        return None;
    }
    let property = schema.get("properties")?.get(name)?;
    let value = match (property.get("const"), property.get("enum")) {
        (Some(c), _) => c,
        (None, Some(Value::Array(one))) if one.len() == 1 => &one[0],
        _ => return None,
    };
    value.as_str().map(str::to_string)
}
