//! The compiled model: checked, immutable tool definitions that every later stage (emitters,
//! validators) reads. Nothing in it refers back to the syntax tree; spans are kept only so that
//! later stages can point diagnostics at the source.

use std::cmp::Ordering;
use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::{Number, Value};

use crate::diagnostic::{eq_ignoring_spans, Span};

/// Everything a `.tool` file defines, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The tools, in source order.
    pub tools: Vec<Tool>,
    /// The named types and enums, in source order; [`Ty::Ref`] indexes this list.
    pub types: Vec<NamedType>,
}

impl Module {
    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The named type or enum called `name`.
    pub fn named(&self, name: &str) -> Option<(TypeId, &NamedType)> {
        self.types
            .iter()
            .enumerate()
            .find(|(_, t)| t.name == name)
            .map(|(i, t)| (TypeId(i), t))
    }

    /// The named type behind an id.
    ///
    /// # Panics
    /// Never for ids taken from this module's types; an id from another module may be out of
    /// range.
    pub fn get(&self, id: TypeId) -> &NamedType {
        &self.types[id.0]
    }

    /// Whether `null` is a value of `ty` (nullable, `any`, `null`, or a literal, enum or union
    /// that holds it), following named types.
    pub fn accepts_null(&self, ty: &Ty) -> bool {
        self.accepts_null_within(ty, 0)
    }

    fn accepts_null_within(&self, ty: &Ty, depth: usize) -> bool {
        // Deeper than any checked type nests: say yes, the answer that asks nothing more.
        if depth > 64 {
            return true;
        }
        match ty {
            Ty::Any | Ty::Null | Ty::Nullable(_) => true,
            Ty::Const(v) => v.is_null(),
            Ty::Enum(members) => members.iter().any(|m| m.value.is_null()),
            Ty::AnyOf(members) => members
                .iter()
                .any(|m| self.accepts_null_within(m, depth + 1)),
            // A named type this module does not hold (a hand-built model): nothing is known.
            Ty::Ref(id) => self
                .types
                .get(id.0)
                .is_none_or(|n| self.accepts_null_within(&n.ty, depth + 1)),
            _ => false,
        }
    }

    /// The discriminator of a union's members, when it has one: a field that every member (an
    /// object, written inline or named) requires with a string literal type, a different literal
    /// in each (`type: "section"`, `type: "divider"`). Gives the field's name and each member's
    /// literal, in member order; the first field of the first member that qualifies is chosen.
    pub fn discriminator<'a>(&'a self, members: &'a [Ty]) -> Option<(&'a str, Vec<&'a str>)> {
        let objects: Vec<&ObjectTy> = members
            .iter()
            .map(|m| match self.resolve(m) {
                Ty::Object(o) => Some(&**o),
                _ => None,
            })
            .collect::<Option<_>>()?;
        if objects.len() < 2 {
            return None;
        }
        // Each member's fields by name: one lookup a member for each candidate, where a scan
        // would make a union of wide objects quadratic in their width.
        let indexes: Vec<FieldIndex<'a>> = objects.iter().map(|o| o.index()).collect();
        let tag = |index: &FieldIndex<'a>, key: &str| -> Option<&'a str> {
            let field = index.get(key).filter(|f| f.required)?;
            match self.resolve(&field.ty) {
                Ty::Const(Value::String(s)) => Some(s.as_str()),
                _ => None,
            }
        };
        objects[0].fields.iter().find_map(|candidate| {
            let key = candidate.name.as_str();
            let tags: Vec<&str> = indexes
                .iter()
                .map(|index| tag(index, key))
                .collect::<Option<_>>()?;
            let mut seen = std::collections::HashSet::new();
            tags.iter().all(|t| seen.insert(*t)).then_some((key, tags))
        })
    }

    /// Follows references until a type that is not a [`Ty::Ref`] (at most once per named type,
    /// so an alias cycle, which the checker rejects, cannot loop).
    pub fn resolve<'a>(&'a self, mut ty: &'a Ty) -> &'a Ty {
        for _ in 0..=self.types.len() {
            match ty {
                Ty::Ref(id) => ty = &self.get(*id).ty,
                _ => return ty,
            }
        }
        ty
    }
}

