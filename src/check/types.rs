//! Types and their constraints: objects, tuples, fields, named references, unions, and the
//! bounds that constrain them (which apply to which type, and whether a range is empty).

use std::collections::HashMap;

use serde_json::{Number, Value};

use crate::ast::{self, AttrValue, Attribute, TypeExpr, TypeKind, ValueKind};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::emit::fold::Folded;
use crate::model::*;
use crate::pattern::{BuildError, MAX_PATTERN_MEMORY};
use crate::suggest::did_you_mean;

use super::attributes::{article, list, Seen};
use super::key_rules::{FieldIndex, OBJECT_CONSTRAINTS};
use super::names::{duplicate, first_line};
use super::{
    Checker, Pending, ARRAY_CONSTRAINTS, FIELD_ANNOTATIONS, NUMBER_CONSTRAINTS, STRING_CONSTRAINTS,
    TOOL_ATTRIBUTES,
};

impl Checker {
    // -----------------------------------------------------------------------------------------
    // Types

    pub(super) fn object(&mut self, body: &ast::ObjectBody) -> ObjectTy {
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
        ObjectTy {
            fields,
            additional,
            rules: KeyRules::default(),
        }
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
        let mut seen = Seen::new();
        // The examples and the default, checked against the type once the module is known.
        let mut values = Vec::new();
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
                            AttrValue::Word(_) | AttrValue::List { .. } => {
                                self.bad_arg(arg.value.span(), "`@example` takes a value; write strings in double quotes");
                                None
                            }
                        };
                        if let Some(v) = value {
                            self.folded_value(&v, arg.span, Folded::Example);
                            values.push((v.clone(), arg.span, Code::InvalidExample));
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
                values.push((v.clone(), d.span, Code::InvalidDefault));
                field.default = Some(v);
            }
        }
        if !values.is_empty() {
            self.pending.push(Pending {
                ty: field.ty.clone(),
                values,
            });
        }
        field
    }

    pub(super) fn ty(&mut self, e: &TypeExpr) -> Ty {
        match &e.kind {
            TypeKind::Named(n) => self.named(n),
            TypeKind::Literal(v) => match self.value(v) {
                Some(value) => Ty::Const(value),
                None => self.stand_in(),
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
                rules: KeyRules::default(),
            })),
            TypeKind::Object(body) => Ty::Object(Box::new(self.object(body))),
            TypeKind::Tuple(t) => self.tuple(t),
            TypeKind::Union(members) => self.union(e.span, members),
            TypeKind::Constrained(inner, attrs) => {
                // Whether a constraint applies cannot be judged against a type in error; its
                // name still is, and a repeat of it.
                let judged = self.judged_ty(inner);
                let in_error = judged.is_none();
                let mut ty = judged.unwrap_or(Ty::Any);
                self.constraints(&mut ty, inner.span, attrs, !in_error);
                ty
            }
        }
    }

    /// [`Checker::ty`], or `None` when `any` stands in for the type because it is in error
    /// (an unknown name, a definition that did not parse, a bad literal, or a union with such
    /// a member), whose error is reported: nothing more is judged against it.
    fn judged_ty(&mut self, e: &TypeExpr) -> Option<Ty> {
        let stand_ins = self.stand_ins;
        let ty = self.ty(e);
        (ty != Ty::Any || self.stand_ins == stand_ins).then_some(ty)
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
                if self.broken.contains(name) {
                    // Its definition did not parse, and that error is reported already.
                    return self.stand_in();
                }
                let mut d =
                    Diagnostic::error(Code::UnknownType, n.span, format!("unknown type `{name}`"))
                        .with_label("not defined");
                let hint = match name {
                    "int" | "i32" | "i64" | "long" => Some("integer"),
                    "float" | "double" | "f64" | "f32" => Some("number"),
                    "bool" => Some("boolean"),
                    "str" | "String" | "text" => Some("string"),
                    _ => None,
                };
                // Container types as JSON Schema or another language names them.
                let container = match name {
                    "array" | "list" | "Array" | "List" | "Vec" => Some(
                        "write `T[]` for an array of T (`string[]`, `Item[]`), or `[A, B]` for a \
                         tuple",
                    ),
                    "object" | "dict" | "Object" | "Dict" | "HashMap" | "Record" => Some(
                        "write `{ name: T, other: U }` for an object with these fields, or `map<T>` \
                         for one whose keys are free and values all of type T",
                    ),
                    _ => None,
                };
                if let Some(help) = container {
                    d = d.with_help(help);
                } else if let Some(s) = hint.or_else(|| self.closest_type_name(name)) {
                    d = d
                        .with_help(format!("did you mean `{s}`?"))
                        .with_replacement(n.span, name, s, s);
                } else if name == "map" {
                    d = d.with_help("write `map<T>` for an object whose values are all of type T");
                } else {
                    d = d.with_help("define it with `type` or `enum`, or use a built-in type: string, integer, number, boolean, any, null");
                }
                self.error(d);
                self.stand_in()
            }
        }
    }

    /// `any`, standing in for a type whose error is reported (so that nothing more is reported
    /// against it), counted in `stand_ins`.
    fn stand_in(&mut self) -> Ty {
        self.stand_ins += 1;
        Ty::Any
    }

    /// A union, normalized by the model's rule ([`union_of`]), whose findings are
    /// worded here as warnings.
    fn union(&mut self, span: Span, members: &[TypeExpr]) -> Ty {
        // Whether a member stands in as `any` for one whose error is reported already (an
        // unknown type, a definition that did not parse, a bad literal). The union is then
        // `any`, so that nothing more is reported against it, but without a warning: the
        // warnings for `any` and for repeated members would name a type nobody wrote.
        let mut recovered = false;
        let mut judged = Vec::with_capacity(members.len());
        // Where each judged member was written, so that a problem with one points at it.
        let mut spans: Vec<Span> = Vec::with_capacity(members.len());
        for m in members {
            match self.judged_ty(m) {
                Some(ty) => {
                    judged.push(ty);
                    spans.push(m.span);
                }
                None => recovered = true,
            }
        }
        let union = union_of(judged);
        for &(i, note) in &union.notes {
            let at = spans[i];
            match note {
                UnionNote::RepeatedNull => self.redundant(at, "`null` appears twice in this union"),
                UnionNote::RepeatedMember => {
                    self.redundant(at, "this member repeats an earlier member of the union");
                }
                UnionNote::Any => {
                    self.redundant_union(
                        span,
                        "`any` in a union accepts every value, so the union is `any`",
                        "write `any` alone, or remove it to keep the other members",
                    );
                    return Ty::Any;
                }
                // Only when nothing stands in for a member (below).
                UnionNote::RepeatedLiteral => {}
            }
        }
        if recovered {
            return Ty::Any;
        }
        for &(i, note) in &union.notes {
            if note == UnionNote::RepeatedLiteral {
                self.redundant(spans[i], "a literal appears twice in this union");
            }
        }
        let inner = match &union.ty {
            Ty::Nullable(inner) => &**inner,
            ty => ty,
        };
        let values: Vec<&Value> = match inner {
            Ty::Enum(members) => members.iter().map(|m| &m.value).collect(),
            Ty::Const(value) if !union.literals.is_empty() => vec![value],
            _ => Vec::new(),
        };
        if let Some(folded) = crate::emit::fold::enum_folding(values.iter().copied(), false) {
            for (value, &i) in values.iter().zip(&union.literals) {
                self.folded_value(value, spans[i], folded);
            }
        }
        union.ty
    }

    /// A member written twice.
    fn redundant(&mut self, span: Span, message: &str) {
        self.redundant_union(span, message, "remove the repeated member");
    }

    /// A `redundant-union` warning.
    fn redundant_union(&mut self, span: Span, message: &str, help: &str) {
        self.diags.push(
            Diagnostic::warning(Code::RedundantUnion, span, message.to_string())
                .with_label("redundant")
                .with_help(help.to_string()),
        );
    }

    /// The constraints written after a type. With `judged` false (the type is in error), only
    /// their names and repeats are checked.
    fn constraints(&mut self, ty: &mut Ty, ty_span: Span, attrs: &[Attribute], judged: bool) {
        let mut seen = Seen::new();
        let mut fields = FieldIndex::default();
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
                    .chain(OBJECT_CONSTRAINTS)
                    .chain(FIELD_ANNOTATIONS);
                if let Some(s) = did_you_mean(&a.name.text, known.iter().copied()) {
                    d = d
                        .with_help(format!("did you mean `@{s}`?"))
                        .with_replacement(a.name.span, &a.name.text, s, s);
                } else if let Some(s) = did_you_mean(&a.name.text, all.copied()) {
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
            if !self.first_time(&mut seen, a) || !judged {
                continue;
            }
            self.constraint(ty, ty_span, a, &mut fields);
        }
        self.check_ranges(ty);
    }

    fn constraint(&mut self, ty: &mut Ty, ty_span: Span, a: &Attribute, fields: &mut FieldIndex) {
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
                match self.patterns.compile(&p) {
                    Ok(_) => {}
                    Err(BuildError::Invalid(e)) => {
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
                    Err(e @ BuildError::OverBudget { .. }) => {
                        // Reported once: the patterns after it are not compiled.
                        if !std::mem::replace(&mut self.patterns_over, true) {
                            self.error(
                                Diagnostic::error(Code::PatternsTooLarge, a.span, e.to_string())
                                    .with_label("past the limit here")
                                    .with_help(format!(
                                        "a file's patterns may hold {} MiB once compiled, with what matching them keeps (each distinct pattern counted once); a counted repetition such as `.{{3000}}` compiles to thousands of copies of its item: bound lengths with `@min_length` and `@max_length` instead",
                                        MAX_PATTERN_MEMORY >> 20
                                    )),
                            );
                        }
                        return;
                    }
                }
                self.folded_value(&Value::String(p.clone()), a.span, Folded::Pattern);
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
                            // Written as it was: a word, or a string.
                            Some(s) => {
                                let written = match &arg.value {
                                    AttrValue::Word(_) => s.to_string(),
                                    _ => crate::syntax::quote(s),
                                };
                                d.with_help(format!("did you mean `{s}`?"))
                                    .with_replacement(arg.value.span(), &text, s, written)
                            }
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
            (Ty::Object(o), _) if OBJECT_CONSTRAINTS.contains(&name) => self.key_rule(o, a, fields),
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
                } else if OBJECT_CONSTRAINTS.contains(&name) {
                    "objects and maps"
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

    pub(super) fn length_arg(&mut self, a: &Attribute) -> Option<u64> {
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
            Ty::Object(o) => self.key_count_range(o),
            Ty::Integer(r) | Ty::Number(r) => {
                if let (Some(lo), Some(hi)) = (r.lower(), r.upper()) {
                    let empty = match crate::validate::cmp_numbers(&lo.value.value, &hi.value.value)
                    {
                        std::cmp::Ordering::Greater => true,
                        std::cmp::Ordering::Equal => lo.exclusive || hi.exclusive,
                        std::cmp::Ordering::Less => false,
                    };
                    if empty {
                        let (lo_span, hi_span) = (lo.value.span, hi.value.span);
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

    pub(super) fn length_range(
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
}

fn is_constraint(name: &str) -> bool {
    NUMBER_CONSTRAINTS.contains(&name)
        || STRING_CONSTRAINTS.contains(&name)
        || ARRAY_CONSTRAINTS.contains(&name)
        || OBJECT_CONSTRAINTS.contains(&name)
}

fn applicable(ty: &Ty) -> &'static [&'static str] {
    match ty {
        Ty::Integer(_) | Ty::Number(_) => NUMBER_CONSTRAINTS,
        Ty::String(_) => STRING_CONSTRAINTS,
        Ty::Array(_) | Ty::Tuple(_) => ARRAY_CONSTRAINTS,
        Ty::Object(_) => OBJECT_CONSTRAINTS,
        Ty::Nullable(inner) => applicable(inner),
        _ => &[],
    }
}
