//! The syntax tree of a `.tool` file, as written, with spans on every node.
//!
//! Built by the parser; nothing here is checked beyond the grammar. Trees compare by what they
//! say: equality leaves spans out.

use crate::diagnostic::{eq_ignoring_spans, Span};

/// A parsed file: its items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    /// Tools, types and enums, in source order.
    pub items: Vec<Item>,
}

/// A top-level definition.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `tool name { ... }`
    Tool(ToolDef),
    /// `type Name { ... }` or `type Name = T`
    Type(TypeDef),
    /// `enum Name { ... }`
    Enum(EnumDef),
    /// `import { A, B } from "./other.tool"`
    Import(ImportDef),
}

/// `import { A, B } from "./other.tool"`: types and enums of another file.
#[derive(Clone, Debug)]
pub struct ImportDef {
    /// The names imported, as written.
    pub names: Vec<Name>,
    /// The path as written (relative to the importing file's folder).
    pub path: String,
    /// Where the path's string is.
    pub path_span: Span,
    /// The whole import.
    pub span: Span,
}

impl Item {
    /// The item's name (an import has none of its own).
    pub fn name(&self) -> Option<&Name> {
        match self {
            Item::Tool(t) => Some(&t.name),
            Item::Type(t) => Some(&t.name),
            Item::Enum(e) => Some(&e.name),
            Item::Import(_) => None,
        }
    }

    /// Where the whole item is.
    pub fn span(&self) -> Span {
        match self {
            Item::Tool(t) => t.span,
            Item::Type(t) => t.span,
            Item::Enum(e) => e.span,
            Item::Import(i) => i.span,
        }
    }
}

/// A name as written: an identifier or a quoted string (already unescaped).
#[derive(Clone, Debug)]
pub struct Name {
    /// The name's text.
    pub text: String,
    /// Whether it was written as a quoted string.
    pub quoted: bool,
    /// Where.
    pub span: Span,
}

/// The `///` lines before a node, joined with `\n` (one leading space of each line removed).
#[derive(Clone, Debug)]
pub struct Doc {
    /// The text.
    pub text: String,
    /// Where (all the lines).
    pub span: Span,
}

/// `@name` or `@name(args)`.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// The name after `@`.
    pub name: Name,
    /// The arguments; `None` without parentheses.
    pub args: Option<Vec<AttrArg>>,
    /// The whole attribute.
    pub span: Span,
}

impl Attribute {
    /// The arguments, empty without parentheses.
    pub fn args(&self) -> &[AttrArg] {
        self.args.as_deref().unwrap_or(&[])
    }
}

/// One attribute argument: `value` or `name: value`.
#[derive(Clone, Debug)]
pub struct AttrArg {
    /// The name before `:`, if any.
    pub name: Option<Name>,
    /// The value.
    pub value: AttrValue,
    /// The whole argument.
    pub span: Span,
}

/// An attribute argument's value.
#[derive(Clone, Debug)]
pub enum AttrValue {
    /// A JSON value.
    Value(Value),
    /// A bare word such as `raise` or `date-time`.
    Word(Name),
    /// `[b, c]`: words or strings (the latter as [`AttrValue::Value`]), e.g. field names.
    List {
        /// The items, in order.
        items: Vec<AttrValue>,
        /// The brackets and what they hold.
        span: Span,
    },
}

/// By value, as the rest of the tree compares: spans are left out.
impl PartialEq for AttrValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (AttrValue::Value(a), AttrValue::Value(b)) => a == b,
            (AttrValue::Word(a), AttrValue::Word(b)) => a == b,
            (AttrValue::List { items: a, .. }, AttrValue::List { items: b, .. }) => a == b,
            _ => false,
        }
    }
}

impl AttrValue {
    /// The span of the value.
    pub fn span(&self) -> Span {
        match self {
            AttrValue::Value(v) => v.span,
            AttrValue::Word(w) => w.span,
            AttrValue::List { span, .. } => *span,
        }
    }
}