/// The index of a named type in [`Module::types`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub usize);

/// Which keyword defined a named type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedKind {
    /// `type Name { ... }`
    Object,
    /// `type Name = T`
    Alias,
    /// `enum Name { ... }`
    Enum,
}

/// A `type` or `enum` definition.
#[derive(Clone, Debug)]
pub struct NamedType {
    /// The name.
    pub name: String,
    /// Which keyword defined it.
    pub kind: NamedKind,
    /// The `///` description.
    pub description: Option<String>,
    /// The type it stands for.
    pub ty: Ty,
    /// Whether it takes part in a reference cycle; recursive types are emitted once under
    /// `$defs` and referenced with `$ref`, all others are inlined.
    pub recursive: bool,
    /// `@deprecated`
    pub deprecated: bool,
    /// The definition's span.
    pub span: Span,
}

/// A value with the place it was written (equal when the values are, wherever they were written).
#[derive(Clone, Debug)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where the attribute that set it was written.
    pub span: Span,
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: std::hash::Hash> std::hash::Hash for Spanned<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state);
    }
}

impl<T> Spanned<T> {
    /// Pairs a value with its span.
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// A type in the model.
#[derive(Clone, Debug, PartialEq, Hash)]
pub enum Ty {
    /// Any JSON value.
    Any,
    /// No value at all (`never`; JSON Schema's `false`): an optional field of this type must be
    /// absent.
    Never,
    /// Only `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A number with zero fractional part (1.0 counts, as in JSON Schema).
    Integer(NumberRules),
    /// Any JSON number.
    Number(NumberRules),
    /// A string.
    String(StringRules),
    /// Exactly one value (a literal type).
    Const(Value),
    /// One of several values (a union of literals, or an `enum`).
    Enum(Vec<EnumMember>),
    /// An array.
    Array(Box<ArrayTy>),
    /// An array whose items have types by position (`[string, integer?, ...]`).
    Tuple(Box<TupleTy>),
    /// An object: fields, and what other keys may hold (`map<T>` is an object without fields).
    Object(Box<ObjectTy>),
    /// A named type or enum.
    Ref(TypeId),
    /// The inner type or `null`.
    Nullable(Box<Ty>),
    /// A value that matches at least one member.
    AnyOf(Vec<Ty>),
}

impl Ty {
    /// A short name of the kind of type, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Ty::Any => "any",
            Ty::Never => "never",
            Ty::Null => "null",
            Ty::Boolean => "boolean",
            Ty::Integer(_) => "integer",
            Ty::Number(_) => "number",
            Ty::String(_) => "string",
            Ty::Const(_) => "literal",
            Ty::Enum(_) => "enum",
            Ty::Array(_) => "array",
            Ty::Tuple(_) => "tuple",
            Ty::Object(o) if o.is_map() => "map",
            Ty::Object(_) => "object",
            Ty::Ref(_) => "named type",
            Ty::Nullable(_) => "nullable type",
            Ty::AnyOf(_) => "union",
        }
    }
}

/// Constraints on numbers. `minimum` and `exclusive_minimum` may both be set (JSON Schema allows
/// it); the tighter one binds.
#[derive(Clone, Debug, Default, PartialEq, Hash)]
pub struct NumberRules {
    /// `@min`
    pub minimum: Option<Spanned<Number>>,
    /// `@max`
    pub maximum: Option<Spanned<Number>>,
    /// `@exclusive_min`
    pub exclusive_minimum: Option<Spanned<Number>>,
    /// `@exclusive_max`
    pub exclusive_maximum: Option<Spanned<Number>>,
    /// `@multiple_of` (positive)
    pub multiple_of: Option<Spanned<Number>>,
}

/// The bound of a number's range that binds on one side: the tighter of an inclusive and an
/// exclusive one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NumberBound<'a> {
    /// The bound as written.
    pub value: &'a Spanned<Number>,
    /// Whether the bound itself is excluded (`@exclusive_min`, `@exclusive_max`).
    pub exclusive: bool,
}

