//! Rust: serde types for every tool's arguments and output and every named type, a `Tools`
//! trait with one method per tool, and `register`, which makes an implementation of the trait
//! the handlers of a [`crate::runtime::Runtime`].
//!
//! Every path in the generated code is absolute (`::std::string::String`, `::serde::Serialize`),
//! so that a named type called `String`, `Vec` or `serde` cannot change what the code means.

use serde_json::Value;

use super::names::{pascal, snake, Taken};
use super::{doc_with_notes, join, key_rules, one_line};
use crate::model::{Additional, Module, NamedKind, ObjectTy, Tool, TupleTy, Ty};
use crate::Toolset;

/// Rust's keywords (strict and reserved), which a field or method name cannot be as it is.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
];

/// Type names the generated code uses unqualified (the trait, the type parameters of its
/// functions), or that would shadow a primitive type.
const RESERVED_TYPES: &[&str] = &[
    "Tools", "D", "S", "T", "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize",
    "u8", "u16", "u32", "u64", "u128", "usize", "f32", "f64", "Self",
];

const VALUE: &str = "::serde_json::Value";
const STRING: &str = "::std::string::String";
const DERIVE: &str = "#[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]";

/// The Rust code for every tool of `toolset`, with a header naming `origin` (the sources, as
/// the reader should see them) and saying the file is generated. The same toolset always gives
/// the same text.
pub fn rust(toolset: &Toolset, origin: &str) -> String {
    let tools: Vec<&Tool> = toolset.tools().map(|(_, t)| t).collect();
    rust_module(toolset.module(), &tools, origin)
}

