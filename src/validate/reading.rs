//! Reading a call as the model was shown the tool.
//!
//! A provider target may show a tool in another shape than its source. OpenAI strict mode (the
//! `openai-strict` target, and `openai-responses` for a tool it emits with `"strict": true`)
//! lists every property as required and shows an optional field whose type has no `null` as
//! nullable: a model following that schema sends `null` for every field it leaves out, and
//! sends every key. A validator made for such a target reads the call in that shape
//! ([`Reading::NullForAbsent`]):
//!
//! - strict mode accepts exactly what the emitted schema accepts (every key present, `null` in
//!   those fields), and still enforces what the target folded into descriptions;
//! - the arguments come back in the source's shape: such a `null` is read as "absent", and the
//!   field's default is filled in, without any lax coercion being turned on;
//! - messages and the signature they reprint show the fields as the target did
//!   (`days: integer | null = 1`), so no message asks for what that schema forbids.
//!
//! Lax mode is orthogonal: it reads the call with the source's rules plus the coercions, which
//! accept everything the strict reading accepts (a `null` for such a field is recorded as the
//! `null-as-absent` coercion) and also an omitted optional field.
//!
//! The shape is made by [`shown_module`], a rewrite of the model; [`back`] turns a value valid in
//! it into the source's shape. The rule that decides which fields change is
//! [`Field::null_means_absent`], which the strict emitter uses too.

use std::collections::HashMap;

use serde_json::Value;

use crate::diagnostic::Span;
use crate::emit::Target;
use crate::model::*;

use super::compile::{Compiler, NodeId, Program};
use super::equal;
use super::error::{escape_pointer, ErrorCode, ValidationError};
use super::message::shorten;
use super::walk;

/// How a validator reads a call: in the source's shape, or in the shape a target showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reading {
    /// As the source declares the tool (the shape of `json-schema`, `openai`, `anthropic`,
    /// `gemini` and `mcp`).
    #[default]
    Source,
    /// Every field is sent; `null` in an optional field whose type has no `null` means absent;
    /// maps, extra keys (typed `...: T` and open `...`), `any` and tuples are lowered as
    /// [`Reading::Lowered`] says (OpenAI strict mode).
    NullForAbsent,
    /// The fields as declared, with what the target cannot carry lowered (Gemini's OpenAPI
    /// form): a `map<T>`, and an open object without fields (`{ ... }`, as `map<any>`), is sent
    /// as an array of `{"key", "value"}` entries, an object's typed extra keys as such entries
    /// in the property [`EXTRA_KEYS`], `any` as a string of JSON text, a tuple as an object with
    /// one key per position (`"0"`, `"1"`, …) and its rest items in the property
    /// [`TUPLE_REST`], and a literal or enum holding values that are not strings as a string
    /// enum of their JSON spellings (`"1"`, `"true"`). The arguments come back with the maps
    /// rebuilt, the JSON text decoded, the tuples made arrays again and the spellings read as
    /// the values they stand for.
    Lowered,
    /// Every object closed, with the optional fields as declared (Anthropic strict mode): maps,
    /// extra keys (typed `...: T` and open `...`), `any` and tuples are lowered as for
    /// [`Reading::NullForAbsent`], and a field left out is absent, as in the source.
    Closed,
}

impl Reading {
    /// The reading of `tool` for a target, when the target can carry the tool: `openai-strict`
    /// reads [`Reading::NullForAbsent`], `openai-responses` too when it emits the tool with
    /// `"strict": true`, `gemini-openapi` reads [`Reading::Lowered`] and `anthropic-strict`
    /// [`Reading::Closed`] when the tool holds what they lower, and every other target reads the
    /// source's shape. `Err` holds the target's errors
    /// when it refuses the tool (so no model was shown it).
    pub fn for_target(
        module: &Module,
        tool: &Tool,
        target: Target,
    ) -> Result<Reading, crate::Errors> {
        match target {
            Target::OpenAiStrict => {
                refused(crate::emit::openai::strict(module, tool).1)?;
                Ok(Reading::NullForAbsent)
            }
            Target::OpenAiResponses => {
                let (json, _) = crate::emit::openai::responses(module, tool);
                Ok(if json["strict"] == Value::Bool(true) {
                    Reading::NullForAbsent
                } else {
                    Reading::Source
                })
            }
            Target::AnthropicStrict => {
                refused(crate::emit::anthropic::strict(module, tool).1)?;
                Ok(if lowers_any(module, tool, Reading::Closed) {
                    Reading::Closed
                } else {
                    Reading::Source
                })
            }
            Target::GeminiOpenApi => {
                refused(crate::emit::gemini::openapi_declaration(module, tool).1)?;
                Ok(if lowers_any(module, tool, Reading::Lowered) {
                    Reading::Lowered
                } else {
                    Reading::Source
                })
            }
            _ => Ok(Reading::Source),
        }
    }