/// `5`, or `5 (exclusive)`.
impl std::fmt::Display for NumberBound<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.exclusive {
            write!(f, "{} (exclusive)", self.value.value)
        } else {
            write!(f, "{}", self.value.value)
        }
    }
}

impl NumberRules {
    /// The lower bound that binds: of `@min` and `@exclusive_min`, the greater (the exclusive
    /// one when they are equal), compared exactly as numbers.
    pub fn lower(&self) -> Option<NumberBound<'_>> {
        binding(&self.minimum, &self.exclusive_minimum, Ordering::Greater)
    }

    /// The upper bound that binds: of `@max` and `@exclusive_max`, the smaller (the exclusive
    /// one when they are equal), compared exactly as numbers.
    pub fn upper(&self) -> Option<NumberBound<'_>> {
        binding(&self.maximum, &self.exclusive_maximum, Ordering::Less)
    }
}

/// The one rule for which of an inclusive and an exclusive bound binds: the inclusive one only
/// when it lies strictly on the `tighter` side of the exclusive one.
fn binding<'a>(
    inclusive: &'a Option<Spanned<Number>>,
    exclusive: &'a Option<Spanned<Number>>,
    tighter: Ordering,
) -> Option<NumberBound<'a>> {
    match (inclusive, exclusive) {
        (Some(i), Some(e)) if crate::validate::cmp_numbers(&i.value, &e.value) == tighter => {
            Some(NumberBound {
                value: i,
                exclusive: false,
            })
        }
        (_, Some(e)) => Some(NumberBound {
            value: e,
            exclusive: true,
        }),
        (Some(i), None) => Some(NumberBound {
            value: i,
            exclusive: false,
        }),
        (None, None) => None,
    }
}

/// Constraints on strings. Lengths count Unicode code points, as in JSON Schema.
#[derive(Clone, Debug, Default, PartialEq, Hash)]
pub struct StringRules {
    /// `@min_length`
    pub min_length: Option<Spanned<u64>>,
    /// `@max_length`
    pub max_length: Option<Spanned<u64>>,
    /// `@pattern` (regex crate syntax, unanchored)
    pub pattern: Option<Spanned<String>>,
    /// `@format`
    pub format: Option<Spanned<Format>>,
}

/// The string formats tooldef knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// RFC 3339 full-date
    Date,
    /// RFC 3339 date-time
    DateTime,
    /// RFC 3339 full-time
    Time,
    /// ISO 8601 duration
    Duration,
    /// RFC 5321 mailbox
    Email,
    /// RFC 1123 host name
    Hostname,
    /// dotted-quad IPv4 address
    Ipv4,
    /// RFC 4291 IPv6 address
    Ipv6,
    /// RFC 3986 URI
    Uri,
    /// RFC 4122 UUID
    Uuid,
}

impl Format {
    /// Every format.
    pub const ALL: &'static [Format] = &[
        Format::Date,
        Format::DateTime,
        Format::Time,
        Format::Duration,
        Format::Email,
        Format::Hostname,
        Format::Ipv4,
        Format::Ipv6,
        Format::Uri,
        Format::Uuid,
    ];

    /// The JSON Schema name of the format.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Date => "date",
            Format::DateTime => "date-time",
            Format::Time => "time",
            Format::Duration => "duration",
            Format::Email => "email",
            Format::Hostname => "hostname",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Uri => "uri",
            Format::Uuid => "uuid",
        }
    }

    /// The format called `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.as_str() == name)
    }
}

/// Constraints and element type of an array.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct ArrayTy {
    /// The type of every element.
    pub items: Ty,
    /// `@min_items`
    pub min_items: Option<Spanned<u64>>,
    /// `@max_items`
    pub max_items: Option<Spanned<u64>>,
    /// `@unique`: no two elements equal (1 and 1.0 are equal, as in JSON Schema).
    pub unique: Option<Spanned<bool>>,
}

