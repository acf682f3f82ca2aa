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

use serde_json::Value;

use crate::emit::Target;
use crate::model::*;

use super::compile::Compiler;
use super::walk;

/// How a validator reads a call: in the source's shape, or in the shape a target showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reading {
    /// As the source declares the tool (the shape of `json-schema`, `openai`, `anthropic`,
    /// `gemini` and `mcp`).
    #[default]
    Source,
    /// Every field is sent; `null` in an optional field whose type has no `null` means absent
    /// (OpenAI strict mode).
    NullForAbsent,
}

impl Reading {
    /// The reading of `tool` for a target, when the target can carry the tool: `openai-strict`
    /// reads [`Reading::NullForAbsent`], `openai-responses` too when it emits the tool with
    /// `"strict": true`, and every other target reads the source's shape. `Err` holds the
    /// target's errors when it refuses the tool (so no model was shown it).
    pub fn for_target(
        module: &Module,
        tool: &Tool,
        target: Target,
    ) -> Result<Reading, crate::Errors> {
        match target {
            Target::OpenAiStrict => {
                let (_, diagnostics) = crate::emit::openai::strict(module, tool);
                if diagnostics.iter().any(crate::Diagnostic::is_error) {
                    return Err(crate::Errors::new(
                        diagnostics.into_iter().filter(|d| d.is_error()).collect(),
                    ));
                }
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
            _ => Ok(Reading::Source),
        }
    }
}

/// `tool` and the named types of `module`, as a module of one tool in the source's shape (what
/// [`back`] reads) and in the shape [`Reading::NullForAbsent`] shows (every field required, the
/// fields of [`Field::null_means_absent`] nullable).
pub(crate) fn shown_module(module: &Module, tool: &Tool) -> (Module, Module) {
    let source = Module {
        tools: vec![tool.clone()],
        types: module.types.clone(),
    };
    let mut shown_tool = tool.clone();
    shown_tool.params = shown_object(module, &tool.params);
    let shown = Module {
        tools: vec![shown_tool],
        types: module
            .types
            .iter()
            .map(|n| NamedType {
                ty: shown_ty(module, &n.ty),
                ..n.clone()
            })
            .collect(),
    };
    (source, shown)
}

fn shown_object(module: &Module, o: &ObjectTy) -> ObjectTy {
    let fields = o
        .fields
        .iter()
        .map(|f| {
            let ty = shown_ty(module, &f.ty);
            Field {
                ty: if f.null_means_absent(module) {
                    Ty::Nullable(Box::new(ty))
                } else {
                    ty
                },
                // The default stays: it is what the signature shows `null` stands for.
                required: true,
                ..f.clone()
            }
        })
        .collect();
    let additional = match &o.additional {
        Additional::Schema(t) => Additional::Schema(shown_ty(module, t)),
        other => other.clone(),
    };
    // The rules across keys read `null` as a value here, so they are checked in the source's
    // shape instead (see `has_source_only_rules`).
    ObjectTy {
        fields,
        additional,
        rules: KeyRules::default(),
    }
}

fn shown_ty(module: &Module, ty: &Ty) -> Ty {
    match ty {
        Ty::Object(o) => Ty::Object(Box::new(shown_object(module, o))),
        Ty::Array(a) => Ty::Array(Box::new(ArrayTy {
            items: shown_ty(module, &a.items),
            ..(**a).clone()
        })),
        Ty::Tuple(t) => Ty::Tuple(Box::new(TupleTy {
            items: t.items.iter().map(|i| shown_ty(module, i)).collect(),
            rest: match &t.rest {
                Additional::Schema(r) => Additional::Schema(shown_ty(module, r)),
                other => other.clone(),
            },
            ..(**t).clone()
        })),
        Ty::Nullable(inner) => Ty::Nullable(Box::new(shown_ty(module, inner))),
        Ty::AnyOf(members) => Ty::AnyOf(members.iter().map(|m| shown_ty(module, m)).collect()),
        other => other.clone(),
    }
}

/// A `@unique` array whose items are equal in the source's shape, though the shown shape told
/// them apart: `[{"a": null}, {"b": null}]` for items of `{a?: A} | {b?: B}` is `[{}, {}]`.
#[derive(Debug)]
pub(crate) struct NotUnique;

/// Turns `value`, valid for `ty` of `shown` and normalized by its validator, into the source's
/// shape: a `null` in a field of [`Field::null_means_absent`] is removed and the field's default
/// put in its place. `source` and `shown` are the two modules of [`shown_module`]; `ty` is a
/// type of `source` (its counterpart in `shown` is found by the same path).
///
/// The shown validator judged `@unique` with those nulls in place; the source reading judges it
/// without them and before defaults. `Err` when an array breaks it there (the value is then
/// turned all the same; [`bare`] gives the call the source reading reports it on).
pub(crate) fn back(
    source: &Module,
    shown: &Module,
    ty: &Ty,
    value: &mut Value,
) -> Result<(), NotUnique> {
    let mut unique = true;
    back_within(source, shown, ty, value, true, 0, &mut unique);
    if unique {
        Ok(())
    } else {
        Err(NotUnique)
    }
}

/// [`back`] without the defaults: the call as the source reading would read it.
pub(crate) fn bare(source: &Module, shown: &Module, ty: &Ty, value: &mut Value) {
    back_within(source, shown, ty, value, false, 0, &mut true);
}

/// Whether the tool of `module` (or a named type it holds) has a rule that the shown shape cannot
/// check as the source means it: a `@unique` array (whose items the shown shape may tell apart
/// where the source's does not), or rules across an object's keys (which count a `null` that
/// means "absent" as given).
pub(crate) fn has_source_only_rules(module: &Module) -> bool {
    fn within(ty: &Ty) -> bool {
        match ty {
            Ty::Array(a) => a.unique.as_ref().is_some_and(|u| u.value) || within(&a.items),
            Ty::Tuple(t) => {
                t.unique.as_ref().is_some_and(|u| u.value)
                    || t.items.iter().any(within)
                    || matches!(&t.rest, Additional::Schema(r) if within(r))
            }
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

fn back_within(
    source: &Module,
    shown: &Module,
    ty: &Ty,
    value: &mut Value,
    fill: bool,
    aliases: usize,
    unique_holds: &mut bool,
) {
    match (ty, value) {
        (Ty::Ref(id), v) => {
            if let Some(named) = source.types.get(id.0).filter(|_| aliases < MAX_ALIASES) {
                back_within(source, shown, &named.ty, v, fill, aliases + 1, unique_holds);
            }
        }
        (Ty::Nullable(inner), v) if !v.is_null() => {
            back_within(source, shown, inner, v, fill, 0, unique_holds)
        }
        (Ty::AnyOf(members), v @ (Value::Object(_) | Value::Array(_))) => {
            // The member the validator picked: the first whose shown shape accepts the value.
            if let Some(m) = members
                .iter()
                .find(|m| fits(shown, &shown_ty(source, m), v))
            {
                back_within(source, shown, m, v, fill, 0, unique_holds);
            }
        }
        (Ty::Array(a), Value::Array(items)) => {
            let unique = a.unique.as_ref().is_some_and(|u| u.value);
            // The items as the source reading compares them: without the nulls, and before
            // defaults are filled in.
            let bare = unique.then(|| {
                let mut bare = items.clone();
                for item in bare.iter_mut() {
                    back_within(source, shown, &a.items, item, false, 0, unique_holds);
                }
                bare
            });
            if bare
                .as_ref()
                .is_some_and(|b| walk::first_duplicate(b).is_some())
            {
                *unique_holds = false;
            }
            match bare {
                Some(bare) if !fill => *items = bare,
                bare => {
                    for item in items.iter_mut() {
                        back_within(source, shown, &a.items, item, fill, 0, unique_holds);
                    }
                    // As in the source's reading, defaults are annotations: when filling them
                    // in makes two items equal, the items keep no defaults.
                    if let Some(bare) = bare.filter(|_| walk::first_duplicate(items).is_some()) {
                        *items = bare;
                    }
                }
            }
        }
        (Ty::Tuple(t), Value::Array(items)) => {
            for (i, item) in items.iter_mut().enumerate() {
                let item_ty = match (t.items.get(i), &t.rest) {
                    (Some(ty), _) => ty,
                    (None, Additional::Schema(r)) => r,
                    (None, _) => continue,
                };
                back_within(source, shown, item_ty, item, fill, 0, unique_holds);
            }
        }
        (Ty::Object(o), Value::Object(map)) => {
            // The validator put the declared keys first, in declaration order: one walk pairs
            // them with the fields.
            let mut out = serde_json::Map::with_capacity(map.len());
            let mut next = 0;
            for (key, mut v) in std::mem::take(map) {
                let field = o.fields[next.min(o.fields.len())..]
                    .iter()
                    .position(|f| f.name == key)
                    .map(|i| next + i);
                match field.and_then(|i| o.fields.get(i).map(|f| (i, f))) {
                    Some((i, f)) => {
                        next = i + 1;
                        if v.is_null() && f.null_means_absent(source) {
                            if let Some(d) = f.default.as_ref().filter(|_| fill) {
                                out.insert(key, d.clone());
                            }
                            continue;
                        }
                        back_within(source, shown, &f.ty, &mut v, fill, 0, unique_holds);
                    }
                    None => {
                        if let Additional::Schema(t) = &o.additional {
                            back_within(source, shown, t, &mut v, fill, 0, unique_holds);
                        }
                    }
                }
                out.insert(key, v);
            }
            *map = out;
        }
        _ => {}
    }
}

/// Whether `value` is valid for `ty` of `module` in strict mode.
fn fits(module: &Module, ty: &Ty, value: &Value) -> bool {
    let mut compiler = Compiler::without_texts(module);
    let root = compiler.ty(ty);
    walk::accepts(&compiler.finish(), root, value)
}
