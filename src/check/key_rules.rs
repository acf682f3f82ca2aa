//! Rules across an object's keys: `@min_properties`, `@max_properties`, `@exactly_one_of`,
//! `@at_most_one_of` and `@requires`, written on an object type, a named object type or a tool.
//! Their arguments are read here, against the fields the object declares.

use std::collections::HashMap;

use crate::ast::{self, AttrValue, Attribute, ValueKind};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::model::*;
use crate::suggest::listed;

use super::Checker;
use crate::syntax::{is_identifier, quote};

/// The most fields a help lists when a rule names a field the object does not declare.
const LISTED_FIELDS: usize = 20;

/// An object's fields by name, made on the first lookup. An object's rules are read one attribute
/// at a time, each naming fields: a scan of the fields for each name cost names × fields (200,000
/// `@requires` over the last fields of 15,000 took 11.5 s).
#[derive(Default)]
pub(super) struct FieldIndex(Option<HashMap<String, usize>>);

impl FieldIndex {
    /// The field of `object` called `name` (the first, when a name is declared twice). One index
    /// serves one object.
    fn get<'o>(&mut self, object: &'o ObjectTy, name: &str) -> Option<&'o Field> {
        let index = self.0.get_or_insert_with(|| {
            let mut index = HashMap::with_capacity(object.fields.len());
            for (i, f) in object.fields.iter().enumerate() {
                index.entry(f.name.clone()).or_insert(i);
            }
            index
        });
        object.fields.get(*index.get(name)?)
    }
}

/// The attributes that state rules across an object's keys.
pub(crate) const OBJECT_CONSTRAINTS: &[&str] = &[
    "min_properties",
    "max_properties",
    "exactly_one_of",
    "at_most_one_of",
    "requires",
];

/// The attributes that may be given more than once on one item, each a rule of its own: the
/// group rules of an object, and a tool's `@retry` policies (tried in order).
pub(crate) const REPEATABLE_ATTRIBUTES: &[&str] =
    &["exactly_one_of", "at_most_one_of", "requires", "retry"];

impl Checker {
    /// Reads `a`, one of [`OBJECT_CONSTRAINTS`], into the rules of `object`.
    pub(super) fn key_rule(
        &mut self,
        object: &mut ObjectTy,
        a: &Attribute,
        fields: &mut FieldIndex,
    ) {
        match a.name.text.as_str() {
            "min_properties" | "max_properties" => {
                let Some(n) = self.length_arg(a) else { return };
                let slot = if a.name.text == "min_properties" {
                    &mut object.rules.min_properties
                } else {
                    &mut object.rules.max_properties
                };
                *slot = Some(Spanned::new(n, a.span));
            }
            "exactly_one_of" | "at_most_one_of" => {
                let names = self.field_names(object, a, a.args(), fields);
                if names.len() < 2 {
                    if names.len() == a.args().len() {
                        self.bad_arg(
                            a.span,
                            &format!(
                                "`@{}` takes two or more field names, e.g. `@{}(card, invoice)`",
                                a.name.text, a.name.text
                            ),
                        );
                    }
                    return;
                }
                self.grouped_fields(object, a, &names, fields);
                let group = if a.name.text == "exactly_one_of" {
                    KeyGroup::ExactlyOneOf(names)
                } else {
                    KeyGroup::AtMostOneOf(names)
                };
                object.rules.groups.push(Spanned::new(group, a.span));
            }
            _ => self.requires(object, a, fields),
        }
    }