/// A tuple: an array whose items have types by position.
///
/// The first `required` items must be present; the others may be left off from the end, as in
/// JSON Schema's `prefixItems` (and TypeScript's optional tuple elements). After the positional
/// items, `rest` says what more the array may hold: nothing (`Closed`, the default), anything
/// (`Open`, written `...`) or items of one type (`Schema`, written `...: T`).
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct TupleTy {
    /// The types of the positional items, in order.
    pub items: Vec<Ty>,
    /// How many leading items must be present (at most `items.len()`).
    pub required: usize,
    /// What may follow the positional items.
    pub rest: Additional,
    /// `@min_items`, kept only when it asks for more than the positional items.
    pub min_items: Option<Spanned<u64>>,
    /// `@max_items`
    pub max_items: Option<Spanned<u64>>,
    /// `@unique`: no two elements equal.
    pub unique: Option<Spanned<bool>>,
}

impl TupleTy {
    /// The least number of items an array must have: the required items, or `@min_items` when
    /// it asks for more.
    pub fn min_len(&self) -> u64 {
        let required = self.required as u64;
        self.min_items
            .as_ref()
            .map_or(required, |m| m.value.max(required))
    }

    /// The most items an array may have: `@max_items`, or the positional items when the tuple
    /// is closed, whichever is less.
    pub fn max_len(&self) -> Option<u64> {
        let closed = matches!(self.rest, Additional::Closed).then_some(self.items.len() as u64);
        match (closed, self.max_items.as_ref().map(|m| m.value)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The type of the item at `index`: its positional type, or what the rest allows (`None`:
    /// no item may be there).
    pub fn item(&self, index: usize) -> Option<&Ty> {
        match (self.items.get(index), &self.rest) {
            (Some(t), _) => Some(t),
            (None, Additional::Schema(t)) => Some(t),
            (None, Additional::Open) => Some(&Ty::Any),
            (None, Additional::Closed) => None,
        }
    }
}

/// One value of an enum, with its description.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct EnumMember {
    /// The value (a string, an integer, or for unions of literals any scalar).
    pub value: Value,
    /// The `///` description of the value.
    pub description: Option<String>,
}

/// An object type.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct ObjectTy {
    /// The declared fields, in order.
    pub fields: Vec<Field>,
    /// What keys other than the fields may hold.
    pub additional: Additional,
    /// Rules across the keys: how many there may be, and which go together.
    pub rules: KeyRules,
}

/// The rules an object's keys follow together (attributes on an object, a type or a tool).
/// The rules read the keys as sent: a default filled in later does not count, and in lax mode
/// a `null` read as "absent" is absent.
#[derive(Clone, Debug, Default, PartialEq, Hash)]
pub struct KeyRules {
    /// `@min_properties`: the fewest keys.
    pub min_properties: Option<Spanned<u64>>,
    /// `@max_properties`: the most keys.
    pub max_properties: Option<Spanned<u64>>,
    /// `@exactly_one_of`, `@at_most_one_of` and `@requires`, in source order.
    pub groups: Vec<Spanned<KeyGroup>>,
}

impl KeyRules {
    /// Whether there is no rule.
    pub fn is_empty(&self) -> bool {
        self.min_properties.is_none() && self.max_properties.is_none() && self.groups.is_empty()
    }
}

/// A rule over some of an object's declared fields.
#[derive(Clone, Debug, PartialEq, Hash)]
pub enum KeyGroup {
    /// `@exactly_one_of(a, b)`: one of the fields, and only one, is given.
    ExactlyOneOf(Vec<String>),
    /// `@at_most_one_of(a, b)`: no two of the fields are given together.
    AtMostOneOf(Vec<String>),
    /// `@requires(a: [b, c])`: when `key` is given, so is each of `needs`.
    Requires {
        /// The field whose presence asks for the others.
        key: String,
        /// The fields it asks for.
        needs: Vec<String>,
    },
}

impl KeyGroup {
    /// The attribute's name, e.g. `exactly_one_of`.
    pub fn attribute(&self) -> &'static str {
        match self {
            KeyGroup::ExactlyOneOf(_) => "exactly_one_of",
            KeyGroup::AtMostOneOf(_) => "at_most_one_of",
            KeyGroup::Requires { .. } => "requires",
        }
    }