    /// Whether the reading lowers what its target cannot carry.
    fn lowers(self) -> bool {
        self != Reading::Source
    }
}

/// `Err` with the errors among a target's diagnostics, if any.
fn refused(diagnostics: Vec<crate::Diagnostic>) -> Result<(), crate::Errors> {
    if diagnostics.iter().any(crate::Diagnostic::is_error) {
        return Err(crate::Errors::new(
            diagnostics.into_iter().filter(|d| d.is_error()).collect(),
        ));
    }
    Ok(())
}

/// The property that carries an object's extra keys where a target lowers them (an object
/// with declared fields and `...: T`): an array of `{"key", "value"}` entries. A field of that
/// name makes the target refuse the object.
pub const EXTRA_KEYS: &str = "_extra_keys";

/// The description of [`EXTRA_KEYS`].
pub(crate) const EXTRA_KEYS_DESCRIPTION: &str =
    "Other keys of this object, as key/value entries; each key at most once, and none that is a declared property.";

/// The property that carries a tuple's items after its positions where a target lowers the
/// tuple into an object (one key per position, `"0"`, `"1"`, …): an array. It cannot be taken
/// for a position, whose keys are digits.
pub const TUPLE_REST: &str = "_rest";

/// The description of a tuple lowered into an object, without rest items and with them.
pub(crate) const TUPLE_NOTE: &str =
    "A list sent as an object: the item at position 0 under the key \"0\", the next under \"1\", and so on.";
pub(crate) const TUPLE_REST_NOTE: &str =
    "A list sent as an object: the item at position 0 under the key \"0\", the next under \"1\", and so on; the items after the numbered positions in the array `_rest`.";

/// The description of a map lowered into entries.
pub(crate) const ENTRIES_NOTE: &str = "Sent as a list of key/value entries; each key at most once.";

/// The description of `any` lowered into a string.
pub(crate) const JSON_TEXT_NOTE: &str =
    "Holds JSON text: any JSON value, encoded as a string (e.g. \"{\\\"a\\\": 1}\", \"[1, 2]\" or \"\\\"text\\\"\").";

/// The value type of the extra keys of `o` that `reading` lowers into entries: typed extra keys
/// for every lowering reading; open ones (as `any`) for the strict modes, which have no open
/// object, and for Gemini's OpenAPI form when `o` has no fields (an object of any keys: that
/// form has no OBJECT without `properties`, and an open object with fields keeps just those,
/// since Gemini sends no other keys). `None` when the keys are kept as they are.
pub(crate) fn lowered_extra(o: &ObjectTy, reading: Reading) -> Option<Ty> {
    match (&o.additional, reading) {
        (_, Reading::Source) => None,
        (Additional::Schema(t), _) => Some(t.clone()),
        (Additional::Open, Reading::NullForAbsent | Reading::Closed) => Some(Ty::Any),
        (Additional::Open, Reading::Lowered) if o.fields.is_empty() => Some(Ty::Any),
        _ => None,
    }
}

/// What `reading` makes of the object `o` when it lowers its extra keys: an object without
/// fields becomes the array of its entries (`[{key: string, value: T}]`), and one with fields
/// (or a tool's parameters, which stay an object) keeps them and gets the property
/// [`EXTRA_KEYS`] for the entries. The fields made carry the span `at`. `None` when nothing is
/// lowered.
pub(crate) fn lowered_object(o: &ObjectTy, reading: Reading, at: Span, params: bool) -> Option<Ty> {
    let value = lowered_extra(o, reading)?;
    let entries = entries_ty(value, at);
    if o.fields.is_empty() && !params {
        return Some(entries);
    }
    let mut fields = o.fields.clone();
    fields.push(made_field(
        EXTRA_KEYS,
        entries,
        false,
        Some(EXTRA_KEYS_DESCRIPTION),
        at,
    ));
    // The rules across keys would count the entries' property as one key: they are checked in
    // the source's shape instead (see `has_source_only_rules`).
    Some(Ty::Object(Box::new(ObjectTy {
        fields,
        additional: Additional::Closed,
        rules: KeyRules::default(),
    })))
}