    /// `@requires(a: [b, c], d: e)`: one rule per named argument.
    fn requires(&mut self, object: &mut ObjectTy, a: &Attribute, fields: &mut FieldIndex) {
        if a.args().is_empty() {
            self.bad_arg(
                a.span,
                "`@requires` takes `field: [fields]`, e.g. `@requires(currency: [amount])`",
            );
        }
        for arg in a.args() {
            let Some(key) = &arg.name else {
                self.bad_arg(
                    arg.span,
                    "`@requires` takes `field: [fields]`, e.g. `@requires(currency: [amount])`: the field given first, then the fields it asks for",
                );
                continue;
            };
            let key_ok = self.declared(object, &key.text, key.span, fields);
            // `[b, c]`; `["b-1", "c"]` reads as a JSON array, the same list.
            let items: Vec<AttrValue> = match &arg.value {
                AttrValue::List { items, .. } => items.clone(),
                AttrValue::Value(ast::Value {
                    kind: ValueKind::Array(values),
                    ..
                }) => values.iter().cloned().map(AttrValue::Value).collect(),
                one => vec![one.clone()],
            };
            let needs = self.field_names_of(object, a, &items, fields);
            if needs.len() < items.len() || !key_ok {
                continue;
            }
            if needs.is_empty() {
                self.bad_arg(arg.value.span(), "name the fields it asks for");
                continue;
            }
            if needs.contains(&key.text) {
                self.bad_arg(
                    arg.value.span(),
                    &format!("`{}` cannot ask for itself", key.text),
                );
                continue;
            }
            let always_given = fields
                .get(object, &key.text)
                .filter(|f| f.default.is_some());
            let undefaulted =
                |n: &String| fields.get(object, n).is_some_and(|f| f.default.is_none());
            if let Some(f) = always_given.filter(|_| needs.iter().any(undefaulted)) {
                self.error(
                    Diagnostic::error(
                        Code::ConflictingAttributes,
                        key.span,
                        format!("`{}` has a default, so `@requires` would not hold for the arguments the tool receives", key.text),
                    )
                    .with_label("has a default")
                    .with_related(f.span, format!("`{}` is declared here", f.name))
                    .with_help("a defaulted field is always there once defaults are filled in: remove its default, or give the fields it asks for defaults too"),
                );
                continue;
            }
            let group = KeyGroup::Requires {
                key: key.text.clone(),
                needs,
            };
            object.rules.groups.push(Spanned::new(group, arg.span));
        }
    }

    /// The field names of `args` (each unnamed), or fewer when one is not a declared field.
    fn field_names(
        &mut self,
        object: &ObjectTy,
        a: &Attribute,
        args: &[ast::AttrArg],
        fields: &mut FieldIndex,
    ) -> Vec<String> {
        for arg in args.iter().filter(|arg| arg.name.is_some()) {
            self.bad_arg(
                arg.span,
                &format!("`@{}` takes field names, not `name: value`", a.name.text),
            );
        }
        let values: Vec<AttrValue> = args
            .iter()
            .filter(|arg| arg.name.is_none())
            .map(|arg| arg.value.clone())
            .collect();
        if values.len() < args.len() {
            return Vec::new();
        }
        self.field_names_of(object, a, &values, fields)
    }