    /// Every field the rule names, the key of `@requires` first.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        let (head, rest): (Option<&String>, &[String]) = match self {
            KeyGroup::ExactlyOneOf(names) | KeyGroup::AtMostOneOf(names) => (None, names),
            KeyGroup::Requires { key, needs } => (Some(key), needs),
        };
        head.into_iter().chain(rest).map(String::as_str)
    }
}

impl ObjectTy {
    /// Whether this is a `map<T>`: no fields, values of one type.
    pub fn is_map(&self) -> bool {
        self.fields.is_empty() && matches!(self.additional, Additional::Schema(_))
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The fields by name, for many lookups: one lookup a name, where [`ObjectTy::field`] for
    /// each would make a pass over a wide object quadratic in its width.
    pub(crate) fn index(&self) -> FieldIndex<'_> {
        let mut positions = HashMap::with_capacity(self.fields.len());
        for (i, f) in self.fields.iter().enumerate() {
            positions.entry(f.name.as_str()).or_insert(i);
        }
        FieldIndex {
            fields: &self.fields,
            positions,
        }
    }
}

/// An object's fields by name, built by [`ObjectTy::index`]; a name sent twice finds the first
/// field of that name, as [`ObjectTy::field`] does.
pub(crate) struct FieldIndex<'a> {
    fields: &'a [Field],
    positions: HashMap<&'a str, usize>,
}

impl<'a> FieldIndex<'a> {
    /// Where the field called `name` is among the object's fields.
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        self.positions.get(name).copied()
    }

    /// The field called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'a Field> {
        self.fields.get(self.position(name)?)
    }
}

/// What an object accepts besides its declared fields, or a tuple after its positional items.
#[derive(Clone, Debug, PartialEq, Hash)]
pub enum Additional {
    /// Nothing: an unknown key (or an extra item) is an error (the default).
    Closed,
    /// Any value under any other key, or any extra items (`...`).
    Open,
    /// Values of this type under any other key (`map<T>`, `...: T`), or extra items of it.
    Schema(Ty),
}

/// One field of an object or one parameter of a tool.
#[derive(Clone, Debug)]
pub struct Field {
    /// The key.
    pub name: String,
    /// The `///` description.
    pub description: Option<String>,
    /// Whether the key must be present.
    pub required: bool,
    /// The type of the value.
    pub ty: Ty,
    /// The value used when the key is absent.
    pub default: Option<Value>,
    /// `@example(...)` values.
    pub examples: Vec<Value>,
    /// `@deprecated`
    pub deprecated: bool,
    /// The field's span.
    pub span: Span,
}

impl Field {
    /// Whether a target that lists every field as required (OpenAI strict mode) shows this
    /// field as nullable, with `null` standing for "absent": it is optional and `null` is not a
    /// value of its type.
    pub fn null_means_absent(&self, module: &Module) -> bool {
        !self.required && !module.accepts_null(&self.ty)
    }
}