/// What `reading` sends in place of `ty` itself, when it lowers it (objects are
/// [`lowered_object`]'s): a tuple, for every lowering reading, as [`tuple_object`]; a literal or
/// enum holding a value that is not a string, for [`Reading::Lowered`], as [`spelled`] makes
/// it. The fields made carry the span `at`. `None` when `ty` is sent as it is.
pub(crate) fn lowered_value_ty(ty: &Ty, reading: Reading, at: Span) -> Option<Ty> {
    match ty {
        Ty::Tuple(t) if reading.lowers() => Some(tuple_object(t, at)),
        Ty::Const(_) | Ty::Enum(_) if reading == Reading::Lowered => spelled(ty),
        _ => None,
    }
}

/// A tuple as an object: one field per position, named by its index (`"0"`, `"1"`, …) and
/// required as the position is, then the items allowed after the positions as an array in the
/// optional field [`TUPLE_REST`], whose bounds are what `@min_items` / `@max_items` leave for
/// it. What the object cannot say (a position left out before one given, a bound that counts
/// the positions too, `@unique`) is checked on the way back and in the source's shape.
pub(crate) fn tuple_object(t: &TupleTy, at: Span) -> Ty {
    let mut fields: Vec<Field> = t
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| made_field(&i.to_string(), item.clone(), i < t.required, None, at))
        .collect();
    let rest = match &t.rest {
        Additional::Closed => None,
        Additional::Open => Some(Ty::Any),
        Additional::Schema(r) => Some(r.clone()),
    };
    if let Some(items) = rest {
        let positions = t.items.len() as u64;
        let min = t.min_len().saturating_sub(positions);
        let rest = ArrayTy {
            items,
            min_items: (min > 0).then(|| Spanned::new(min, at)),
            max_items: t
                .max_len()
                .map(|max| Spanned::new(max.saturating_sub(positions), at)),
            unique: None,
        };
        fields.push(made_field(
            TUPLE_REST,
            Ty::Array(Box::new(rest)),
            false,
            None,
            at,
        ));
    }
    Ty::Object(Box::new(ObjectTy {
        fields,
        additional: Additional::Closed,
        rules: KeyRules::default(),
    }))
}

/// How a value of a literal or enum lowered by [`spelled`] is sent: a string as it is, any
/// other scalar as its JSON text (`1` as `"1"`, `true` as `"true"`); `null` stays `null`.
fn spelling(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Whether two of `values` are spelled alike ([`spelling`]: `1` and `"1"`), so that a target
/// that sends them as strings could not tell them apart on the way back.
pub(crate) fn spelled_alike<'a>(values: impl IntoIterator<Item = &'a Value>) -> bool {
    let mut seen = std::collections::HashSet::new();
    values
        .into_iter()
        .filter_map(spelling)
        .any(|s| !seen.insert(s))
}

/// A literal or enum of scalars, one of them neither a string nor `null`, as the string
/// literal or enum of the values' spellings ([`spelling`]), nullable when it holds `null`.
/// `None` when it holds only strings and `null` (sent as it is), an array or object (which no
/// enum of the target holds), or two values spelled alike (`1` and `"1"`), which could not be
/// told apart on the way back.
fn spelled(ty: &Ty) -> Option<Ty> {
    let members: Vec<(&Value, Option<&str>)> = match ty {
        Ty::Const(v) => vec![(v, None)],
        Ty::Enum(members) => members
            .iter()
            .map(|m| (&m.value, m.description.as_deref()))
            .collect(),
        _ => return None,
    };
    let values = || members.iter().map(|(v, _)| *v);
    if values().all(|v| v.is_string() || v.is_null())
        || values().any(|v| v.is_array() || v.is_object())
    {
        return None;
    }
    if spelled_alike(values()) {
        return None;
    }
    let spelled: Vec<EnumMember> = members
        .iter()
        .filter_map(|(v, description)| {
            spelling(v).map(|s| EnumMember {
                value: Value::String(s),
                description: description.map(str::to_string),
            })
        })
        .collect();
    let lowered = match (ty, spelled.as_slice()) {
        (Ty::Const(_), [one]) => Ty::Const(one.value.clone()),
        _ => Ty::Enum(spelled),
    };
    Some(if values().any(Value::is_null) {
        Ty::Nullable(Box::new(lowered))
    } else {
        lowered
    })
}