/// A JSON value as written.
#[derive(Clone, Debug)]
pub struct Value {
    /// What kind of value.
    pub kind: ValueKind,
    /// Where.
    pub span: Span,
}

/// The kinds of JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number, as its lexeme (converted during checking, which reports overflow).
    Number(String),
    /// A string, unescaped.
    String(String),
    /// `[ ... ]`
    Array(Vec<Value>),
    /// `{ key: value, ... }`
    Object(Vec<(Name, Value)>),
}

/// `tool name -> Output { params }`.
#[derive(Clone, Debug)]
pub struct ToolDef {
    /// Description.
    pub doc: Option<Doc>,
    /// Attributes before `tool`.
    pub attrs: Vec<Attribute>,
    /// The tool's name.
    pub name: Name,
    /// The `-> T` output type.
    pub output: Option<TypeExpr>,
    /// The parameters.
    pub params: ObjectBody,
    /// The whole definition.
    pub span: Span,
}

/// `type Name { ... }` or `type Name = T`.
#[derive(Clone, Debug)]
pub struct TypeDef {
    /// Description.
    pub doc: Option<Doc>,
    /// Attributes before `type`.
    pub attrs: Vec<Attribute>,
    /// The type's name.
    pub name: Name,
    /// The definition: an object body or an aliased type expression.
    pub body: TypeExpr,
    /// The whole definition.
    pub span: Span,
}

/// `enum Name { a b "c" 3 }`.
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// Description.
    pub doc: Option<Doc>,
    /// Attributes before `enum`.
    pub attrs: Vec<Attribute>,
    /// The enum's name.
    pub name: Name,
    /// The members.
    pub members: Vec<EnumMember>,
    /// The whole definition.
    pub span: Span,
}

/// One enum member.
#[derive(Clone, Debug)]
pub struct EnumMember {
    /// Description.
    pub doc: Option<Doc>,
    /// The value.
    pub value: EnumValue,
    /// Where.
    pub span: Span,
}

/// An enum member's value.
#[derive(Clone, Debug, PartialEq)]
pub enum EnumValue {
    /// A bare identifier, which stands for the string of the same text.
    Ident(String),
    /// A quoted string.
    String(String),
    /// An integer, as its lexeme.
    Integer(String),
}

/// `{ fields ... }` with an optional trailing `...` that opens the object.
#[derive(Clone, Debug)]
pub struct ObjectBody {
    /// The fields in order.
    pub fields: Vec<Field>,
    /// The span of `...` when the object accepts unknown keys.
    pub open: Option<Span>,
    /// The `T` of `...: T`: the type of the values under keys other than the fields.
    pub rest: Option<Box<TypeExpr>>,
    /// The braces and everything between.
    pub span: Span,
}

/// `[A, B?, ...]`: positional items, and `...` or `...: T` when more items may follow.
#[derive(Clone, Debug)]
pub struct TupleExpr {
    /// The positional items, in order.
    pub items: Vec<TupleItem>,
    /// The span of `...` when more items may follow.
    pub open: Option<Span>,
    /// The `T` of `...: T`: the type of the items after the positional ones.
    pub rest: Option<Box<TypeExpr>>,
    /// The brackets and everything between.
    pub span: Span,
}

/// One positional item of a tuple.
#[derive(Clone, Debug)]
pub struct TupleItem {
    /// The item's type.
    pub ty: TypeExpr,
    /// Whether the item is written with `?` (it may be left out, with those after it).
    pub optional: bool,
    /// The item, `?` included.
    pub span: Span,
}

/// `name?: T @annotations = default`.
#[derive(Clone, Debug)]
pub struct Field {
    /// Description.
    pub doc: Option<Doc>,
    /// The field's name.
    pub name: Name,
    /// Whether the name is followed by `?`.
    pub optional: bool,
    /// The type.
    pub ty: TypeExpr,
    /// Attributes after the type that are not part of it (`@deprecated`, `@example(...)`).
    pub annotations: Vec<Attribute>,
    /// The default value.
    pub default: Option<Value>,
    /// The whole field.
    pub span: Span,
}