/// A tool that a model can call.
#[derive(Clone, Debug)]
pub struct Tool {
    /// The name the model calls it by.
    pub name: String,
    /// What it does (required).
    pub description: String,
    /// `@title("...")`: a human-readable name.
    pub title: Option<String>,
    /// The parameters: always an object.
    pub params: ObjectTy,
    /// The `-> T` output type.
    pub output: Option<Ty>,
    /// MCP behaviour hints.
    pub hints: Hints,
    /// `@requires_approval`: a human must approve each call.
    pub requires_approval: bool,
    /// `@scope(name)`: free access-scope metadata (e.g. `admin`).
    pub scope: Option<String>,
    /// `@strict` / `@lax`: the default validation mode.
    pub mode: Option<Mode>,
    /// `@on_error(...)`: what a runtime does when the tool fails.
    pub on_error: Option<OnError>,
    /// `@retry(...)`: how a runtime retries a failed call, one policy per `@retry` in source
    /// order; the first whose `on` matches a failure's kind applies.
    pub retry: Vec<Retry>,
    /// `@on_invalid(...)`: what a call with invalid arguments does, unless the call says.
    pub on_invalid: Option<OnInvalid>,
    /// `@cache(ttl: ...)`: how long a runtime keeps the results of a read-only tool.
    pub cache: Option<Cache>,
    /// `@deprecated`
    pub deprecated: bool,
    /// `@formats(assert | annotate)`: whether the validator checks `@format` in the arguments.
    pub formats: Formats,
    /// `@meta(key: value, ...)`: free metadata, in order.
    pub meta: IndexMap<String, Value>,
    /// `@provider(target: {...}, ...)`: extra fields of the tool object of a target (its name as
    /// [`crate::emit::Target::as_str`] spells it), merged in when that target is emitted.
    pub provider: IndexMap<String, serde_json::Map<String, Value>>,
    /// The span of the tool's name: diagnostics about the whole tool point here.
    pub span: Span,
}

impl Tool {
    /// A tool with its name, description and parameters, and no attributes (no title, output,
    /// hints, policies or metadata).
    pub fn new(name: impl Into<String>, description: impl Into<String>, params: ObjectTy) -> Tool {
        Tool {
            name: name.into(),
            description: description.into(),
            title: None,
            params,
            output: None,
            hints: Hints::default(),
            requires_approval: false,
            scope: None,
            mode: None,
            on_error: None,
            retry: Vec::new(),
            on_invalid: None,
            cache: None,
            deprecated: false,
            formats: Formats::Assert,
            meta: IndexMap::new(),
            provider: IndexMap::new(),
            span: Span::default(),
        }
    }
}

/// Whether a tool's validator checks `@format` (`@formats(...)`). The emitted schemas say
/// `format` either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Formats {
    /// A string that is not a valid value of its format is an error (`format-mismatch`), in
    /// both modes. The default.
    #[default]
    Assert,
    /// `format` is an annotation only, as JSON Schema 2020-12 reads it by default.
    Annotate,
}

/// MCP tool annotations. `None` means "not said" (MCP's defaults then apply: not read-only,
/// destructive, not idempotent, open world).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    /// `@read_only`: the tool does not change its environment.
    pub read_only: Option<bool>,
    /// `@destructive`: the tool may destroy or overwrite data.
    pub destructive: Option<bool>,
    /// `@idempotent`: calling twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// `@open_world`: the tool talks to an open set of external entities.
    pub open_world: Option<bool>,
}

/// How arguments are validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Exactly the emitted JSON Schema.
    Strict,
    /// The schema plus documented coercions ("42" → 42).
    Lax,
}

/// What a runtime does when the tool itself fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// Propagate the error to the caller, stopping the agent.
    Raise,
    /// Return a description of the error to the model so it can recover.
    Suppress,
}

/// What a call does when the arguments are invalid (`@on_invalid`, Phronomy's
/// `on_schema_error`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnInvalid {
    /// Hand the message back as the tool's result, so the model can correct itself on the next
    /// turn ([`crate::validate::Outcome::Reply`]).
    #[default]
    Reply,
    /// Fail the call with an [`crate::validate::Invalid`] error, stopping the agent.
    Raise,
}

/// A retry policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Retry {
    /// How many times to retry after the first failure.
    pub times: u32,
    /// The error kinds it retries (`on: [timeout, unavailable]`); empty: every kind that can be
    /// retried.
    pub on: Vec<String>,
    /// How long to wait between attempts.
    pub wait: Wait,
    /// The base wait in seconds for `linear` and `exponential`.
    pub base: f64,
}

impl Retry {
    /// Whether the policy applies to a failure of `kind`.
    pub fn matches(&self, kind: &str) -> bool {
        self.on.is_empty() || self.on.iter().any(|k| k == kind)
    }
}

/// A result cache (`@cache(ttl: "5m")`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cache {
    /// How long a result is served from the cache after the call that made it.
    pub ttl: std::time::Duration,
}

