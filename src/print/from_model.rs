//! Model → syntax tree: the conversion that lets a compiled model be printed as source.

use serde_json::Value;

use super::Unprintable;
use crate::ast::{self, *};
use crate::diagnostic::Span;
use crate::model::{self, Additional, Module, NamedKind, Ty};
use crate::syntax::is_identifier;

/// Turns a model into a syntax tree that compiles back to it.
pub(crate) fn to_ast(m: &Module) -> Result<File, Unprintable> {
    let mut c = ToAst { module: m };
    let mut items: Vec<(usize, usize, Item)> = Vec::new();
    for (i, t) in m.types.iter().enumerate() {
        items.push((t.span.start, i, c.named(t)?));
    }
    for (i, t) in m.tools.iter().enumerate() {
        items.push((t.span.start, m.types.len() + i, Item::Tool(c.tool(t)?)));
    }
    items.sort_by_key(|(start, i, _)| (*start, *i));
    Ok(File {
        items: items.into_iter().map(|(_, _, item)| item).collect(),
    })
}

fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

// ---------------------------------------------------------------------------------------------
// Model → syntax tree

struct ToAst<'m> {
    module: &'m Module,
}

fn sp() -> Span {
    Span::default()
}

fn name(text: &str) -> Name {
    Name {
        text: text.to_string(),
        quoted: !is_identifier(text),
        span: sp(),
    }
}

fn doc(text: &Option<String>) -> Option<Doc> {
    text.as_ref().map(|t| Doc {
        text: t.clone(),
        span: sp(),
    })
}

fn attr(n: &str, args: Option<Vec<AttrArg>>) -> Attribute {
    attr_at(n, args, sp())
}

/// An attribute that keeps the span of the model's constraint it prints.
fn attr_at(n: &str, args: Option<Vec<AttrArg>>, span: Span) -> Attribute {
    Attribute {
        name: name(n),
        args,
        span,
    }
}

fn arg(v: AttrValue) -> AttrArg {
    AttrArg {
        name: None,
        value: v,
        span: sp(),
    }
}

fn named_arg(n: &str, v: AttrValue) -> AttrArg {
    AttrArg {
        name: Some(name(n)),
        value: v,
        span: sp(),
    }
}

fn word(w: &str) -> AttrValue {
    AttrValue::Word(name(w))
}

fn value(v: &Value) -> ast::Value {
    let kind = match v {
        Value::Null => ValueKind::Null,
        Value::Bool(b) => ValueKind::Bool(*b),
        Value::Number(n) => ValueKind::Number(n.to_string()),
        Value::String(s) => ValueKind::String(s.clone()),
        Value::Array(items) => ValueKind::Array(items.iter().map(value).collect()),
        Value::Object(m) => ValueKind::Object(m.iter().map(|(k, v)| (name(k), value(v))).collect()),
    };
    ast::Value { kind, span: sp() }
}

fn val(v: &Value) -> AttrValue {
    AttrValue::Value(value(v))
}

fn flag(n: &str, v: Option<bool>, out: &mut Vec<Attribute>) {
    match v {
        Some(true) => out.push(attr(n, None)),
        Some(false) => out.push(attr(
            n,
            Some(
                vec![val(&Value::Bool(false))]
                    .into_iter()
                    .map(arg)
                    .collect(),
            ),
        )),
        None => {}
    }
}

fn expr(kind: TypeKind) -> TypeExpr {
    TypeExpr { kind, span: sp() }
}

/// An error kind as a bare word when it reads back as one, else as a string.
fn kind_word(kind: &str) -> AttrValue {
    if is_word(kind) && !matches!(kind, "true" | "false" | "null") {
        word(kind)
    } else {
        val(&Value::String(kind.to_string()))
    }
}