/// How `reading` sends `value`, a value of `ty`, where `ty` is a literal or enum that it lowers
/// ([`spelled`]): its spelling, or `null`. `None` for any other type.
pub(crate) fn spelled_value(ty: &Ty, value: &Value, reading: Reading) -> Option<Value> {
    spells(ty, reading).then(|| spelling(value).map_or(Value::Null, Value::String))
}

/// Whether `reading` sends the values of `ty` as their spellings ([`spelled`]).
pub(crate) fn spells(ty: &Ty, reading: Reading) -> bool {
    reading == Reading::Lowered && spelled(ty).is_some()
}

/// The value of the literal or enum `ty` that the string `sent` spells, when [`spelled`]
/// lowers `ty`.
fn read_spelling(ty: &Ty, sent: &str) -> Option<Value> {
    spelled(ty)?;
    let found = |v: &&Value| spelling(v).as_deref() == Some(sent);
    match ty {
        Ty::Const(v) => Some(v).filter(found).cloned(),
        Ty::Enum(members) => members.iter().map(|m| &m.value).find(found).cloned(),
        _ => None,
    }
}

/// The entries of a map of `value`s: `[{key: string, value: T}]`.
fn entries_ty(value: Ty, at: Span) -> Ty {
    let entry = ObjectTy {
        fields: vec![
            made_field("key", Ty::String(StringRules::default()), true, None, at),
            made_field("value", value, true, None, at),
        ],
        additional: Additional::Closed,
        rules: KeyRules::default(),
    };
    Ty::Array(Box::new(ArrayTy {
        items: Ty::Object(Box::new(entry)),
        min_items: None,
        max_items: None,
        unique: None,
    }))
}

fn made_field(name: &str, ty: Ty, required: bool, description: Option<&str>, at: Span) -> Field {
    Field {
        name: name.to_string(),
        description: description.map(str::to_string),
        required,
        ty,
        default: None,
        examples: Vec::new(),
        deprecated: false,
        span: at,
    }
}

/// Whether `reading` lowers anything in `tool` or a named type of `module`.
pub(crate) fn lowers_any(module: &Module, tool: &Tool, reading: Reading) -> bool {
    fn object(o: &ObjectTy, reading: Reading) -> bool {
        lowered_extra(o, reading).is_some()
            || o.fields.iter().any(|f| lowers_within(&f.ty, reading))
            || matches!(&o.additional, Additional::Schema(t) if lowers_within(t, reading))
    }
    object(&tool.params, reading) || module.types.iter().any(|n| lowers_within(&n.ty, reading))
}

/// Whether `reading` lowers `ty` or something it holds (named types not followed).
fn lowers_within(ty: &Ty, reading: Reading) -> bool {
    if lowered_value_ty(ty, reading, Span::default()).is_some() {
        return true;
    }
    match ty {
        Ty::Any => reading.lowers(),
        Ty::Array(a) => lowers_within(&a.items, reading),
        Ty::Object(o) => {
            lowered_extra(o, reading).is_some()
                || o.fields.iter().any(|f| lowers_within(&f.ty, reading))
                || matches!(&o.additional, Additional::Schema(t) if lowers_within(t, reading))
        }
        Ty::Nullable(inner) => lowers_within(inner, reading),
        Ty::AnyOf(members) => members.iter().any(|m| lowers_within(m, reading)),
        _ => false,
    }
}

/// Whether `reading` sends a value of `ty` in another shape than the source's, following the
/// named types `ty` uses (each once).
pub(crate) fn shown_differs(module: &Module, ty: &Ty, reading: Reading) -> bool {
    fn go(module: &Module, ty: &Ty, reading: Reading, seen: &mut Vec<TypeId>) -> bool {
        if lowered_value_ty(ty, reading, Span::default()).is_some() {
            return true;
        }
        match ty {
            Ty::Any => reading.lowers(),
            Ty::Ref(id) => {
                if seen.contains(id) {
                    return false;
                }
                seen.push(*id);
                module
                    .types
                    .get(id.0)
                    .is_some_and(|n| go(module, &n.ty, reading, seen))
            }
            Ty::Array(a) => go(module, &a.items, reading, seen),
            Ty::Object(o) => {
                lowered_extra(o, reading).is_some()
                    || o.fields.iter().any(|f| go(module, &f.ty, reading, seen))
                    || matches!(&o.additional, Additional::Schema(t) if go(module, t, reading, seen))
            }
            Ty::Nullable(inner) => go(module, inner, reading, seen),
            Ty::AnyOf(members) => members.iter().any(|m| go(module, m, reading, seen)),
            _ => false,
        }
    }
    go(module, ty, reading, &mut Vec::new())
}