/// The wait between retries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wait {
    /// A fixed number of seconds (0 retries at once).
    Fixed(f64),
    /// `base × attempt` seconds.
    Linear,
    /// `base × 2^(attempt-1)` seconds.
    Exponential,
}

/// Values seen so far, for finding repeats in linear time: bucketed by a hash consistent with
/// [`crate::validate::json_equal`], compared within a bucket.
#[derive(Default)]
pub(crate) struct ValueSet {
    buckets: std::collections::HashMap<u64, Vec<Value>>,
}

impl ValueSet {
    /// Adds `v`; `false` when an equal value was there (`exact`: equal as JSON values are, `1`
    /// and `1.0` apart; otherwise as JSON Schema compares, `1` equal to `1.0`).
    pub(crate) fn insert(&mut self, v: &Value, exact: bool) -> bool {
        let bucket = self
            .buckets
            .entry(crate::validate::json_hash(v))
            .or_default();
        let seen = if exact {
            bucket.iter().any(|w| w == v)
        } else {
            bucket.iter().any(|w| crate::validate::json_equal(w, v))
        };
        if !seen {
            bucket.push(v.clone());
        }
        !seen
    }
}

/// Union members seen so far (equal as types are), for normalizing a union in linear time: the
/// other members bucketed by their hash (which ignores spans, as their equality does).
#[derive(Default)]
pub(crate) struct MemberSet {
    literals: ValueSet,
    others: std::collections::HashMap<u64, Vec<Ty>>,
    state: std::collections::hash_map::RandomState,
}

impl MemberSet {
    /// Adds `t`; `false` when an equal member was there.
    pub(crate) fn insert(&mut self, t: &Ty) -> bool {
        use std::hash::BuildHasher;
        match t {
            Ty::Const(v) => self.literals.insert(v, true),
            other => {
                let bucket = self.others.entry(self.state.hash_one(other)).or_default();
                if bucket.contains(other) {
                    false
                } else {
                    bucket.push(other.clone());
                    true
                }
            }
        }
    }
}

/// What normalizing a union found about one of its members, for its reader to word (the
/// checker warns; import, which writes the union itself, has nothing to say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnionNote {
    /// `null` written again.
    RepeatedNull,
    /// A member equal to an earlier one (as types are equal).
    RepeatedMember,
    /// A literal equal to an earlier one as JSON Schema compares (`1` and `1.0`).
    RepeatedLiteral,
    /// `any`, which makes the union `any`.
    Any,
}

/// A union normalized: its type, what was found on the way (each with the index of the member
/// it is about), and, when the members are literals, the member each kept value came from.
pub(crate) struct UnionOf {
    pub(crate) ty: Ty,
    pub(crate) notes: Vec<(usize, UnionNote)>,
    pub(crate) literals: Vec<usize>,
}

