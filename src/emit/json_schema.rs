//! The canonical target: JSON Schema draft 2020-12.
//!
//! Decisions (see docs/language.md, "JSON Schema output"):
//! - Named types are inlined where used; only types on a reference cycle go to `$defs` and are
//!   referenced with `$ref`.
//! - Every object with declared fields is closed with `"additionalProperties": false`; `map<T>`
//!   emits `"additionalProperties": <T>`; an open object (`...`) leaves the keyword out.
//! - `T | null` becomes a type array (`"type": ["string", "null"]`) when `T` has a single
//!   `type`, `null` joins the `enum` of an enum, and `anyOf` with `{"type": "null"}` is used
//!   otherwise.
//! - Descriptions of enum values are folded into the description ("One of: ...").

use std::collections::HashSet;

use indexmap::IndexSet;
use serde_json::{json, Map, Value};

use super::fold;
use crate::diagnostic::Span;
use crate::model::*;

/// The `$schema` URI of draft 2020-12.
pub(crate) const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The schema of a tool's parameters.
pub fn parameters(module: &Module, tool: &Tool) -> Value {
    let mut e = Emitter::new(module);
    let body = e.object(&tool.params);
    e.root(body)
}

/// The schema of a tool's `-> T` output, if it declares one.
pub fn output(module: &Module, tool: &Tool) -> Option<Value> {
    let ty = tool.output.as_ref()?;
    let mut e = Emitter::new(module);
    let body = e.schema(ty);
    Some(e.root(body))
}

/// The schema of any type on its own (a named type inlined at the root), or `None` when it
/// would pass [`super::MAX_INLINED_SCHEMAS`] or [`super::MAX_INLINED_TEXT`] once named types are
/// inlined: the checker bounds the schemas of tools, and a type no tool uses can double at every
/// level (a type using twice a type that uses twice ... is 2^n schemas from n short lines).
pub fn type_schema(module: &Module, ty: &Ty) -> Option<Value> {
    let shape = crate::shape::Shapes::of(module).root(module, ty);
    if super::too_large(&shape, "the type", Span::default()).is_some() {
        return None;
    }
    Some(type_schema_within_limits(module, ty))
}

/// [`type_schema`] for a type whose size was checked against the limits.
pub(crate) fn type_schema_within_limits(module: &Module, ty: &Ty) -> Value {
    let mut e = Emitter::new(module);
    let body = match ty {
        Ty::Ref(id) => e.inline(*id),
        other => e.schema(other),
    };
    e.root(body)
}

struct Emitter<'m> {
    module: &'m Module,
    /// Recursive types referenced so far, in order of first use.
    defs: IndexSet<TypeId>,
}

impl<'m> Emitter<'m> {
    fn new(module: &'m Module) -> Self {
        Emitter {
            module,
            defs: IndexSet::new(),
        }
    }

    /// Adds `$schema` in front and the `$defs` that the body needs behind.
    fn root(&mut self, body: Map<String, Value>) -> Value {
        let mut root = Map::new();
        root.insert("$schema".into(), Value::String(DRAFT_2020_12.into()));
        root.extend(body);
        let mut defs = Map::new();
        let mut i = 0;
        while let Some(&id) = self.defs.get_index(i) {
            let schema = self.inline(id);
            defs.insert(self.module.get(id).name.clone(), Value::Object(schema));
            i += 1;
        }
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        Value::Object(root)
    }

    /// The body of a named type with its description.
    fn inline(&mut self, id: TypeId) -> Map<String, Value> {
        let named = self.module.get(id);
        let mut m = self.schema(&named.ty);
        if let Some(d) = join(
            named.description.as_deref(),
            enum_fold(self.module, &named.ty),
        ) {
            describe(&mut m, d);
        }
        if named.deprecated {
            m.insert("deprecated".into(), Value::Bool(true));
        }
        m
    }