/// The Rust code for `tools` and every named type of `module` (which the tools' types index),
/// as [`rust`] writes it; for a model built by hand, or one tool of a larger set.
pub fn rust_module(module: &Module, tools: &[&Tool], origin: &str) -> String {
    let mut gen = Gen {
        module,
        items: Vec::new(),
        types: Taken::with(RESERVED_TYPES),
        named: Vec::new(),
        uses_present: false,
    };
    gen.named = module
        .types
        .iter()
        .map(|t| {
            let name = if is_plain_ident(&t.name) && !KEYWORDS.contains(&t.name.as_str()) {
                t.name.clone()
            } else {
                pascal(&t.name, "Type")
            };
            gen.types.claim(&name)
        })
        .collect();
    let args: Vec<String> = tools
        .iter()
        .map(|t| gen.types.claim(&format!("{}Args", pascal(&t.name, "Tool"))))
        .collect();
    for (i, t) in module.types.iter().enumerate() {
        let name = gen.named[i].clone();
        let mut doc = t.description.clone().unwrap_or_default();
        if t.deprecated {
            doc = join(&doc, "Deprecated.");
        }
        match (&t.kind, &t.ty) {
            (NamedKind::Alias, ty) if !defines(ty) => {
                let expr = gen.expr(ty, &name, false);
                let mut text = docs(&doc_with_notes(&doc, &field_notes(ty)), "");
                text.push_str(&format!("pub type {name} = {expr};\n"));
                gen.items.push(text);
            }
            (_, ty) => gen.define(&name, ty, &doc),
        }
    }
    let mut methods = Taken::default();
    let mut trait_body = String::new();
    let mut register_body = String::new();
    for (tool, args_name) in tools.iter().zip(&args) {
        gen.define(
            &args_name.clone(),
            &Ty::Object(Box::new(tool.params.clone())),
            &format!(
                "The arguments of `{}`, validated and normalized (defaults filled).",
                tool.name
            ),
        );
        let output = match &tool.output {
            None => VALUE.to_string(),
            Some(Ty::Ref(id)) => gen.named_ref(*id, false),
            Some(ty) => {
                let name = gen
                    .types
                    .claim(&format!("{}Output", pascal(&tool.name, "Tool")));
                let doc = format!("What `{}` returns.", tool.name);
                if defines(ty) {
                    gen.define(&name, ty, &doc);
                } else {
                    let expr = gen.expr(ty, &name, false);
                    let mut text = docs(&doc_with_notes(&doc, &field_notes(ty)), "");
                    text.push_str(&format!("pub type {name} = {expr};\n"));
                    gen.items.push(text);
                }
                name
            }
        };
        let method = ident(&methods.claim(&snake(&tool.name, "tool")));
        let mut doc = tool.description.clone();
        if tool.deprecated {
            doc = join(&doc, "Deprecated.");
        }
        trait_body.push_str(&docs(&doc, "    "));
        trait_body.push_str(&format!(
            "    fn {method}(&self, args: {args_name}) -> ::std::result::Result<{output}, ::tooldef::ToolError>;\n"
        ));
        register_body.push_str(&format!(
            "    let handler = ::std::sync::Arc::clone(&tools);\n    runtime.register(\n        {name:?},\n        ::tooldef::Handler::sync(move |args| {{\n            let args: {args_name} = ::serde_json::from_value(args)?;\n            ::std::result::Result::Ok(::serde_json::to_value(handler.{method}(args)?)?)\n        }}),\n    )?;\n",
            name = tool.name
        ));
    }
    let mut out = String::new();
    out.push_str(&format!(
        "// @generated by `tooldef gen rust` from {}.\n// Do not edit: change the source and generate again.\n",
        one_line(origin)
    ));
    if gen.uses_present {
        out.push_str(PRESENT);
    }
    for item in &gen.items {
        out.push('\n');
        out.push_str(item);
    }
    out.push_str("\n/// The tools' handlers: one method per tool, taking its typed arguments and returning its\n/// typed output.\npub trait Tools: Send + Sync + 'static {\n");
    out.push_str(&trait_body);
    out.push_str("}\n\n/// Registers `tools` as the handler of every tool, so that the runtime validates each call,\n/// applies the tool's policies and hands the method the typed arguments.\npub fn register<T: Tools>(\n    runtime: &mut ::tooldef::Runtime,\n    tools: ::std::sync::Arc<T>,\n) -> ::std::result::Result<(), ::tooldef::validate::CompileError> {\n");
    if tools.is_empty() {
        out.push_str("    let _ = (runtime, tools);\n");
    }
    out.push_str(&register_body);
    out.push_str("    ::std::result::Result::Ok(())\n}\n");
    out
}

/// The helper that keeps an optional key whose value may be `null` apart from an absent one.
const PRESENT: &str = "
/// Reads a key that is present as `Some`, its value `null` included, so that an absent key and
/// a `null` stay apart.
fn __tooldef_present<'de, D, T>(
    deserializer: D,
) -> ::std::result::Result<::std::option::Option<T>, D::Error>
where
    D: ::serde::Deserializer<'de>,
    T: ::serde::Deserialize<'de>,
{
    <T as ::serde::Deserialize>::deserialize(deserializer).map(::std::option::Option::Some)
}
";

/// The state of one generation: the module, the items written so far and the names taken.
struct Gen<'m> {
    module: &'m Module,
    items: Vec<String>,
    types: Taken,
    /// The Rust name of each named type, by [`crate::model::TypeId`].
    named: Vec<String>,
    /// Whether a field needs [`PRESENT`].
    uses_present: bool,
}

/// Whether `ty` needs an item of its own (a struct or an enum) rather than a type expression.
fn defines(ty: &Ty) -> bool {
    match ty {
        Ty::Object(o) => !o.fields.is_empty() || matches!(o.additional, Additional::Closed),
        Ty::Enum(_) | Ty::Const(_) | Ty::AnyOf(_) => true,
        _ => false,
    }
}