/// The language's reading of `A | B | null`, in one place: nested unions are flattened (`a | (b
/// | null)` is `a | b | null`), `null` makes the rest nullable, repeated members are kept once,
/// a union with `any` is `any`, literals make an enum (one literal, a literal), one member is
/// that member and none is `null`.
pub(crate) fn union_of(members: impl IntoIterator<Item = Ty>) -> UnionOf {
    let mut nullable = false;
    let mut out: Vec<Ty> = Vec::new();
    // The member each kept part came from.
    let mut from: Vec<usize> = Vec::new();
    let mut notes = Vec::new();
    let mut seen = MemberSet::default();
    for (i, m) in members.into_iter().enumerate() {
        let parts = match m {
            Ty::Null => {
                if nullable {
                    notes.push((i, UnionNote::RepeatedNull));
                }
                nullable = true;
                continue;
            }
            // A nested union's members are this union's members, whether or not it takes
            // `null`.
            Ty::Nullable(inner) => {
                nullable = true;
                match *inner {
                    Ty::AnyOf(inner) => inner,
                    other => vec![other],
                }
            }
            Ty::AnyOf(inner) => inner,
            other => vec![other],
        };
        for part in parts {
            if seen.insert(&part) {
                out.push(part);
                from.push(i);
            } else {
                notes.push((i, UnionNote::RepeatedMember));
            }
        }
    }
    let mut literals = Vec::new();
    let ty = if let Some(at) = out.iter().position(|t| *t == Ty::Any) {
        notes.push((from[at], UnionNote::Any));
        return UnionOf {
            ty: Ty::Any,
            notes,
            literals,
        };
    } else if !out.is_empty() && out.iter().all(|t| matches!(t, Ty::Const(_))) {
        let mut values: Vec<EnumMember> = Vec::new();
        let mut seen = ValueSet::default();
        for (t, i) in out.into_iter().zip(from) {
            if let Ty::Const(value) = t {
                if seen.insert(&value, false) {
                    values.push(EnumMember {
                        value,
                        description: None,
                    });
                    literals.push(i);
                } else {
                    notes.push((i, UnionNote::RepeatedLiteral));
                }
            }
        }
        // Literals that repeat one value are that literal (`[] | []` is `[]`, which is how the
        // model prints and reads back).
        match <[EnumMember; 1]>::try_from(values) {
            Ok([one]) => Ty::Const(one.value),
            Err(values) => Ty::Enum(values),
        }
    } else if out.len() == 1 {
        out.pop().unwrap_or(Ty::Any)
    } else if out.is_empty() {
        Ty::Null
    } else {
        Ty::AnyOf(out)
    };
    let ty = if nullable && ty != Ty::Null {
        Ty::Nullable(Box::new(ty))
    } else {
        ty
    };
    UnionOf {
        ty,
        notes,
        literals,
    }
}

// Spans say where, not what: two trees compare by what they say.
eq_ignoring_spans!(NamedType { name, kind, description, ty, recursive, deprecated } ignoring { span });
eq_ignoring_spans!(hash Field { name, description, required, ty, default, examples, deprecated } ignoring { span });
eq_ignoring_spans!(Tool { name, description, title, params, output, hints, requires_approval, scope, mode, on_error, retry, on_invalid, cache, deprecated, formats, meta, provider } ignoring { span });

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// One union written every way the rule folds: a nested nullable union, `null` twice, a
    /// repeated member, literals equal as JSON Schema compares them.
    #[test]
    fn a_union_is_normalized_and_says_what_it_found() {
        let string = || Ty::String(StringRules::default());
        let u = union_of([
            string(),
            Ty::Null,
            Ty::Nullable(Box::new(Ty::AnyOf(vec![string(), Ty::Boolean]))),
            Ty::Null,
        ]);
        assert_eq!(
            u.ty,
            Ty::Nullable(Box::new(Ty::AnyOf(vec![string(), Ty::Boolean])))
        );
        assert_eq!(
            u.notes,
            [(2, UnionNote::RepeatedMember), (3, UnionNote::RepeatedNull)]
        );
        assert!(u.literals.is_empty());

        let u = union_of([
            Ty::Const(json!(1)),
            Ty::Const(json!("a")),
            Ty::Const(json!(1.0)),
        ]);
        let values: Vec<&Value> = match &u.ty {
            Ty::Enum(members) => members.iter().map(|m| &m.value).collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(values, [&json!(1), &json!("a")]);
        assert_eq!(u.notes, [(2, UnionNote::RepeatedLiteral)]);
        assert_eq!(u.literals, [0, 1]);

        let u = union_of([Ty::Const(json!("a")), Ty::Null]);
        assert_eq!(u.ty, Ty::Nullable(Box::new(Ty::Const(json!("a")))));
        assert_eq!(u.literals, [0]);

        let u = union_of([Ty::Boolean, Ty::Any, Ty::Null]);
        assert_eq!(u.ty, Ty::Any);
        assert_eq!(u.notes, [(1, UnionNote::Any)]);

        assert_eq!(union_of([Ty::Null]).ty, Ty::Null);
        assert_eq!(union_of([Ty::Boolean]).ty, Ty::Boolean);
    }
}