    fn schema(&mut self, ty: &Ty) -> Map<String, Value> {
        let mut m = Map::new();
        match ty {
            Ty::Any => {}
            Ty::Never => {
                // The `false` schema, spelled as a schema object.
                m.insert("not".into(), json!({}));
            }
            Ty::Null => {
                m.insert("type".into(), json!("null"));
            }
            Ty::Boolean => {
                m.insert("type".into(), json!("boolean"));
            }
            Ty::Integer(r) | Ty::Number(r) => {
                let name = if matches!(ty, Ty::Integer(_)) {
                    "integer"
                } else {
                    "number"
                };
                m.insert("type".into(), json!(name));
                let bounds = [
                    ("minimum", &r.minimum),
                    ("maximum", &r.maximum),
                    ("exclusiveMinimum", &r.exclusive_minimum),
                    ("exclusiveMaximum", &r.exclusive_maximum),
                    ("multipleOf", &r.multiple_of),
                ];
                for (key, bound) in bounds {
                    if let Some(b) = bound {
                        m.insert(key.into(), Value::Number(b.value.clone()));
                    }
                }
            }
            Ty::String(r) => {
                m.insert("type".into(), json!("string"));
                if let Some(n) = &r.min_length {
                    m.insert("minLength".into(), json!(n.value));
                }
                if let Some(n) = &r.max_length {
                    m.insert("maxLength".into(), json!(n.value));
                }
                if let Some(p) = &r.pattern {
                    m.insert("pattern".into(), json!(p.value));
                }
                if let Some(f) = &r.format {
                    m.insert("format".into(), json!(f.value.as_str()));
                }
            }
            Ty::Const(v) => {
                if let Some(t) = scalar_type([v]) {
                    m.insert("type".into(), json!(t));
                }
                m.insert("const".into(), v.clone());
            }
            Ty::Enum(members) => {
                if let Some(t) = scalar_type(members.iter().map(|x| &x.value)) {
                    m.insert("type".into(), json!(t));
                }
                let values = members.iter().map(|x| x.value.clone()).collect();
                m.insert("enum".into(), Value::Array(values));
            }
            Ty::Array(a) => {
                m.insert("type".into(), json!("array"));
                m.insert("items".into(), Value::Object(self.schema(&a.items)));
                item_bounds(
                    &mut m,
                    a.min_items.as_ref().map(|n| n.value),
                    &a.max_items,
                    &a.unique,
                );
            }
            Ty::Tuple(t) => {
                m.insert("type".into(), json!("array"));
                if !t.items.is_empty() {
                    let items = t
                        .items
                        .iter()
                        .map(|i| Value::Object(self.schema(i)))
                        .collect();
                    m.insert("prefixItems".into(), Value::Array(items));
                }
                match &t.rest {
                    Additional::Closed => {
                        m.insert("items".into(), Value::Bool(false));
                    }
                    Additional::Open => {}
                    Additional::Schema(r) => {
                        m.insert("items".into(), Value::Object(self.schema(r)));
                    }
                }
                let min = t.min_len();
                item_bounds(&mut m, (min > 0).then_some(min), &t.max_items, &t.unique);
            }
            Ty::Object(o) => return self.object(o),
            Ty::Ref(id) => {
                if self.module.get(*id).recursive {
                    self.defs.insert(*id);
                    let name = &self.module.get(*id).name;
                    m.insert("$ref".into(), json!(format!("#/$defs/{name}")));
                } else {
                    return self.inline(*id);
                }
            }
            Ty::Nullable(inner) => return self.nullable(inner),
            Ty::AnyOf(members) => {
                let schemas = members
                    .iter()
                    .map(|t| Value::Object(self.schema(t)))
                    .collect();
                m.insert("anyOf".into(), Value::Array(schemas));
            }
        }
        m
    }

    fn nullable(&mut self, inner: &Ty) -> Map<String, Value> {
        let mut m = self.schema(inner);
        if accepts_null(&m) {
            return m; // `any`, `null`, or an alias that is already nullable
        }
        let is_enum = m.contains_key("enum") || m.contains_key("const");
        // Keywords that apply to every type (the rules across keys of an object: `oneOf`,
        // `not`, `allOf`) would judge `null` too, so a schema that has them is wrapped.
        let applies_to_all = ["oneOf", "anyOf", "allOf", "not"]
            .iter()
            .any(|k| m.contains_key(*k));
        match m.get("type") {
            Some(Value::String(t)) if !applies_to_all => {
                let t = t.clone();
                m.insert("type".into(), json!([t, "null"]));
                if let Some(c) = m.shift_remove("const") {
                    m.insert("enum".into(), json!([c, null]));
                } else if let Some(Value::Array(values)) = m.get_mut("enum") {
                    values.push(Value::Null);
                }
                m
            }
            None if is_enum => {
                if let Some(c) = m.shift_remove("const") {
                    m.insert("enum".into(), json!([c, null]));
                } else if let Some(Value::Array(values)) = m.get_mut("enum") {
                    values.push(Value::Null);
                }
                m
            }
            None if m.len() == 1 && m.contains_key("anyOf") => {
                if let Some(Value::Array(members)) = m.get_mut("anyOf") {
                    members.push(json!({"type": "null"}));
                }
                m
            }
            _ => {
                let mut wrapper = Map::new();
                wrapper.insert("anyOf".into(), json!([Value::Object(m), {"type": "null"}]));
                wrapper
            }
        }
    }

    fn object(&mut self, o: &ObjectTy) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("type".into(), json!("object"));
        if !o.is_map() {
            let mut props = Map::new();
            for f in &o.fields {
                props.insert(f.name.clone(), Value::Object(self.field(f)));
            }
            m.insert("properties".into(), Value::Object(props));
            let required: Vec<Value> = o
                .fields
                .iter()
                .filter(|f| f.required)
                .map(|f| Value::String(f.name.clone()))
                .collect();
            if !required.is_empty() {
                m.insert("required".into(), Value::Array(required));
            }
        }
        match &o.additional {
            Additional::Closed => {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            Additional::Open => {}
            Additional::Schema(t) => {
                let s = self.schema(t);
                m.insert("additionalProperties".into(), Value::Object(s));
            }
        }
        key_rules(&mut m, &o.rules);
        m
    }