/// `tool` and the named types of `module`, as a module of one tool in the source's shape (what
/// [`back`] reads) and in the shape `reading` shows: for [`Reading::NullForAbsent`] every field
/// required and the fields of [`Field::null_means_absent`] nullable; for it and
/// [`Reading::Lowered`], what the target cannot carry lowered ([`lowered_object`], and `any` as
/// a string).
pub(crate) fn shown_module(module: &Module, tool: &Tool, reading: Reading) -> (Module, Module) {
    let source = Module {
        tools: vec![tool.clone()],
        types: module.types.clone(),
    };
    let mut shown_tool = tool.clone();
    shown_tool.params = shown_params(module, &tool.params, reading, tool.span);
    let shown = Module {
        tools: vec![shown_tool],
        types: module
            .types
            .iter()
            .map(|n| NamedType {
                ty: shown_ty(module, &n.ty, reading),
                ..n.clone()
            })
            .collect(),
    };
    (source, shown)
}

/// A tool's parameters as `reading` shows them: always an object.
fn shown_params(module: &Module, o: &ObjectTy, reading: Reading, at: Span) -> ObjectTy {
    match lowered_object(o, reading, at, true) {
        Some(Ty::Object(lowered)) => shown_object(module, &lowered, reading),
        _ => shown_object(module, o, reading),
    }
}

fn shown_object(module: &Module, o: &ObjectTy, reading: Reading) -> ObjectTy {
    let null_for_absent = reading == Reading::NullForAbsent;
    let fields = o
        .fields
        .iter()
        .map(|f| {
            let ty = shown_ty(module, &f.ty, reading);
            Field {
                ty: if null_for_absent && f.null_means_absent(module) {
                    Ty::Nullable(Box::new(ty))
                } else {
                    ty
                },
                // The default stays: it is what the signature shows `null` stands for.
                required: null_for_absent || f.required,
                ..f.clone()
            }
        })
        .collect();
    let additional = match &o.additional {
        Additional::Schema(t) => Additional::Schema(shown_ty(module, t, reading)),
        other => other.clone(),
    };
    // The rules across keys read `null` as a value here, and count the keys of a lowered
    // object as one, so they are checked in the source's shape instead (see
    // `has_source_only_rules`).
    ObjectTy {
        fields,
        additional,
        rules: KeyRules::default(),
    }
}

fn shown_ty(module: &Module, ty: &Ty, reading: Reading) -> Ty {
    let within = |t: &Ty| shown_ty(module, t, reading);
    if let Some(lowered) = lowered_value_ty(ty, reading, Span::default()) {
        return within(&lowered);
    }
    match ty {
        Ty::Any if reading.lowers() => Ty::String(StringRules::default()),
        Ty::Object(o) => match lowered_object(o, reading, Span::default(), false) {
            Some(lowered) => within(&lowered),
            None => Ty::Object(Box::new(shown_object(module, o, reading))),
        },
        Ty::Array(a) => Ty::Array(Box::new(ArrayTy {
            items: within(&a.items),
            ..(**a).clone()
        })),
        Ty::Tuple(t) => Ty::Tuple(Box::new(TupleTy {
            items: t.items.iter().map(within).collect(),
            rest: match &t.rest {
                Additional::Schema(r) => Additional::Schema(within(r)),
                other => other.clone(),
            },
            ..(**t).clone()
        })),
        Ty::Nullable(inner) => Ty::Nullable(Box::new(within(inner))),
        Ty::AnyOf(members) => Ty::AnyOf(members.iter().map(within).collect()),
        other => other.clone(),
    }
}

/// Turns `value`, valid for `ty` of `shown` and normalized by its validator, into the source's
/// shape: a `null` in a field of [`Field::null_means_absent`] is removed and the field's default
/// put in its place (for [`Reading::NullForAbsent`]); a map sent as entries is rebuilt and JSON
/// text sent for `any` is decoded (for the lowering readings). `source` and `shown` are the two
/// modules of [`shown_module`]; `ty` is a type of `source` (its counterpart in `shown` is found
/// by the same path).
///
/// `Err` holds what the shown schema could not say: two entries with the same key, an entry
/// whose key is a declared field, a string for `any` that is not JSON; each at its pointer.
///
/// The shown validator judged `@unique` with those nulls in place; the source reading judges it
/// without them and before defaults ([`bare`] gives the call it reads).
pub(crate) fn back(
    source: &Module,
    shown: &Module,
    reading: Reading,
    ty: &Ty,
    value: &mut Value,
) -> Result<(), Vec<ValidationError>> {
    let mut back = Back::new(source, shown, reading, true);
    back.within(ty, value, 0);
    if back.errors.is_empty() {
        Ok(())
    } else {
        Err(back.errors)
    }
}