/// A duration in the largest unit that holds it whole (`"5m"`, `"1500ms"`); below a
/// millisecond, in seconds (`"0.0000015s"`).
fn duration_text(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if !d.subsec_nanos().is_multiple_of(1_000_000) {
        return format!("{}s", d.as_secs_f64());
    }
    for (unit, size) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1000),
    ] {
        if ms.is_multiple_of(size) {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

fn f64_value(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

impl ToAst<'_> {
    fn named(&mut self, t: &model::NamedType) -> Result<Item, Unprintable> {
        if !is_identifier(&t.name) {
            return Err(Unprintable(format!(
                "the type name `{}` is not an identifier",
                t.name
            )));
        }
        let mut attrs = Vec::new();
        if t.deprecated {
            attrs.push(attr("deprecated", None));
        }
        let name = name(&t.name);
        match (t.kind, &t.ty) {
            (NamedKind::Enum, Ty::Enum(members)) => {
                let mut out = Vec::new();
                for m in members {
                    let value = match &m.value {
                        Value::String(s) if is_identifier(s) => EnumValue::Ident(s.clone()),
                        Value::String(s) => EnumValue::String(s.clone()),
                        Value::Number(n) if n.is_i64() || n.is_u64() => {
                            EnumValue::Integer(n.to_string())
                        }
                        other => {
                            return Err(Unprintable(format!(
                                "enum `{}` holds {other}, but enum values are strings or integers",
                                t.name
                            )))
                        }
                    };
                    out.push(ast::EnumMember {
                        doc: doc(&m.description),
                        value,
                        span: sp(),
                    });
                }
                Ok(Item::Enum(EnumDef {
                    doc: doc(&t.description),
                    attrs,
                    name,
                    members: out,
                    span: sp(),
                }))
            }
            (NamedKind::Object, Ty::Object(o)) => Ok(Item::Type(TypeDef {
                doc: doc(&t.description),
                attrs: attrs.into_iter().chain(key_rule_attrs(&o.rules)).collect(),
                name,
                body: expr(TypeKind::Object(self.object(o)?)),
                span: sp(),
            })),
            (_, ty) => Ok(Item::Type(TypeDef {
                doc: doc(&t.description),
                attrs,
                name,
                body: self.alias_body(ty)?,
                span: sp(),
            })),
        }
    }

    /// An alias body: an object literal after `=` would read as `type X { ... }`, so a plain
    /// object alias is written as a union of one in parentheses (the syntax tree has no
    /// parentheses, so it is written as `map<...>` when it is a map and refused otherwise).
    fn alias_body(&mut self, ty: &Ty) -> Result<TypeExpr, Unprintable> {
        if let Ty::Object(o) = ty {
            if !o.is_map() {
                return Err(Unprintable(
                    "an alias of an object type with fields has no spelling; use `type Name { ... }`"
                        .into(),
                ));
            }
        }
        self.ty(ty)
    }

    fn tool(&mut self, t: &model::Tool) -> Result<ToolDef, Unprintable> {
        let mut attrs = Vec::new();
        if let Some(title) = &t.title {
            attrs.push(attr(
                "title",
                Some(vec![arg(val(&Value::String(title.clone())))]),
            ));
        }
        flag("read_only", t.hints.read_only, &mut attrs);
        flag("destructive", t.hints.destructive, &mut attrs);
        flag("idempotent", t.hints.idempotent, &mut attrs);
        flag("open_world", t.hints.open_world, &mut attrs);
        if t.requires_approval {
            attrs.push(attr("requires_approval", None));
        }
        if let Some(scope) = &t.scope {
            let v = if is_word(scope) {
                word(scope)
            } else {
                val(&Value::String(scope.clone()))
            };
            attrs.push(attr("scope", Some(vec![arg(v)])));
        }
        match t.mode {
            Some(model::Mode::Strict) => attrs.push(attr("strict", None)),
            Some(model::Mode::Lax) => attrs.push(attr("lax", None)),
            None => {}
        }
        match t.on_error {
            Some(model::OnError::Raise) => {
                attrs.push(attr("on_error", Some(vec![arg(word("raise"))])))
            }
            Some(model::OnError::Suppress) => {
                attrs.push(attr("on_error", Some(vec![arg(word("suppress"))])))
            }
            None => {}
        }
        if t.formats == model::Formats::Annotate {
            attrs.push(attr("formats", Some(vec![arg(word("annotate"))])));
        }
        for r in &t.retry {
            let wait = match r.wait {
                model::Wait::Fixed(x) => val(&f64_value(x)),
                model::Wait::Linear => word("linear"),
                model::Wait::Exponential => word("exponential"),
            };
            let mut args = vec![
                named_arg("times", val(&Value::from(r.times))),
                named_arg("wait", wait),
                named_arg("base", val(&f64_value(r.base))),
            ];
            if !r.on.is_empty() {
                let items = r.on.iter().map(|k| kind_word(k)).collect();
                args.push(named_arg("on", AttrValue::List { items, span: sp() }));
            }
            attrs.push(attr("retry", Some(args)));
        }
        match t.on_invalid {
            Some(model::OnInvalid::Reply) => {
                attrs.push(attr("on_invalid", Some(vec![arg(word("reply"))])))
            }
            Some(model::OnInvalid::Raise) => {
                attrs.push(attr("on_invalid", Some(vec![arg(word("raise"))])))
            }
            None => {}
        }
        if let Some(cache) = &t.cache {
            let ttl = val(&Value::String(duration_text(cache.ttl)));
            attrs.push(attr("cache", Some(vec![named_arg("ttl", ttl)])));
        }
        if !t.meta.is_empty() {
            let mut args = Vec::new();
            for (k, v) in &t.meta {
                if !is_identifier(k) {
                    return Err(Unprintable(format!(
                        "the `@meta` key `{k}` is not an identifier"
                    )));
                }
                args.push(named_arg(k, val(v)));
            }
            attrs.push(attr("meta", Some(args)));
        }
        if !t.provider.is_empty() {
            let args = t
                .provider
                .iter()
                .map(|(target, fields)| named_arg(target, val(&Value::Object(fields.clone()))))
                .collect();
            attrs.push(attr("provider", Some(args)));
        }
        if t.deprecated {
            attrs.push(attr("deprecated", None));
        }
        attrs.extend(key_rule_attrs(&t.params.rules));
        let output = match &t.output {
            Some(o) => Some(self.ty(o)?),
            None => None,
        };
        Ok(ToolDef {
            doc: Some(Doc {
                text: t.description.clone(),
                span: sp(),
            }),
            attrs,
            name: name(&t.name),
            output,
            params: self.object(&t.params)?,
            span: sp(),
        })
    }

    fn object(&mut self, o: &model::ObjectTy) -> Result<ObjectBody, Unprintable> {
        let mut fields = Vec::new();
        for f in &o.fields {
            let mut annotations = Vec::new();
            if f.deprecated {
                annotations.push(attr("deprecated", None));
            }
            for e in &f.examples {
                annotations.push(attr("example", Some(vec![arg(val(e))])));
            }
            fields.push(ast::Field {
                doc: doc(&f.description),
                name: name(&f.name),
                optional: !f.required,
                ty: self.ty(&f.ty)?,
                annotations,
                default: f.default.as_ref().map(value),
                span: f.span,
            });
        }
        let (open, rest) = match &o.additional {
            Additional::Closed => (None, None),
            Additional::Open => (Some(sp()), None),
            Additional::Schema(t) => (Some(sp()), Some(Box::new(self.ty(t)?))),
        };
        Ok(ObjectBody {
            fields,
            open,
            rest,
            span: sp(),
        })
    }

    /// A literal type; an array literal is written as a tuple of literals (`[1, "a"]`) and an
    /// object literal as a closed object type with literal fields (`{ a: 1 }`), which mean
    /// exactly that value.
    fn literal(&self, v: &Value) -> Result<TypeExpr, Unprintable> {
        match v {
            Value::Null => Ok(expr(TypeKind::Named(name("null")))),
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(ast::TupleItem {
                        ty: self.literal(item)?,
                        optional: false,
                        span: sp(),
                    });
                }
                Ok(expr(TypeKind::Tuple(ast::TupleExpr {
                    items: out,
                    open: None,
                    rest: None,
                    span: sp(),
                })))
            }
            Value::Object(map) => {
                let mut fields = Vec::with_capacity(map.len());
                for (k, item) in map {
                    fields.push(ast::Field {
                        doc: None,
                        name: name(k),
                        optional: false,
                        ty: self.literal(item)?,
                        annotations: Vec::new(),
                        default: None,
                        span: sp(),
                    });
                }
                Ok(expr(TypeKind::Object(ObjectBody {
                    fields,
                    open: None,
                    rest: None,
                    span: sp(),
                })))
            }
            _ => Ok(expr(TypeKind::Literal(value(v)))),
        }
    }

    fn ty(&mut self, t: &Ty) -> Result<TypeExpr, Unprintable> {
        let named = |n: &str| Ok(expr(TypeKind::Named(name(n))));
        match t {
            Ty::Any => named("any"),
            Ty::Never => named("never"),
            Ty::Null => named("null"),
            Ty::Boolean => named("boolean"),
            Ty::Integer(r) | Ty::Number(r) => {
                let base = expr(TypeKind::Named(name(if matches!(t, Ty::Integer(_)) {
                    "integer"
                } else {
                    "number"
                })));
                let mut attrs = Vec::new();
                let bounds = [
                    ("min", &r.minimum),
                    ("max", &r.maximum),
                    ("exclusive_min", &r.exclusive_minimum),
                    ("exclusive_max", &r.exclusive_maximum),
                    ("multiple_of", &r.multiple_of),
                ];
                for (n, b) in bounds {
                    if let Some(b) = b {
                        attrs.push(attr_at(
                            n,
                            Some(vec![arg(val(&Value::Number(b.value.clone())))]),
                            b.span,
                        ));
                    }
                }
                Ok(constrained(base, attrs))
            }
            Ty::String(r) => {
                let mut attrs = Vec::new();
                if let Some(n) = &r.min_length {
                    attrs.push(attr_at(
                        "min_length",
                        Some(vec![arg(val(&Value::from(n.value)))]),
                        n.span,
                    ));
                }
                if let Some(n) = &r.max_length {
                    attrs.push(attr_at(
                        "max_length",
                        Some(vec![arg(val(&Value::from(n.value)))]),
                        n.span,
                    ));
                }
                if let Some(p) = &r.pattern {
                    attrs.push(attr_at(
                        "pattern",
                        Some(vec![arg(val(&Value::String(p.value.clone())))]),
                        p.span,
                    ));
                }
                if let Some(f) = &r.format {
                    attrs.push(attr_at(
                        "format",
                        Some(vec![arg(word(f.value.as_str()))]),
                        f.span,
                    ));
                }
                Ok(constrained(expr(TypeKind::Named(name("string"))), attrs))
            }
            Ty::Const(v) => self.literal(v),
            Ty::Enum(members) => {
                let mut out = Vec::new();
                for m in members {
                    out.push(self.literal(&m.value)?);
                }
                Ok(match out.len() {
                    1 => out
                        .pop()
                        .unwrap_or_else(|| expr(TypeKind::Named(name("null")))),
                    _ => expr(TypeKind::Union(out)),
                })
            }
            Ty::Array(a) => {
                let items = self.ty(&a.items)?;
                let attrs = array_attrs(&a.min_items, &a.max_items, &a.unique);
                Ok(constrained(expr(TypeKind::Array(Box::new(items))), attrs))
            }
            Ty::Tuple(t) => {
                let mut items = Vec::with_capacity(t.items.len());
                for (i, item) in t.items.iter().enumerate() {
                    items.push(ast::TupleItem {
                        ty: self.ty(item)?,
                        optional: i >= t.required,
                        span: sp(),
                    });
                }
                let (open, rest) = match &t.rest {
                    Additional::Closed => (None, None),
                    Additional::Open => (Some(sp()), None),
                    Additional::Schema(r) => (Some(sp()), Some(Box::new(self.ty(r)?))),
                };
                let tuple = expr(TypeKind::Tuple(ast::TupleExpr {
                    items,
                    open,
                    rest,
                    span: sp(),
                }));
                Ok(constrained(
                    tuple,
                    array_attrs(&t.min_items, &t.max_items, &t.unique),
                ))
            }
            Ty::Object(o) => {
                let base = match &o.additional {
                    Additional::Schema(values) if o.fields.is_empty() => {
                        expr(TypeKind::Map(Box::new(self.ty(values)?)))
                    }
                    _ => expr(TypeKind::Object(self.object(o)?)),
                };
                Ok(constrained(base, key_rule_attrs(&o.rules)))
            }
            Ty::Ref(id) => match self.module.types.get(id.0) {
                Some(t) => named(&t.name),
                None => Err(Unprintable(format!(
                    "type reference {} is out of range",
                    id.0
                ))),
            },
            Ty::Nullable(inner) => {
                let inner = self.ty(inner)?;
                let mut members = match inner.kind {
                    TypeKind::Union(ms) => ms,
                    kind => vec![expr(kind)],
                };
                members.push(expr(TypeKind::Named(name("null"))));
                Ok(expr(TypeKind::Union(members)))
            }
            Ty::AnyOf(members) => {
                let mut out = Vec::new();
                for m in members {
                    // A union member that is itself a union (an enum of literals) keeps its
                    // parentheses, which the printer adds for nested unions.
                    out.push(self.ty(m)?);
                }
                Ok(expr(TypeKind::Union(out)))
            }
        }
    }
}