    /// The field names `values` hold (words, or strings for names that are not words), each a
    /// declared field of `object`, once; fewer when one is not.
    fn field_names_of(
        &mut self,
        object: &ObjectTy,
        a: &Attribute,
        values: &[AttrValue],
        fields: &mut FieldIndex,
    ) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        // Where each name was first given.
        let mut given: HashMap<String, Span> = HashMap::new();
        let mut ok = true;
        for v in values {
            let (text, span) = match v {
                AttrValue::Word(w) => (w.text.clone(), w.span),
                AttrValue::Value(ast::Value {
                    kind: ValueKind::String(s),
                    span,
                }) => (s.clone(), *span),
                other => {
                    self.bad_arg(
                        other.span(),
                        &format!("`@{}` takes field names", a.name.text),
                    );
                    ok = false;
                    continue;
                }
            };
            if let Some(&first) = given.get(&text) {
                self.error(
                    Diagnostic::error(
                        Code::InvalidAttributeArgument,
                        span,
                        format!("`{text}` is named twice"),
                    )
                    .with_label("named again")
                    .with_related(first, "first named here")
                    .with_help("name each field once"),
                );
                ok = false;
                continue;
            }
            ok &= self.declared(object, &text, span, fields);
            given.insert(text.clone(), span);
            names.push(text);
        }
        if !ok {
            return Vec::new();
        }
        names
    }

    /// Whether `object` declares a field called `name`; reports it when not.
    fn declared(
        &mut self,
        object: &ObjectTy,
        name: &str,
        span: Span,
        fields: &mut FieldIndex,
    ) -> bool {
        if fields.get(object, name).is_some() {
            return true;
        }
        let names = object.fields.iter().map(|f| f.name.as_str());
        let mut d = Diagnostic::error(
            Code::InvalidAttributeArgument,
            span,
            format!("`{name}` is not a field of this object"),
        )
        .with_label("no such field");
        d = match self.suggestions.did_you_mean(name, names.clone()) {
            Some(s) => {
                // A name is written bare when it can be, else as a string.
                let written = if is_identifier(s) {
                    s.to_string()
                } else {
                    quote(s)
                };
                d.with_help(format!("did you mean `{s}`?"))
                    .with_replacement(span, name, s, written)
            }
            None if object.fields.is_empty() => d.with_help(
                "this object declares no fields; rules across fields name declared fields",
            ),
            None => {
                let names = names.map(|n| format!("`{n}`"));
                d.with_help(format!(
                    "the fields are {}",
                    listed(names, LISTED_FIELDS, ", ")
                ))
            }
        };
        self.error(d);
        false
    }

    /// The fields of `@exactly_one_of` and `@at_most_one_of` must be optional and have no
    /// default: a required one, or one filled in when absent, would always be there.
    fn grouped_fields(
        &mut self,
        object: &ObjectTy,
        a: &Attribute,
        names: &[String],
        fields: &mut FieldIndex,
    ) {
        for f in names.iter().filter_map(|n| fields.get(object, n)) {
            let why = if f.required {
                "is required"
            } else if f.default.is_some() {
                "has a default"
            } else {
                continue;
            };
            self.error(
                Diagnostic::error(
                    Code::ConflictingAttributes,
                    a.span,
                    format!("`{}` {why}, so `@{}` cannot hold", f.name, a.name.text),
                )
                .with_label(format!("names `{}`", f.name))
                .with_related(f.span, format!("`{}` is declared here", f.name))
                .with_help(if f.required {
                    "make the field optional (`name?: T`)"
                } else {
                    "remove the default: it would be filled in whenever another field is given"
                }),
            );
        }
    }

    /// Whether some object could have the number of keys `@min_properties` and
    /// `@max_properties` allow, given its required fields and whether it takes other keys.
    pub(super) fn key_count_range(&mut self, object: &ObjectTy) {
        let rules = &object.rules;
        self.length_range(
            &rules.min_properties,
            &rules.max_properties,
            "min_properties",
            "max_properties",
        );
        let required = object.fields.iter().filter(|f| f.required).count() as u64;
        if let Some(max) = rules.max_properties.as_ref().filter(|m| m.value < required) {
            self.error(
                Diagnostic::error(
                    Code::InvalidRange,
                    max.span,
                    format!(
                        "`@max_properties({})` is below the {required} required fields",
                        max.value
                    ),
                )
                .with_label("too few keys allowed")
                .with_help("no object could have its required fields; raise the bound"),
            );
        }
        if let (Some(max), Some(f)) = (
            &rules.max_properties,
            object.fields.iter().find(|f| f.default.is_some()),
        ) {
            self.error(
                Diagnostic::error(
                    Code::ConflictingAttributes,
                    max.span,
                    "`@max_properties` counts the keys sent, and defaults filled in after would add to them",
                )
                .with_label("counts keys")
                .with_related(f.span, format!("`{}` has a default", f.name))
                .with_help("remove the defaults of this object's fields, or the bound"),
            );
        }
        let declared = object.fields.len() as u64;
        if let Some(min) = rules
            .min_properties
            .as_ref()
            .filter(|m| m.value > declared && matches!(object.additional, Additional::Closed))
        {
            self.error(
                Diagnostic::error(
                    Code::InvalidRange,
                    min.span,
                    format!(
                        "`@min_properties({})` asks for more keys than the closed object declares ({declared})",
                        min.value
                    ),
                )
                .with_label("too many keys asked for")
                .with_help("open the object with `...` or `...: T`, or lower the bound"),
            );
        }
    }
}