/// [`back`] without the defaults: the call as the source reading would read it.
pub(crate) fn bare(source: &Module, shown: &Module, reading: Reading, ty: &Ty, value: &mut Value) {
    Back::new(source, shown, reading, false).within(ty, value, 0);
}

/// Whether the tool of `module` (or a named type it holds) has a rule that the shown shape cannot
/// check as the source means it: a `@unique` array (whose items the shown shape may tell apart
/// where the source's does not), rules across an object's keys (which count a `null` that
/// means "absent" as given), or a tuple (whose length rules count its positions and rest
/// items together).
pub(crate) fn has_source_only_rules(module: &Module) -> bool {
    fn within(ty: &Ty) -> bool {
        match ty {
            Ty::Array(a) => a.unique.as_ref().is_some_and(|u| u.value) || within(&a.items),
            // A lowering reading sends a tuple as an object, which cannot say every rule of
            // its length (see `tuple_object`).
            Ty::Tuple(_) => true,
            Ty::Object(o) => object(o),
            Ty::Nullable(inner) => within(inner),
            Ty::AnyOf(members) => members.iter().any(within),
            _ => false,
        }
    }
    fn object(o: &ObjectTy) -> bool {
        !o.rules.is_empty()
            || o.fields.iter().any(|f| within(&f.ty))
            || matches!(&o.additional, Additional::Schema(t) if within(t))
    }
    module.tools.iter().any(|t| object(&t.params)) || module.types.iter().any(|n| within(&n.ty))
}

/// The most named types followed without entering a value (an alias chain); the checker
/// rejects alias cycles, so this only bounds a hand-built model.
const MAX_ALIASES: usize = 1024;

/// A walk of [`back`]: the two modules, what it does, and what it found.
struct Back<'m> {
    source: &'m Module,
    shown: &'m Module,
    reading: Reading,
    /// Whether defaults are filled in.
    fill: bool,
    /// The JSON pointer of the value being turned.
    path: String,
    errors: Vec<ValidationError>,
    /// The shown shape of each union member tried so far, compiled, by the member's address: a
    /// call with many values of one union compiles each member once, not once a value.
    members: HashMap<*const Ty, (Program, NodeId)>,
}

impl<'m> Back<'m> {
    fn new(source: &'m Module, shown: &'m Module, reading: Reading, fill: bool) -> Self {
        Back {
            source,
            shown,
            reading,
            fill,
            path: String::new(),
            errors: Vec::new(),
            members: HashMap::new(),
        }
    }

    /// Whether `value` fits the shown shape of union member `member` (strict mode).
    fn member_fits(&mut self, member: &Ty, value: &Value) -> bool {
        let (source, shown, reading) = (self.source, self.shown, self.reading);
        let (program, root) = self
            .members
            .entry(std::ptr::from_ref(member))
            .or_insert_with(|| {
                let mut compiler = Compiler::without_texts(shown);
                let root = compiler.ty(&shown_ty(source, member, reading));
                (compiler.finish(), root)
            });
        walk::accepts(program, *root, value)
    }

    /// [`Back::within`] for the value under `key` (a key or an index) of the current one.
    fn at(&mut self, key: &str, ty: &Ty, value: &mut Value) {
        let len = self.path.len();
        self.path.push('/');
        self.path.push_str(&escape_pointer(key));
        self.within(ty, value, 0);
        self.path.truncate(len);
    }