impl Gen<'_> {
    /// The name of a named type, boxed when it is recursive and not behind a container.
    fn named_ref(&self, id: crate::model::TypeId, contained: bool) -> String {
        let name = self
            .named
            .get(id.0)
            .cloned()
            .unwrap_or_else(|| VALUE.to_string());
        let recursive = self.module.types.get(id.0).is_some_and(|t| t.recursive);
        if recursive && !contained {
            format!("::std::boxed::Box<{name}>")
        } else {
            name
        }
    }

    /// The Rust type of `ty`; an inline object, enum or union is written as an item named
    /// after `context`. `contained`: the value sits in a `Vec` or a map, which needs no box.
    fn expr(&mut self, ty: &Ty, context: &str, contained: bool) -> String {
        match ty {
            Ty::Any | Ty::Never => VALUE.to_string(),
            Ty::Null => "()".to_string(),
            Ty::Boolean => "bool".to_string(),
            Ty::Integer(_) => "i64".to_string(),
            Ty::Number(_) => "f64".to_string(),
            Ty::String(_) => STRING.to_string(),
            Ty::Ref(id) => self.named_ref(*id, contained),
            Ty::Nullable(inner) => {
                let inner = self.expr(inner, context, false);
                format!("::std::option::Option<{inner}>")
            }
            Ty::Array(a) => {
                let item = self.expr(&a.items, &format!("{context}Item"), true);
                format!("::std::vec::Vec<{item}>")
            }
            Ty::Tuple(t) => self.tuple(t, context),
            Ty::Object(o) if !defines(ty) => {
                let value = match &o.additional {
                    Additional::Schema(v) => self.expr(v, &format!("{context}Value"), true),
                    _ => VALUE.to_string(),
                };
                format!("::indexmap::IndexMap<{STRING}, {value}>")
            }
            _ => {
                let name = self.types.claim(context);
                self.define(&name, ty, "");
                name
            }
        }
    }

    /// A closed tuple whose items are all required is a Rust tuple (up to serde's 16 items);
    /// any other is a list of JSON values.
    fn tuple(&mut self, t: &TupleTy, context: &str) -> String {
        if typed_tuple(t) {
            let items: Vec<String> = t
                .items
                .iter()
                .enumerate()
                .map(|(i, item)| self.expr(item, &format!("{context}{i}"), false))
                .collect();
            if items.len() == 1 {
                format!("({},)", items[0])
            } else {
                format!("({})", items.join(", "))
            }
        } else {
            format!("::std::vec::Vec<{VALUE}>")
        }
    }

    /// Writes the item called `name` for `ty`: a struct, an enum or a type alias.
    fn define(&mut self, name: &str, ty: &Ty, doc: &str) {
        match ty {
            Ty::Object(o) if defines(ty) => self.object(name, o, doc),
            Ty::Const(v) => self.literals(name, &[(v.clone(), None)], doc),
            Ty::Enum(members) => {
                let values: Vec<(Value, Option<String>)> = members
                    .iter()
                    .map(|m| (m.value.clone(), m.description.clone()))
                    .collect();
                self.literals(name, &values, doc)
            }
            Ty::AnyOf(members) => self.union(name, members, doc),
            other => {
                let expr = self.expr(other, &format!("{name}Value"), false);
                let mut text = docs(&doc_with_notes(doc, &field_notes(other)), "");
                text.push_str(&format!("pub type {name} = {expr};\n"));
                self.items.push(text);
            }
        }
    }

    /// A struct with one field per declared field; extra keys, when allowed, in a flattened map.
    fn object(&mut self, name: &str, o: &ObjectTy, doc: &str) {
        let mut fields = Taken::default();
        let mut body = String::new();
        for f in &o.fields {
            let rust_name = ident(&fields.claim(&snake(&f.name, "field")));
            let mut ty = self.expr(&f.ty, &format!("{name}{}", pascal(&f.name, "Field")), false);
            let mut attrs: Vec<String> = Vec::new();
            if bare(&rust_name) != f.name {
                attrs.push(format!("rename = {:?}", f.name));
            }
            // A field with a default is filled in by normalization, so it is always there.
            if !f.required && f.default.is_none() {
                ty = format!("::std::option::Option<{ty}>");
                attrs.push("default".to_string());
                attrs.push("skip_serializing_if = \"::std::option::Option::is_none\"".to_string());
                if self.module.accepts_null(&f.ty) {
                    attrs.push("deserialize_with = \"__tooldef_present\"".to_string());
                    self.uses_present = true;
                }
            }
            let mut fdoc = f.description.clone().unwrap_or_default();
            if f.deprecated {
                fdoc = join(&fdoc, "Deprecated.");
            }
            if let Some(d) = &f.default {
                fdoc = join(&fdoc, &format!("Default: `{d}`."));
            }
            body.push_str(&docs(&doc_with_notes(&fdoc, &field_notes(&f.ty)), "    "));
            if !attrs.is_empty() {
                body.push_str(&format!("    #[serde({})]\n", attrs.join(", ")));
            }
            body.push_str(&format!("    pub {rust_name}: {ty},\n"));
        }
        let extra = match &o.additional {
            Additional::Closed => None,
            Additional::Open => Some(VALUE.to_string()),
            Additional::Schema(v) => Some(self.expr(v, &format!("{name}Value"), true)),
        };
        if let Some(value) = &extra {
            let rust_name = fields.claim("extra");
            body.push_str("    /// The keys besides the declared fields.\n    #[serde(flatten)]\n");
            body.push_str(&format!(
                "    pub {rust_name}: ::indexmap::IndexMap<{STRING}, {value}>,\n"
            ));
        }
        let rules = key_rules(o);
        let mut text = docs(&doc_with_notes(doc, &rules), "");
        text.push_str(DERIVE);
        text.push('\n');
        if extra.is_none() {
            text.push_str("#[serde(deny_unknown_fields)]\n");
        }
        if body.is_empty() {
            text.push_str(&format!("pub struct {name} {{}}\n"));
        } else {
            text.push_str(&format!("pub struct {name} {{\n{body}}}\n"));
        }
        self.items.push(text);
    }

    /// An enum of literal values: with `#[serde(rename)]` when they are all strings, else with
    /// its own `Serialize` and `Deserialize` (serde names variants by strings only).
    fn literals(&mut self, name: &str, values: &[(Value, Option<String>)], doc: &str) {
        let mut variants = Taken::with(&["Self"]);
        let names: Vec<String> = values
            .iter()
            .map(|(v, _)| {
                let base = match v {
                    Value::String(s) => pascal(s, "Value"),
                    Value::Null => "Null".to_string(),
                    Value::Bool(b) => pascal(&b.to_string(), "Value"),
                    other => pascal(
                        &format!("v_{}", other.to_string().replace('-', "minus_")),
                        "Value",
                    ),
                };
                variants.claim(&base)
            })
            .collect();
        let strings = values.iter().all(|(v, _)| v.is_string());
        let mut text = docs(doc, "");
        if strings {
            text.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]\n");
        } else {
            text.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n");
        }
        text.push_str(&format!("pub enum {name} {{\n"));
        for ((v, d), variant) in values.iter().zip(&names) {
            text.push_str(&docs(d.as_deref().unwrap_or(""), "    "));
            match v {
                Value::String(s) if strings => {
                    text.push_str(&format!("    #[serde(rename = {s:?})]\n"));
                }
                _ => {
                    if d.is_some() {
                        text.push_str("    ///\n");
                    }
                    text.push_str(&format!("    /// The value `{v}`.\n"));
                }
            }
            text.push_str(&format!("    {variant},\n"));
        }
        text.push_str("}\n");
        if !strings {
            let arms: String = values
                .iter()
                .zip(&names)
                .map(|((v, _), variant)| {
                    format!("            {name}::{variant} => {:?},\n", v.to_string())
                })
                .collect();
            text.push_str(&format!(
                "\nimpl {name} {{
    /// Every value, in the order of the source.
    pub const ALL: &'static [{name}] = &[{all}];

    /// The value as JSON.
    pub fn to_json(self) -> {VALUE} {{
        let text = match self {{
{arms}        }};
        ::serde_json::from_str(text).unwrap_or_default()
    }}
}}

impl ::serde::Serialize for {name} {{
    fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {{
        ::serde::Serialize::serialize(&self.to_json(), serializer)
    }}
}}

impl<'de> ::serde::Deserialize<'de> for {name} {{
    fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {{
        let value = <{VALUE} as ::serde::Deserialize>::deserialize(deserializer)?;
        {name}::ALL
            .iter()
            .copied()
            .find(|v| ::tooldef::validate::json_equal(&v.to_json(), &value))
            .ok_or_else(|| <D::Error as ::serde::de::Error>::custom(\"not a value of {name}\"))
    }}
}}
",
                all = names
                    .iter()
                    .map(|v| format!("{name}::{v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        }
        self.items.push(text);
    }

    /// A union: an untagged enum whose variants are tried in the order of the members. A
    /// discriminated union is one too; its members keep their tag field, so that a member type
    /// is usable alone, and each tag is a literal that only its member accepts.
    fn union(&mut self, name: &str, members: &[Ty], doc: &str) {
        let mut doc = doc.to_string();
        if let Some((tag, _)) = self.module.discriminator(members) {
            doc = join(&doc, &format!("Members are told apart by `{tag}`."));
        }
        let mut variants = Taken::with(&["Self"]);
        let mut body = String::new();
        for m in members {
            let base = match m {
                Ty::Ref(id) => self
                    .named
                    .get(id.0)
                    .cloned()
                    .unwrap_or_else(|| "Value".to_string()),
                other => pascal(other.kind_name(), "Value"),
            };
            let variant = variants.claim(&base);
            let ty = self.expr(m, &format!("{name}{variant}"), false);
            body.push_str(&format!("    {variant}({ty}),\n"));
        }
        let mut text = docs(&doc, "");
        text.push_str(DERIVE);
        text.push_str("\n#[serde(untagged)]\n");
        text.push_str(&format!("pub enum {name} {{\n{body}}}\n"));
        self.items.push(text);
    }
}

/// What tooldef checks of a value of `ty` that its Rust type does not say: the shared notes,
/// and a tuple that is a list of JSON values here.
fn field_notes(ty: &Ty) -> Vec<String> {
    let mut out = super::notes(ty);
    let tuple = match ty {
        Ty::Nullable(inner) => &**inner,
        other => other,
    };
    if let Ty::Tuple(t) = tuple {
        if !typed_tuple(t) {
            out.push(
                "a tuple whose items are not all required, that takes more items, or that has \
                 more than 16: its items are not typed here"
                    .to_string(),
            );
        }
    }
    out
}

/// Whether a tuple is a Rust tuple: closed, every item required, 1 to 16 items (serde's most).
fn typed_tuple(t: &TupleTy) -> bool {
    matches!(t.rest, Additional::Closed)
        && t.required == t.items.len()
        && (1..=16).contains(&t.items.len())
}

/// `text` as `///` lines indented by `indent` (nothing for no text).
fn docs(text: &str, indent: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            out.push_str(&format!("{indent}///\n"));
        } else {
            out.push_str(&format!("{indent}/// {line}\n"));
        }
    }
    out
}

/// Whether `name` is an ASCII identifier that Rust reads as one.
fn is_plain_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name != "_"
}

/// A snake-case name as a Rust identifier: a keyword as a raw identifier, or with `_` appended
/// when Rust has no raw form of it (`self`, `super`, `crate`).
fn ident(name: &str) -> String {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => format!("{name}_"),
        n if KEYWORDS.contains(&n) => format!("r#{n}"),
        n => n.to_string(),
    }
}

/// An identifier without its `r#`, as serde names the field.
fn bare(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}