/// `@min_items`, `@max_items` and `@unique` of an array or tuple.
fn array_attrs(
    min: &Option<model::Spanned<u64>>,
    max: &Option<model::Spanned<u64>>,
    unique: &Option<model::Spanned<bool>>,
) -> Vec<Attribute> {
    let mut attrs = Vec::new();
    if let Some(n) = min {
        attrs.push(attr_at(
            "min_items",
            Some(vec![arg(val(&Value::from(n.value)))]),
            n.span,
        ));
    }
    if let Some(n) = max {
        attrs.push(attr_at(
            "max_items",
            Some(vec![arg(val(&Value::from(n.value)))]),
            n.span,
        ));
    }
    if let Some(u) = unique {
        if u.value {
            attrs.push(attr_at("unique", None, u.span));
        } else {
            attrs.push(attr_at(
                "unique",
                Some(vec![arg(val(&Value::Bool(false)))]),
                u.span,
            ));
        }
    }
    attrs
}

/// `@min_properties`, `@max_properties`, `@exactly_one_of`, `@at_most_one_of` and `@requires`.
fn key_rule_attrs(rules: &model::KeyRules) -> Vec<Attribute> {
    let field = |n: &String| {
        if is_identifier(n) {
            word(n)
        } else {
            val(&Value::String(n.clone()))
        }
    };
    let fields = |names: &[String]| names.iter().map(|n| arg(field(n))).collect();
    let mut attrs = Vec::new();
    for (key, n) in [
        ("min_properties", &rules.min_properties),
        ("max_properties", &rules.max_properties),
    ] {
        if let Some(n) = n {
            attrs.push(attr_at(
                key,
                Some(vec![arg(val(&Value::from(n.value)))]),
                n.span,
            ));
        }
    }
    for g in &rules.groups {
        let args = match &g.value {
            model::KeyGroup::ExactlyOneOf(names) | model::KeyGroup::AtMostOneOf(names) => {
                fields(names)
            }
            model::KeyGroup::Requires { key, needs } => {
                let items = needs.iter().map(field).collect();
                vec![named_arg(key, AttrValue::List { items, span: sp() })]
            }
        };
        attrs.push(attr_at(g.value.attribute(), Some(args), g.span));
    }
    attrs
}

fn constrained(base: TypeExpr, attrs: Vec<Attribute>) -> TypeExpr {
    if attrs.is_empty() {
        base
    } else {
        expr(TypeKind::Constrained(Box::new(base), attrs))
    }
}

// ---------------------------------------------------------------------------------------------
// Layout