    fn within(&mut self, ty: &Ty, value: &mut Value, aliases: usize) {
        let reading = self.reading;
        match (ty, value) {
            (Ty::Ref(id), v) => {
                let source = self.source;
                if let Some(named) = source.types.get(id.0).filter(|_| aliases < MAX_ALIASES) {
                    self.within(&named.ty, v, aliases + 1);
                }
            }
            (Ty::Any, v) if reading.lowers() => self.decode(v),
            (Ty::Nullable(inner), v) if !v.is_null() => self.within(inner, v, 0),
            (Ty::AnyOf(members), v)
                if v.is_object() || v.is_array() || (reading.lowers() && v.is_string()) =>
            {
                // The member the validator picked: the first whose shown shape accepts the value.
                if let Some(m) = members.iter().find(|m| self.member_fits(m, v)) {
                    self.within(m, v, 0);
                }
            }
            (Ty::Const(_) | Ty::Enum(_), v @ Value::String(_)) if reading == Reading::Lowered => {
                if let Some(value) = v.as_str().and_then(|s| read_spelling(ty, s)) {
                    *v = value;
                }
            }
            (Ty::Tuple(t), v @ Value::Object(_)) if reading.lowers() => self.tuple(t, v),
            (Ty::Array(a), Value::Array(items)) => self.array(a, items),
            (Ty::Tuple(t), Value::Array(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let item_ty = match (t.items.get(i), &t.rest) {
                        (Some(ty), _) => ty,
                        (None, Additional::Schema(r)) => r,
                        (None, _) => continue,
                    };
                    self.at(&i.to_string(), item_ty, item);
                }
            }
            (Ty::Object(o), v @ Value::Array(_)) => {
                let Some(value_ty) = lowered_extra(o, reading) else {
                    return;
                };
                let Value::Array(entries) = v.take() else {
                    return;
                };
                let mut map = serde_json::Map::with_capacity(entries.len());
                self.entries(o, &value_ty, entries, &mut map, "");
                *v = Value::Object(map);
            }
            (Ty::Object(o), Value::Object(map)) => self.object(o, map),
            _ => {}
        }
    }

    /// Makes the object a tuple was sent as ([`tuple_object`]) the array again: the positions
    /// in order, then the items of [`TUPLE_REST`]. A position left out before one that is
    /// given (or before rest items) is an error at the position.
    fn tuple(&mut self, t: &TupleTy, v: &mut Value) {
        let lowered = tuple_object(t, Span::default());
        let (Ty::Object(o), Value::Object(map)) = (&lowered, &mut *v) else {
            return;
        };
        self.object(o, map);
        let mut map = std::mem::take(map);
        let mut items = Vec::with_capacity(map.len());
        let mut absent = None;
        let mut reported = false;
        for i in 0..t.items.len() {
            match (map.remove(&i.to_string()), absent) {
                (Some(item), None) => items.push(item),
                (Some(_), Some(first)) => {
                    self.errors
                        .push(position_absent(&self.path, first, Some(i)));
                    reported = true;
                    break;
                }
                (None, _) => {
                    absent.get_or_insert(i);
                }
            }
        }
        if let Some(Value::Array(rest)) = map.remove(TUPLE_REST) {
            match absent {
                Some(first) if !rest.is_empty() => {
                    if !reported {
                        self.errors.push(position_absent(&self.path, first, None));
                    }
                }
                _ => items.extend(rest),
            }
        }
        *v = Value::Array(items);
    }

    /// Decodes JSON text sent for `any`; a string that is not JSON is an error.
    fn decode(&mut self, v: &mut Value) {
        let Value::String(text) = v else { return };
        match serde_json::from_str::<Value>(text) {
            Ok(decoded) => *v = decoded,
            Err(e) => self.errors.push(ValidationError::new(
                self.path.clone(),
                ErrorCode::InvalidJsonText,
                "a string of JSON text",
                format!("{} (not JSON)", shorten(v)),
                format!(
                    "this string must hold a value encoded as JSON text, but it is not JSON ({e}); encode the value as JSON, e.g. \"{{\\\"a\\\": 1}}\", \"42\" or \"\\\"text\\\"\" for the string text"
                ),
            )),
        }
    }

    fn array(&mut self, a: &ArrayTy, items: &mut Vec<Value>) {
        let unique = a.unique.as_ref().is_some_and(|u| u.value);
        if !unique || !self.fill {
            for (i, item) in items.iter_mut().enumerate() {
                self.at(&i.to_string(), &a.items, item);
            }
            return;
        }
        // The items as the source reading compares them: without the nulls, and before
        // defaults are filled in.
        let mut bare = items.clone();
        self.fill = false;
        for (i, item) in bare.iter_mut().enumerate() {
            self.at(&i.to_string(), &a.items, item);
        }
        self.fill = true;
        // The bare walk found the errors already.
        let found = self.errors.len();
        for (i, item) in items.iter_mut().enumerate() {
            self.at(&i.to_string(), &a.items, item);
        }
        self.errors.truncate(found);
        // As in the source's reading, defaults are annotations: when filling them in makes
        // two items equal, the items keep no defaults.
        if equal::first_duplicate(items).is_some() {
            *items = bare;
        }
    }