/// A type as written.
#[derive(Clone, Debug)]
pub struct TypeExpr {
    /// What kind of type.
    pub kind: TypeKind,
    /// Where.
    pub span: Span,
}

/// The kinds of type expression.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// A built-in (`string`, `integer`, ...) or named type.
    Named(Name),
    /// A literal value type: `"a"`, `3`, `true`.
    Literal(Value),
    /// `T[]`
    Array(Box<TypeExpr>),
    /// `map<T>`
    Map(Box<TypeExpr>),
    /// `{ ... }`
    Object(ObjectBody),
    /// `[A, B?, ...]`
    Tuple(TupleExpr),
    /// `A | B | ...` (two or more members)
    Union(Vec<TypeExpr>),
    /// `T @constraint ...`
    Constrained(Box<TypeExpr>, Vec<Attribute>),
}

// Spans say where, not what: two trees compare by what they say.
eq_ignoring_spans!(Name { text, quoted } ignoring { span });
eq_ignoring_spans!(Doc { text } ignoring { span });
eq_ignoring_spans!(Attribute { name, args } ignoring { span });
eq_ignoring_spans!(AttrArg { name, value } ignoring { span });
eq_ignoring_spans!(Value { kind } ignoring { span });
eq_ignoring_spans!(ToolDef { doc, attrs, name, output, params } ignoring { span });
eq_ignoring_spans!(TypeDef { doc, attrs, name, body } ignoring { span });
eq_ignoring_spans!(EnumDef { doc, attrs, name, members } ignoring { span });
eq_ignoring_spans!(ImportDef { names, path } ignoring { path_span, span });
eq_ignoring_spans!(EnumMember { doc, value } ignoring { span });
eq_ignoring_spans!(ObjectBody { fields, rest } ignoring { span } presence { open });
eq_ignoring_spans!(TupleExpr { items, rest } ignoring { span } presence { open });
eq_ignoring_spans!(TupleItem { ty, optional } ignoring { span });
eq_ignoring_spans!(Field { doc, name, optional, ty, annotations, default } ignoring { span });
eq_ignoring_spans!(TypeExpr { kind } ignoring { span });

/// A node of a file's types, for [`each_node`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node<'a> {
    /// A type expression (each one, nested ones included).
    Type(&'a TypeExpr),
    /// A field.
    Field(&'a Field),
}

/// Calls `visit` with every type expression and every field of a file's items, outer before
/// inner (the parser bounds the nesting, so the recursion is bounded too).
pub(crate) fn each_node<'a>(items: &'a [Item], visit: &mut dyn FnMut(Node<'a>)) {
    for item in items {
        match item {
            Item::Tool(t) => {
                if let Some(o) = &t.output {
                    each_in_type(o, visit);
                }
                each_in_body(&t.params, visit);
            }
            Item::Type(t) => each_in_type(&t.body, visit),
            Item::Enum(_) | Item::Import(_) => {}
        }
    }
}

fn each_in_type<'a>(e: &'a TypeExpr, visit: &mut dyn FnMut(Node<'a>)) {
    visit(Node::Type(e));
    match &e.kind {
        TypeKind::Named(_) | TypeKind::Literal(_) => {}
        TypeKind::Array(inner) | TypeKind::Map(inner) | TypeKind::Constrained(inner, _) => {
            each_in_type(inner, visit)
        }
        TypeKind::Object(body) => each_in_body(body, visit),
        TypeKind::Tuple(t) => {
            for item in &t.items {
                each_in_type(&item.ty, visit);
            }
            if let Some(rest) = &t.rest {
                each_in_type(rest, visit);
            }
        }
        TypeKind::Union(members) => {
            for m in members {
                each_in_type(m, visit);
            }
        }
    }
}

fn each_in_body<'a>(body: &'a ObjectBody, visit: &mut dyn FnMut(Node<'a>)) {
    for field in &body.fields {
        visit(Node::Field(field));
        each_in_type(&field.ty, visit);
    }
    if let Some(rest) = &body.rest {
        each_in_type(rest, visit);
    }
}