    fn field(&mut self, f: &Field) -> Map<String, Value> {
        let mut m = self.schema(&f.ty);
        if let Some(d) = &f.description {
            let d = join(Some(d), enum_fold(self.module, &f.ty)).unwrap_or_default();
            describe(&mut m, d);
        }
        if let Some(v) = &f.default {
            m.insert("default".into(), v.clone());
        }
        if !f.examples.is_empty() {
            m.insert("examples".into(), Value::Array(f.examples.clone()));
        }
        if f.deprecated {
            m.insert("deprecated".into(), Value::Bool(true));
        }
        m
    }
}

/// The rules across an object's keys: `minProperties`, `maxProperties`, `dependentRequired`, and
/// `oneOf` / `not` over `required` for the groups (under `allOf` when there are several).
fn key_rules(m: &mut Map<String, Value>, rules: &KeyRules) {
    if let Some(n) = &rules.min_properties {
        m.insert("minProperties".into(), json!(n.value));
    }
    if let Some(n) = &rules.max_properties {
        m.insert("maxProperties".into(), json!(n.value));
    }
    let required = |names: &[String]| json!({ "required": names });
    let mut dependent = Map::new();
    // Each key's needs already listed: many rules for one key stay linear in their number.
    let mut listed: HashSet<(&str, &str)> = HashSet::new();
    let mut parts = Vec::new();
    for group in &rules.groups {
        match &group.value {
            KeyGroup::ExactlyOneOf(names) => {
                let each: Vec<Value> = names.chunks(1).map(required).collect();
                parts.push(json!({ "oneOf": each }));
            }
            // Two fields: not both. More: exactly one of "each alone" and "none", which stays
            // linear in the number of fields (the pairs would be quadratic).
            KeyGroup::AtMostOneOf(names) if names.len() == 2 => {
                parts.push(json!({ "not": required(names) }));
            }
            KeyGroup::AtMostOneOf(names) => {
                let mut each: Vec<Value> = names.chunks(1).map(required).collect();
                each.push(json!({ "not": { "anyOf": each.clone() } }));
                parts.push(json!({ "oneOf": each }));
            }
            KeyGroup::Requires { key, needs } => {
                let entry = dependent
                    .entry(key.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = entry {
                    for n in needs {
                        if listed.insert((key.as_str(), n.as_str())) {
                            list.push(Value::from(n.as_str()));
                        }
                    }
                }
            }
        }
    }
    if !dependent.is_empty() {
        m.insert("dependentRequired".into(), Value::Object(dependent));
    }
    match parts.len() {
        0 => {}
        1 => {
            if let Some(Value::Object(part)) = parts.pop() {
                m.extend(part);
            }
        }
        _ => {
            m.insert("allOf".into(), Value::Array(parts));
        }
    }
}

/// Sets the description as the first key, where people and models read first.
fn describe(m: &mut Map<String, Value>, description: String) {
    m.shift_remove("description");
    m.shift_insert(0, "description".into(), Value::String(description));
}

/// Whether an emitted schema, as built here, already lets `null` through at its top level.
fn accepts_null(m: &Map<String, Value>) -> bool {
    let null = Value::String("null".into());
    match m.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.contains(&null),
        None if m.contains_key("enum") => m["enum"]
            .as_array()
            .is_some_and(|v| v.contains(&Value::Null)),
        None if m.contains_key("const") => m["const"].is_null(),
        None if m.contains_key("anyOf") => m["anyOf"]
            .as_array()
            .is_some_and(|v| v.iter().any(|s| s.as_object().is_some_and(accepts_null))),
        None => !m.contains_key("$ref"),
        Some(_) => false,
    }
}

/// The JSON Schema `type` shared by all values, if they share one.
/// `minItems`, `maxItems` and `uniqueItems` of an array or tuple.
fn item_bounds(
    m: &mut Map<String, Value>,
    min: Option<u64>,
    max: &Option<Spanned<u64>>,
    unique: &Option<Spanned<bool>>,
) {
    if let Some(n) = min {
        m.insert("minItems".into(), json!(n));
    }
    if let Some(n) = max {
        m.insert("maxItems".into(), json!(n.value));
    }
    if let Some(u) = unique {
        m.insert("uniqueItems".into(), json!(u.value));
    }
}

fn scalar_type<'a>(values: impl IntoIterator<Item = &'a Value>) -> Option<&'static str> {
    let mut shared: Option<&'static str> = None;
    for v in values {
        let t = match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        match shared {
            None => shared = Some(t),
            Some(s) if s == t => {}
            Some(_) => return None,
        }
    }
    shared
}

/// "One of: ..." listing an enum's values with their descriptions, when any value has one.
pub(crate) fn enum_fold(module: &Module, ty: &Ty) -> Option<String> {
    let members = match module.resolve(ty) {
        Ty::Enum(m) => m,
        Ty::Nullable(inner) => match module.resolve(inner) {
            Ty::Enum(m) => m,
            _ => return None,
        },
        _ => return None,
    };
    if members.iter().all(|m| m.description.is_none()) {
        return None;
    }
    Some(fold::one_of(members))
}

/// Joins a description and a folded note into one text.
fn join(description: Option<&str>, note: Option<String>) -> Option<String> {
    fold::join(description, note.as_slice())
}