    fn object(&mut self, o: &ObjectTy, map: &mut serde_json::Map<String, Value>) {
        let lowered = lowered_extra(o, self.reading);
        let entries = match lowered {
            Some(_) => map.remove(EXTRA_KEYS),
            None => None,
        };
        // The validator put the declared keys first, in declaration order, so a key is most
        // often the next field; any other is looked up by name, never paired backwards.
        let mut out = serde_json::Map::with_capacity(map.len());
        let mut next = 0;
        let mut index = None;
        for (key, mut v) in std::mem::take(map) {
            let field = if o.fields.get(next).is_some_and(|f| f.name == key) {
                Some(next)
            } else {
                let index = index.get_or_insert_with(|| o.index());
                index.position(&key).filter(|&i| i >= next)
            };
            match field.and_then(|i| o.fields.get(i).map(|f| (i, f))) {
                Some((i, f)) => {
                    next = i + 1;
                    if v.is_null() && f.null_means_absent(self.source) {
                        if let Some(d) = f.default.as_ref().filter(|_| self.fill) {
                            out.insert(key, d.clone());
                        }
                        continue;
                    }
                    self.at(&key, &f.ty, &mut v);
                }
                None => {
                    if let Additional::Schema(t) = &o.additional {
                        self.at(&key, t, &mut v);
                    }
                }
            }
            out.insert(key, v);
        }
        if let (Some(value_ty), Some(Value::Array(entries))) = (lowered, entries) {
            let len = self.path.len();
            self.path.push('/');
            self.path.push_str(EXTRA_KEYS);
            self.entries(o, &value_ty, entries, &mut out, EXTRA_KEYS);
            self.path.truncate(len);
        }
        *map = out;
    }

    /// Puts the `{"key", "value"}` entries sent for the extra keys of `o` (whose values are
    /// `value_ty`) into `out`; `property` is where they were sent (`""`: in place of the map).
    /// A key sent twice, or that is a declared field, is an error at its entry.
    fn entries(
        &mut self,
        o: &ObjectTy,
        value_ty: &Ty,
        entries: Vec<Value>,
        out: &mut serde_json::Map<String, Value>,
        property: &str,
    ) {
        let mut firsts: std::collections::HashMap<String, usize> = Default::default();
        let declared = o.index();
        for (i, entry) in entries.into_iter().enumerate() {
            let Value::Object(mut entry) = entry else {
                continue;
            };
            let (Some(Value::String(key)), Some(mut v)) =
                (entry.remove("key"), entry.remove("value"))
            else {
                continue;
            };
            let len = self.path.len();
            self.path.push('/');
            self.path.push_str(&i.to_string());
            if let Some(&first) = firsts.get(&key) {
                self.errors
                    .push(duplicate_entry(&self.path, &key, first, i));
            } else if declared.position(&key).is_some() {
                self.errors.push(field_as_entry(&self.path, &key, property));
            } else {
                firsts.insert(key.clone(), i);
                self.at("value", value_ty, &mut v);
                out.insert(key, v);
            }
            self.path.truncate(len);
        }
    }
}

/// A position of a tuple sent as an object left out before a later one that was given (`None`:
/// the rest items).
fn position_absent(path: &str, absent: usize, later: Option<usize>) -> ValidationError {
    let later = match later {
        Some(i) => format!("the key \"{i}\""),
        None => format!("`{TUPLE_REST}`"),
    };
    ValidationError::new(
        format!("{path}/{absent}"),
        ErrorCode::MissingField,
        "every position up to the last one given",
        format!("position {absent} absent"),
        format!(
            "the key \"{absent}\" is absent, but {later} is given; the keys are the positions of a list, so send every one up to the last"
        ),
    )
}

/// Two entries of a lowered map with the same key.
fn duplicate_entry(path: &str, key: &str, first: usize, second: usize) -> ValidationError {
    let shown = shorten(&Value::String(key.to_string()));
    ValidationError::new(
        path.to_string(),
        ErrorCode::DuplicateEntry,
        "each key in one entry only",
        format!("the key {shown} again"),
        format!(
            "the key {shown} is sent in entries {first} and {second}; send each key in one entry only"
        ),
    )
}

/// An entry of an object's lowered extra keys whose key is a declared field.
fn field_as_entry(path: &str, key: &str, property: &str) -> ValidationError {
    let shown = shorten(&Value::String(key.to_string()));
    ValidationError::new(
        path.to_string(),
        ErrorCode::DuplicateEntry,
        "a key that is not a declared property",
        format!("the declared property {shown}"),
        format!(
            "the key {shown} is a declared property; send it as that property, not as an entry of `{property}`"
        ),
    )
}
