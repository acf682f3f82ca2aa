//! Words for people and models: each problem worded for its reader (the model that sent a value,
//! or the author of a definition whose default or example breaks its type), compact type texts,
//! the tool's signature, shortened values, and the one message that lists every problem of a
//! call.

use indexmap::IndexSet;
use serde_json::Value;

use crate::model::*;
use crate::suggest::Budget;
use crate::syntax::{is_identifier, quote};

use super::compile::{FieldCheck, KeyGroupCheck, Node, ObjectCheck};
use super::error::{
    last_key, segments, unescape_pointer, ErrorCode, NodeDetail, NumberRule, Problem, Shown,
    ValidationError,
};
use super::format;
use super::kind::object::KeyBreak;

/// How many characters of a value an error shows.
pub(crate) const SHOWN_CHARS: usize = 60;
/// How many enum values a type text lists before `…`.
const SHOWN_VALUES: usize = 12;
/// How many problems the message for a call lists (all of them are in the error list).
const MAX_LISTED: usize = 100;
/// How deep a type text expands nested types.
const MAX_TYPE_DEPTH: usize = 12;

/// A value as compact JSON, shortened to about 60 characters.
pub(super) fn shorten(value: &Value) -> String {
    match value {
        Value::String(s) if s.chars().count() > SHOWN_CHARS => {
            let mut out = String::new();
            write_long_str(&mut out, s);
            out
        }
        Value::Array(items) if items.len() > 8 => match json_clipped(value) {
            Ok(text) => text,
            Err(head) => format!("{head}… ({} items)", items.len()),
        },
        _ => match json_clipped(value) {
            Ok(text) => text,
            Err(head) => format!("{head}…"),
        },
    }
}

/// The compact JSON text of a value when it has at most [`SHOWN_CHARS`] characters, else
/// (`Err`) its first [`SHOWN_CHARS`] characters. Only that much of a large value is written.
fn json_clipped(value: &Value) -> Result<String, String> {
    let large = match value {
        Value::Array(items) => items.len() > 8,
        Value::Object(map) => map.len() > 8,
        _ => false,
    };
    if !large {
        // Written whole: cheaper than stopping early for small values.
        let text = json_text(value);
        if text.chars().count() <= SHOWN_CHARS {
            return Ok(text);
        }
        return Err(text.chars().take(SHOWN_CHARS).collect());
    }
    /// Keeps the first `cap` bytes written, then refuses more.
    struct Capped {
        buf: Vec<u8>,
        cap: usize,
    }
    impl std::io::Write for Capped {
        #[inline]
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let room = self.cap - self.buf.len();
            if b.len() > room {
                self.buf.extend_from_slice(&b[..room]);
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            self.buf.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Enough bytes for one character more than is shown, however long the characters are.
    let cap = 4 * (SHOWN_CHARS + 1);
    let mut w = Capped {
        buf: Vec::with_capacity(cap),
        cap,
    };
    let whole = serde_json::to_writer(&mut w, value).is_ok();
    let text = match std::str::from_utf8(&w.buf) {
        Ok(t) => t,
        // Cut inside a character: the complete ones.
        Err(e) => std::str::from_utf8(&w.buf[..e.valid_up_to()]).unwrap_or_default(),
    };
    if whole && text.chars().count() <= SHOWN_CHARS {
        return Ok(text.to_string());
    }
    Err(text.chars().take(SHOWN_CHARS).collect())
}

/// A string of more than [`SHOWN_CHARS`] characters, as [`shorten`] shows it, written at the
/// end of `out`.
fn write_long_str(out: &mut String, s: &str) {
    let head: String = s.chars().take(SHOWN_CHARS).collect();
    write_clipped(out, &head, s.chars().count());
}

/// A string of `chars` characters whose first (up to) [`SHOWN_CHARS`] characters are `head`,
/// as [`shorten`] shows it, written at the end of `out`.
pub(crate) fn write_clipped(out: &mut String, head: &str, chars: usize) {
    let start = out.len();
    write_json_str(out, head);
    if chars > SHOWN_CHARS {
        while out.len() > start && out.ends_with('"') {
            out.pop();
        }
        out.push_str("…\" (");
        push_count(out, chars);
        out.push_str(" characters)");
    }
}

/// `an integer`, `a string`: the article and the kind, for a model's messages.
pub(crate) fn an(kind: &str) -> &'static str {
    match kind {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "a boolean (true or false)",
        "array" => "an array",
        "object" => "an object",
        "map" => "an object",
        "null" => "null",
        _ => "a value of the right type",
    }
}

/// Compact JSON text of a value.
pub(super) fn json_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The JSON text of a string, written at the end of `out`.
pub(crate) fn write_json_str(out: &mut String, s: &str) {
    if needs_escape(s) {
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
    } else {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
}

/// Whether the JSON text of `s` escapes a character: serde_json escapes the control characters,
/// `"` and `\\`; without them the text is the string in quotes.
fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

/// [`shorten`] of a value, written at the end of `out`.
pub(crate) fn write_short(out: &mut String, value: &Value) {
    match value {
        // Short enough that its text is whole: the usual enum member.
        Value::String(s) if s.len() + 2 <= SHOWN_CHARS && !needs_escape(s) => {
            write_json_str(out, s)
        }
        _ => out.push_str(&shorten(value)),
    }
}

/// A count in decimal, written at the end of `out`.
pub(crate) fn push_count(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// A number as serde_json writes it, at the end of `out`.
pub(crate) fn push_number(out: &mut String, n: &serde_json::Number) {
    if let Some(u) = n.as_u64() {
        push_count(out, u);
    } else if let Some(i) = n.as_i64() {
        push_count(out, i);
    } else {
        use std::fmt::Write as _;
        let _ = write!(out, "{n}");
    }
}

/// The JSON type of a value, in words.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if super::number::is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What was got, for an error: the kind and the shortened value (`string "abc"`, `null`).
pub(super) fn got(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Object(m) if m.is_empty() => "an empty object".into(),
        Value::Array(a) if a.is_empty() => "an empty array".into(),
        _ => format!("{} {}", kind(value), shorten(value)),
    }
}

/// A number bound as text.
fn num(n: &Spanned<serde_json::Number>) -> String {
    n.value.to_string()
}

/// The constraints of a number type, e.g. `1..14`, `>= 0`, `multiple of 5`.
fn number_rules(r: &NumberRules) -> Vec<String> {
    let mut parts = Vec::new();
    match (&r.minimum, &r.maximum) {
        (Some(lo), Some(hi)) => parts.push(format!("{}..{}", num(lo), num(hi))),
        (Some(lo), None) => parts.push(format!(">= {}", num(lo))),
        (None, Some(hi)) => parts.push(format!("<= {}", num(hi))),
        (None, None) => {}
    }
    if let Some(x) = &r.exclusive_minimum {
        parts.push(format!("> {}", num(x)));
    }
    if let Some(x) = &r.exclusive_maximum {
        parts.push(format!("< {}", num(x)));
    }
    if let Some(m) = &r.multiple_of {
        parts.push(format!("multiple of {}", num(m)));
    }
    parts
}

/// `1..10 items`, `at least 1 character`: `unit` is singular and gets an `s` unless the count
/// is one.
fn range(min: Option<u64>, max: Option<u64>, unit: &str) -> Option<String> {
    let units = |n: u64| {
        if n == 1 {
            unit.to_string()
        } else {
            format!("{unit}s")
        }
    };
    match (min, max) {
        (Some(lo), Some(hi)) if lo == hi => Some(format!("exactly {lo} {}", units(lo))),
        (Some(lo), Some(hi)) => Some(format!("{lo}..{hi} {}", units(hi))),
        (Some(lo), None) => Some(format!("at least {lo} {}", units(lo))),
        (None, Some(hi)) => Some(format!("at most {hi} {}", units(hi))),
        (None, None) => None,
    }
}

/// The compact text of a type, e.g. `integer 1..14`, `"celsius" | "fahrenheit"`, `Location`.
pub(crate) fn type_text(module: &Module, ty: &Ty) -> String {
    text(module, ty, 0)
}

fn text(module: &Module, ty: &Ty, depth: usize) -> String {
    if depth > MAX_TYPE_DEPTH {
        return "…".into();
    }
    match ty {
        Ty::Any => "any".into(),
        Ty::Never => "never".into(),
        Ty::Null => "null".into(),
        Ty::Boolean => "boolean".into(),
        Ty::Integer(r) | Ty::Number(r) => {
            let mut parts = vec![if matches!(ty, Ty::Integer(_)) {
                "integer"
            } else {
                "number"
            }
            .to_string()];
            parts.extend(number_rules(r));
            parts.join(" ")
        }
        Ty::String(r) => {
            let mut parts = vec!["string".to_string()];
            if let Some(len) = range(
                r.min_length.as_ref().map(|s| s.value),
                r.max_length.as_ref().map(|s| s.value),
                "character",
            ) {
                parts.push(format!("({len})"));
            }
            if let Some(p) = &r.pattern {
                parts.push(format!("matching /{}/", p.value));
            }
            if let Some(f) = &r.format {
                parts.push(format!("({})", f.value.as_str()));
            }
            parts.join(" ")
        }
        Ty::Const(v) => shorten(v),
        Ty::Enum(members) => {
            let mut values: Vec<String> = members
                .iter()
                .take(SHOWN_VALUES)
                .map(|m| shorten(&m.value))
                .collect();
            if members.len() > SHOWN_VALUES {
                values.push("…".into());
            }
            values.join(" | ")
        }
        Ty::Array(a) => {
            let inner = text(module, &a.items, depth + 1);
            let inner = if inner.contains(' ') && !inner.starts_with('{') {
                format!("({inner})")
            } else {
                inner
            };
            let notes = item_notes(&a.min_items, &a.max_items, &a.unique);
            if notes.is_empty() {
                format!("{inner}[]")
            } else {
                format!("{inner}[] ({})", notes.join(", "))
            }
        }
        Ty::Tuple(t) => {
            let mut parts: Vec<String> = t
                .items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let optional = if i >= t.required { "?" } else { "" };
                    format!("{}{optional}", text(module, item, depth + 1))
                })
                .collect();
            match &t.rest {
                Additional::Closed => {}
                Additional::Open => parts.push("...".into()),
                Additional::Schema(r) => parts.push(format!("...: {}", text(module, r, depth + 1))),
            }
            let mut out = format!("[{}]", parts.join(", "));
            let notes = item_notes(&t.min_items, &t.max_items, &t.unique);
            if !notes.is_empty() {
                out = format!("{out} ({})", notes.join(", "));
            }
            out
        }
        Ty::Object(o) => object_text(module, o, depth),
        Ty::Ref(id) => match module.types.get(id.0) {
            None => "any".into(),
            Some(named) => match named.kind {
                NamedKind::Object => named.name.clone(),
                _ if named.recursive => named.name.clone(),
                _ => text(module, &named.ty, depth + 1),
            },
        },
        Ty::Nullable(inner) => format!("{} | null", text(module, inner, depth + 1)),
        Ty::AnyOf(members) => members
            .iter()
            .map(|m| text(module, m, depth + 1))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// `at most 10 items`, `unique`: the notes on an array's or tuple's constraints.
fn item_notes(
    min: &Option<Spanned<u64>>,
    max: &Option<Spanned<u64>>,
    unique: &Option<Spanned<bool>>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(r) = range(
        min.as_ref().map(|s| s.value),
        max.as_ref().map(|s| s.value),
        "item",
    ) {
        notes.push(r);
    }
    if unique.as_ref().is_some_and(|u| u.value) {
        notes.push("unique".into());
    }
    notes
}

fn object_text(module: &Module, o: &ObjectTy, depth: usize) -> String {
    if o.is_map() {
        if let Additional::Schema(t) = &o.additional {
            return format!("map<{}>", text(module, t, depth + 1));
        }
    }
    let mut parts: Vec<String> = o
        .fields
        .iter()
        .map(|f| field_text(module, f, depth + 1))
        .collect();
    if matches!(o.additional, Additional::Open) {
        parts.push("...".into());
    }
    format!("{{{}}}", parts.join(", "))
}

/// `name?: type = default`
fn field_text(module: &Module, f: &Field, depth: usize) -> String {
    let mut s = format!(
        "{}{}: {}",
        display_key(&f.name),
        if f.required { "" } else { "?" },
        text(module, &f.ty, depth)
    );
    if let Some(d) = &f.default {
        s.push_str(" = ");
        s.push_str(&shorten(d));
    }
    s
}

/// A key as written in a signature: bare when it is an identifier, quoted otherwise.
fn display_key(key: &str) -> String {
    if is_identifier(key) {
        key.to_string()
    } else {
        quote(key)
    }
}

/// The compact signature of a tool, e.g.
/// `get_weather(city: string, days?: integer 1..14 = 1, unit?: "celsius" | "fahrenheit")`,
/// followed by one `where Name = {...}` line per named object type it uses.
pub(super) fn signature(module: &Module, tool: &Tool) -> String {
    let params: Vec<String> = tool
        .params
        .fields
        .iter()
        .map(|f| field_text(module, f, 0))
        .collect();
    let mut params = params.join(", ");
    if let Additional::Open = tool.params.additional {
        params.push_str(if params.is_empty() { "..." } else { ", ..." });
    }
    let mut out = format!("{}({params})", tool.name);
    push_rules(&tool.params.rules, &mut out);
    let mut named = IndexSet::new();
    for f in &tool.params.fields {
        collect_objects(module, &f.ty, &mut named, 0);
    }
    if let Additional::Schema(t) = &tool.params.additional {
        collect_objects(module, t, &mut named, 0);
    }
    push_where(module, named, &mut out);
    out
}

/// A type as a value's messages print it: its compact text, then one `where Name = {...}` line
/// per named object type it uses (`Place` then reads `Place` / `where Place = {name: string}`).
pub(super) fn value_signature(module: &Module, ty: &Ty) -> String {
    let mut out = type_text(module, ty);
    let mut named = IndexSet::new();
    collect_objects(module, ty, &mut named, 0);
    push_where(module, named, &mut out);
    out
}

/// The `where Name = {...}` lines of the named types in `named`.
fn push_where(module: &Module, named: IndexSet<TypeId>, out: &mut String) {
    for id in named {
        if let Some(n) = module.types.get(id.0) {
            let body = match &n.ty {
                Ty::Object(o) => object_text(module, o, 0),
                other => text(module, other, 0),
            };
            out.push_str(&format!("\nwhere {} = {body}", n.name));
            if let Ty::Object(o) = &n.ty {
                push_rules(&o.rules, out);
            }
        }
    }
}

/// The rules across an object's keys after its signature, in the sentences the targets fold
/// into descriptions: ` (Exactly one of "a" and "b" must be given.)`.
fn push_rules(rules: &KeyRules, out: &mut String) {
    let count = |n: &Option<Spanned<u64>>| n.as_ref().map(|n| n.value);
    let sentences: Vec<String> =
        crate::emit::fold::key_count(count(&rules.min_properties), count(&rules.max_properties))
            .into_iter()
            .chain(
                rules
                    .groups
                    .iter()
                    .map(|g| crate::emit::fold::key_group(&g.value)),
            )
            .collect();
    if !sentences.is_empty() {
        out.push_str(" (");
        out.push_str(&sentences.join(" "));
        out.push(')');
    }
}

/// Named object types (and recursive named types) reachable from `ty`, in order of first use.
fn collect_objects(module: &Module, ty: &Ty, out: &mut IndexSet<TypeId>, depth: usize) {
    if depth > 64 {
        return;
    }
    match ty {
        Ty::Array(a) => collect_objects(module, &a.items, out, depth + 1),
        Ty::Object(o) => {
            for f in &o.fields {
                collect_objects(module, &f.ty, out, depth + 1);
            }
            if let Additional::Schema(t) = &o.additional {
                collect_objects(module, t, out, depth + 1);
            }
        }
        Ty::Ref(id) => {
            let Some(named) = module.types.get(id.0) else {
                return;
            };
            let shown_by_name = named.kind == NamedKind::Object || named.recursive;
            if shown_by_name && !out.insert(*id) {
                return;
            }
            collect_objects(module, &named.ty, out, depth + 1);
        }
        Ty::Nullable(inner) => collect_objects(module, inner, out, depth + 1),
        Ty::AnyOf(members) => members
            .iter()
            .for_each(|m| collect_objects(module, m, out, depth + 1)),
        _ => {}
    }
}

/// A JSON pointer as people read it, written at the end of `out`: `days`, `at.lat`, `tags[2]`,
/// `labels["a b"]`; the arguments themselves are `(arguments)`.
fn write_readable_path(out: &mut String, pointer: &str) {
    if pointer.is_empty() {
        out.push_str("(arguments)");
        return;
    }
    let start = out.len();
    // The segments after the first `/`.
    let Some(at) = pointer.bytes().position(|b| b == b'/') else {
        return;
    };
    for raw in segments(&pointer[at + 1..]) {
        let seg = unescape_pointer(raw);
        let first = out.len() == start;
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) && !first {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
        } else if is_identifier(&seg) {
            if !first {
                out.push('.');
            }
            out.push_str(&seg);
        } else {
            out.push('[');
            write_json_str(out, &seg);
            out.push(']');
        }
    }
}

/// The message for a whole rejected call: every problem, numbered, then the signature.
pub(super) fn call_message(
    subject: Subject,
    tool: &str,
    signature: &str,
    errors: &[ValidationError],
) -> String {
    let n = errors.len();
    // Room for the usual message: a line a problem, then the signature.
    let mut out = String::with_capacity(160 + 120 * n.min(MAX_LISTED) + signature.len());
    out.push_str(match subject {
        Subject::Arguments => "The arguments for `",
        Subject::Value => "The value for `",
    });
    out.push_str(tool);
    out.push_str(match subject {
        Subject::Arguments => "` are invalid (",
        Subject::Value => "` is invalid (",
    });
    push_count(&mut out, n);
    out.push_str(if n == 1 {
        " problem). Fix it"
    } else {
        " problems). Fix all of them"
    });
    match subject {
        Subject::Arguments => {
            out.push_str(" and call `");
            out.push_str(tool);
            out.push_str("` again:\n");
        }
        Subject::Value => out.push_str(" and send the whole value again:\n"),
    }
    let mut suggestions = Budget::default();
    for (i, e) in errors.iter().enumerate().take(MAX_LISTED) {
        let place = e.place();
        push_count(&mut out, i + 1);
        out.push_str(". ");
        if !(place.is_empty() || matches!(e.code, ErrorCode::InvalidJson | ErrorCode::TooLarge)) {
            out.push('`');
            write_readable_path(&mut out, place);
            out.push_str("`: ");
        }
        e.write_message(&mut out, &mut suggestions);
        out.push('\n');
    }
    if n > MAX_LISTED {
        out.push_str("… and ");
        push_count(&mut out, n - MAX_LISTED);
        out.push_str(" more problems of the same kinds.\n");
    }
    out.push_str(match subject {
        Subject::Arguments => "Signature: ",
        Subject::Value => "Expected: ",
    });
    out.push_str(signature);
    out
}

/// What a message is about: a tool's arguments, or a value on its own (a model's structured
/// answer, a tool's result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Subject {
    Arguments,
    Value,
}

/// A broken rule across the keys of object `o`, for the model and for the author alike:
/// `` `card` and `invoice` were both given; give exactly one of `card`, `invoice` ``.
pub(crate) fn write_key_break(out: &mut String, o: &ObjectCheck, b: &KeyBreak) {
    let Some(rules) = o.rules() else { return };
    let name = |i: usize| o.fields.get(i).map_or("", |f| &*f.name);
    let names = |out: &mut String, fields: &[usize], last: &str| {
        for (n, &i) in fields.iter().enumerate() {
            if n > 0 {
                out.push_str(if n + 1 == fields.len() { last } else { ", " });
            }
            out.push('`');
            out.push_str(name(i));
            out.push('`');
        }
    };
    let group = |g: &usize| rules.groups.get(*g);
    match b {
        KeyBreak::TooFewKeys { count } | KeyBreak::TooManyKeys { count } => {
            let few = matches!(b, KeyBreak::TooFewKeys { .. });
            let bound = if few {
                rules.min_keys
            } else {
                rules.max_keys.unwrap_or_default()
            };
            out.push_str(if few {
                "must have at least "
            } else {
                "must have at most "
            });
            push_count(out, bound);
            out.push_str(if bound == 1 {
                " key, got "
            } else {
                " keys, got "
            });
            push_count(out, *count);
        }
        KeyBreak::NoneOf { group: g } => {
            if let Some(KeyGroupCheck::ExactlyOneOf(fields)) = group(g) {
                out.push_str("give exactly one of ");
                names(out, fields, " or ");
                out.push_str("; none was given");
            }
        }
        KeyBreak::Several { group: g, given } => {
            let (exactly, fields) = match group(g) {
                Some(KeyGroupCheck::ExactlyOneOf(f)) => (true, f),
                Some(KeyGroupCheck::AtMostOneOf(f)) => (false, f),
                _ => return,
            };
            names(out, given, " and ");
            out.push_str(if given.len() == 2 {
                " were both given; give "
            } else {
                " were given together; give "
            });
            out.push_str(if exactly { "exactly" } else { "at most" });
            out.push_str(" one of ");
            names(out, fields, " or ");
        }
        KeyBreak::Needs { group: g, missing } => {
            let Some(KeyGroupCheck::Requires { key, .. }) = group(g) else {
                return;
            };
            let Some(f) = o.fields.get(*missing) else {
                return;
            };
            out.push_str("missing field `");
            out.push_str(&f.name);
            out.push_str("` of type `");
            out.push_str(&f.texts.type_text);
            out.push_str("`, required when `");
            out.push_str(name(*key));
            out.push_str("` is given");
            if let Some(d) = &f.texts.description {
                out.push_str(": ");
                out.push_str(d.trim());
            }
        }
    }
}

/// A problem a compiled node found, worded for the model that sent the value: what it must be,
/// what was got, and what to send instead.
impl NodeDetail {
    /// The room [`NodeDetail::write_for_model`] needs for the error at `path`, so that the
    /// message is written without growing its string: most fit the usual room; a missing
    /// field's message carries the field's description, and an unknown key's may list the
    /// fields, often longer.
    pub(super) fn room(&self, path: &str) -> usize {
        const USUAL: usize = 96;
        match (&self.problem, self.nodes.get(self.node)) {
            (Problem::Missing { field, .. }, Some(Node::Object(o))) => {
                o.fields.get(*field).map_or(USUAL, |f| {
                    let description = f.texts.description.as_ref().map_or(0, |d| d.len());
                    48 + f.name.len() + f.texts.type_text.len() + description
                })
            }
            (Problem::Unknown { .. }, Some(Node::Object(o))) => {
                // A long key is shown clipped (its first characters, four bytes at most each).
                let fields: usize = o.fields.iter().take(30).map(|f| f.name.len() + 2).sum();
                48 + path.len().min(4 * SHOWN_CHARS + 32) + fields
            }
            _ => USUAL,
        }
    }

    /// `path` is the error's.
    pub(super) fn write_for_model(&self, path: &str, out: &mut String, suggestions: &mut Budget) {
        let node = self.nodes.get(self.node);
        match &self.problem {
            Problem::WrongType {
                want,
                root_object,
                hint,
            } => {
                if *root_object {
                    out.push_str("Arguments must be an object, got ");
                    out.push_str(self.got.kind());
                } else {
                    self.must_be_got(out, an(want));
                }
                if let Some(hint) = hint {
                    out.push_str("; ");
                    out.push_str(hint);
                }
                // The arguments' own problem is a sentence (it has no path before it).
                if *root_object {
                    out.push('.');
                }
            }
            Problem::NotCoercible { want, why } => {
                self.must_be_got(out, an(want));
                out.push_str(": ");
                out.push_str(why);
            }
            Problem::Number { rule, n } => {
                let check = match node {
                    Some(Node::Integer(c) | Node::Number(c)) => Some(c),
                    _ => None,
                };
                out.push_str(match rule {
                    NumberRule::Minimum => "must be at least ",
                    NumberRule::ExclusiveMinimum => "must be greater than ",
                    NumberRule::Maximum => "must be at most ",
                    NumberRule::ExclusiveMaximum => "must be less than ",
                    NumberRule::MultipleOf => "must be a multiple of ",
                });
                if let Some(b) = check.and_then(|c| c.bound(*rule)) {
                    push_number(out, b);
                }
                out.push_str(", got ");
                push_number(out, n);
            }
            Problem::TooShort { len } | Problem::TooLong { len } => {
                let short = matches!(self.problem, Problem::TooShort { .. });
                let bound = match node {
                    Some(Node::String(c)) if short => c.min_length,
                    Some(Node::String(c)) => c.max_length,
                    _ => None,
                }
                .unwrap_or(0);
                out.push_str(if short {
                    "must be at least "
                } else {
                    "must be at most "
                });
                push_count(out, bound);
                out.push_str(if bound == 1 {
                    " character"
                } else {
                    " characters"
                });
                out.push_str(" long, got ");
                push_count(out, *len);
            }
            Problem::Pattern { s } => {
                let pattern = match node {
                    Some(Node::String(c)) => c.pattern.as_ref().map_or("", |p| p.as_str()),
                    _ => "",
                };
                out.push_str("must match the pattern /");
                out.push_str(pattern);
                out.push_str("/, got ");
                s.write_short(out);
            }
            Problem::Format { s } => {
                let format = match node {
                    Some(Node::String(c)) => c.format,
                    _ => None,
                };
                match format {
                    Some(f) => {
                        out.push_str("must be ");
                        out.push_str(super::format::described(f));
                        out.push_str(", e.g. \"");
                        out.push_str(super::format::example(f));
                        out.push_str("\", got ");
                    }
                    None => out.push_str("must be a valid value of its format, got "),
                }
                s.write_short(out);
            }
            Problem::TooFewItems { len } | Problem::TooManyItems { len } => {
                let few = matches!(self.problem, Problem::TooFewItems { .. });
                let bound = match node {
                    Some(Node::Array(c)) if few => Some(c.min_items),
                    Some(Node::Array(c)) => c.max_items,
                    _ => None,
                }
                .unwrap_or(0);
                out.push_str(if few {
                    "must have at least "
                } else {
                    "must have at most "
                });
                push_count(out, bound);
                out.push_str(if bound == 1 { " item" } else { " items" });
                out.push_str(", got ");
                push_count(out, *len);
            }
            Problem::Duplicate { a, b, shown } => {
                out.push_str("items must be unique, but items ");
                push_count(out, *a);
                out.push_str(" and ");
                push_count(out, *b);
                out.push_str(" are equal (");
                out.push_str(shown);
                out.push_str("); remove the repeats");
            }
            Problem::NotAllowed { long } => {
                let allowed: &[Value] = match node {
                    Some(Node::Const(c)) => std::slice::from_ref(c),
                    Some(Node::Enum(e)) => &e.values,
                    _ => &[],
                };
                out.push_str(if allowed.len() == 1 {
                    "must be "
                } else {
                    "must be one of "
                });
                for (i, v) in allowed.iter().take(20).enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_short(out, v);
                }
                if allowed.len() > 20 {
                    out.push_str(", …");
                }
                out.push_str(", got ");
                self.got.write_got(out);
                let sent = match (&self.got, long) {
                    (_, Some(long)) => Some(long.as_str()),
                    (Shown::Str(c), None) => Some(c.head.as_str()),
                    _ => None,
                };
                if let Some(s) = sent {
                    let names = allowed.iter().filter_map(Value::as_str);
                    if let Some(close) = suggestions.did_you_mean(s, names) {
                        out.push_str("; did you mean ");
                        write_json_str(out, close);
                        out.push('?');
                    }
                }
            }
            Problem::Never => out.push_str("no value is allowed here; leave it out"),
            Problem::NoMatch => {
                let expected = self.expected.get(self.node).map_or("", String::as_str);
                self.must_be_got(out, expected);
            }
            Problem::Missing { field, root } => {
                out.push_str("missing required ");
                out.push_str(if *root { "parameter" } else { "field" });
                let Some(Node::Object(o)) = node else {
                    return;
                };
                let Some(f) = o.fields.get(*field) else {
                    return;
                };
                out.push_str(" `");
                out.push_str(&f.name);
                out.push_str("` of type `");
                out.push_str(&f.texts.type_text);
                out.push('`');
                if let Some(d) = &f.texts.description {
                    out.push_str(": ");
                    out.push_str(d.trim());
                }
            }
            Problem::Keys(b) => {
                if let Some(Node::Object(o)) = node {
                    write_key_break(out, o, b);
                }
            }
            Problem::Unknown { root, present } => {
                let key = &*last_key(path);
                let noun = if *root { "parameter" } else { "field" };
                out.push_str("unknown ");
                out.push_str(noun);
                out.push(' ');
                if key.len() > 62 && key.chars().nth(62).is_some() {
                    // Its text is longer than any shown whole: clipped before it is written.
                    write_long_str(out, key);
                } else {
                    let start = out.len();
                    write_json_str(out, key);
                    if out.len() - start > 62 && out[start..].chars().count() > 62 {
                        out.truncate(start);
                        out.push_str(&shorten(&Value::String(key.to_owned())));
                    }
                }
                let fields: &[FieldCheck] = match node {
                    Some(Node::Object(o)) => &o.fields,
                    _ => &[],
                };
                // Likeliest first: required fields that are missing, then absent fields, then
                // any.
                let tiers = fields.iter().enumerate().map(|(i, f)| {
                    let tier = match (present.has(i), f.required) {
                        (false, true) => 0,
                        (false, false) => 1,
                        (true, _) => 2,
                    };
                    (&*f.name, tier)
                });
                match suggestions.did_you_mean_tiered::<3>(key, tiers) {
                    Some(c) => {
                        out.push_str("; did you mean `");
                        out.push_str(c);
                        out.push_str("`?");
                    }
                    None if fields.is_empty() => out.push_str("; this object takes no keys"),
                    None => {
                        out.push_str("; the ");
                        out.push_str(noun);
                        out.push_str("s are: ");
                        for (i, f) in fields.iter().take(30).enumerate() {
                            if i > 0 {
                                out.push_str(", ");
                            }
                            out.push_str(&f.name);
                        }
                    }
                }
            }
        }
    }

    /// `must be {expected}, got {what was got}`.
    fn must_be_got(&self, out: &mut String, expected: &str) {
        out.push_str("must be ");
        out.push_str(expected);
        out.push_str(", got ");
        self.got.write_got(out);
    }
}

/// A problem found by `node` in `value`, worded for the author of a definition:
/// `expected an integer, got string "1"`.
/// `path` is the error's. `reason` is, for a union no member of which accepts the value, why its
/// first member does not.
pub(super) fn for_author(
    node: Option<&Node>,
    value: &Value,
    problem: &Problem,
    path: &str,
    reason: Option<&str>,
) -> String {
    let s = value.as_str().unwrap_or_default();
    let len = |v: &Value| match v {
        Value::String(s) => s.chars().count(),
        Value::Array(items) => items.len(),
        _ => 0,
    };
    match (problem, node) {
        (Problem::WrongType { want, .. }, _) | (Problem::NotCoercible { want, .. }, _) => {
            format!("expected {}, got {}", an_plain(want), describe(value))
        }
        (Problem::Number { rule, n }, Some(Node::Integer(c) | Node::Number(c))) => {
            let words = match rule {
                NumberRule::Minimum => "at least",
                NumberRule::ExclusiveMinimum => "more than",
                NumberRule::Maximum => "at most",
                NumberRule::ExclusiveMaximum => "less than",
                NumberRule::MultipleOf => "a multiple of",
            };
            let bound = c.bound(*rule).map(plain).unwrap_or_default();
            format!("expected {words} {bound}, got {n}")
        }
        (Problem::TooShort { len }, Some(Node::String(c))) => format!(
            "expected at least {} characters, got {len}",
            c.min_length.unwrap_or_default()
        ),
        (Problem::TooLong { len }, Some(Node::String(c))) => format!(
            "expected at most {} characters, got {len}",
            c.max_length.unwrap_or_default()
        ),
        (Problem::Pattern { .. }, Some(Node::String(c))) => {
            let text = c.pattern.as_ref().map(|p| p.as_str()).unwrap_or_default();
            format!("expected a string matching /{text}/, got {s:?}")
        }
        (Problem::Format { .. }, Some(Node::String(c))) => match c.format {
            Some(f) => format!(
                "expected {} (e.g. {:?}), got {s:?}",
                format::described(f),
                format::example(f)
            ),
            None => format!("expected a string of its format, got {s:?}"),
        },
        (Problem::TooFewItems { .. }, Some(Node::Array(c))) => format!(
            "expected at least {} items, got {}",
            c.min_items,
            len(value)
        ),
        (Problem::TooManyItems { .. }, Some(Node::Array(c))) => format!(
            "expected at most {} items, got {}",
            c.max_items.unwrap_or_default(),
            len(value)
        ),
        (Problem::Duplicate { b, .. }, _) => {
            let repeated = value.get(*b).map(json_text).unwrap_or_default();
            format!("items must be unique, but {repeated} repeats")
        }
        (Problem::NotAllowed { .. }, node) => {
            let allowed: &[Value] = match node {
                Some(Node::Const(c)) => std::slice::from_ref(&**c),
                Some(Node::Enum(e)) => &e.values,
                _ => &[],
            };
            match allowed {
                [one] => format!("expected {one}, got {}", describe(value)),
                _ => {
                    let values: Vec<String> = allowed.iter().map(Value::to_string).collect();
                    format!(
                        "expected one of {}, got {}",
                        values.join(", "),
                        describe(value)
                    )
                }
            }
        }
        (Problem::NoMatch, _) => format!(
            "matches no member of the union ({})",
            reason.unwrap_or_default()
        ),
        (Problem::Never, _) => "expected no value (`never`)".to_string(),
        (Problem::Missing { field, .. }, Some(Node::Object(o))) => format!(
            "missing required field `{}`",
            o.fields.get(*field).map_or("", |f| &*f.name)
        ),
        (Problem::Unknown { .. }, _) => format!("unknown field `{}`", last_key(path)),
        (Problem::Keys(b), Some(Node::Object(o))) => {
            let mut out = String::new();
            write_key_break(&mut out, o, b);
            out
        }
        // Each problem comes from a node of its kind.
        (_, _) => format!("does not fit its type, got {}", describe(value)),
    }
}

/// `an integer`, `a string`: the article and the kind, for an author's messages.
fn an_plain(kind: &str) -> &'static str {
    match kind {
        "integer" => "an integer",
        "number" => "a number",
        "string" => "a string",
        "boolean" => "a boolean",
        "array" => "an array",
        "object" | "map" => "an object",
        "null" => "null",
        _ => "a value of the right type",
    }
}

/// A value for an author's messages: its kind (`number` for all numbers) and its JSON,
/// shortened to 40 characters.
fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let text = value.to_string();
    let short: String = text.chars().take(40).collect();
    if short.len() < text.len() {
        format!("{kind} {short}…")
    } else {
        format!("{kind} {short}")
    }
}

/// A bound as an author's messages print it (as a double: `10`, `0.5`).
fn plain(n: &serde_json::Number) -> String {
    n.as_f64().map_or_else(|| n.to_string(), |f| f.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// [`shorten`] as it was written before it stopped writing large values whole.
    fn shorten_whole(value: &Value) -> String {
        let text = json_text(value);
        if text.chars().count() <= SHOWN_CHARS {
            return text;
        }
        let head: String = text.chars().take(SHOWN_CHARS).collect();
        match value {
            Value::Array(items) if items.len() > 8 => format!("{head}… ({} items)", items.len()),
            _ => format!("{head}…"),
        }
    }

    #[test]
    fn pointers_read_as_paths() {
        let cases = [
            ("", "(arguments)"),
            ("/a", "a"),
            ("/a/0/b", "a[0].b"),
            ("/0", "[\"0\"]"),
            ("/a~1b/c~0d", "[\"a/b\"][\"c~d\"]"),
            ("/labels/a b", "labels[\"a b\"]"),
            ("/", "[\"\"]"),
            ("/a//b", "a[\"\"].b"),
            ("/x/\"q\"/é", "x[\"\\\"q\\\"\"][\"é\"]"),
            ("/_id/12/k9", "_id[12].k9"),
        ];
        for (pointer, want) in cases {
            let mut out = String::from("at ");
            write_readable_path(&mut out, pointer);
            assert_eq!(out, format!("at {want}"), "{pointer:?}");
        }
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let chars = (0u32..0x800)
            .chain([0x2028, 0x2029, 0xFEFF, 0xFFFF, 0x1F600, 0x10FFFF])
            .filter_map(char::from_u32);
        for c in chars {
            for s in [c.to_string(), format!("ab{c}"), format!("{c}{c}x")] {
                let mut out = String::from("got ");
                write_json_str(&mut out, &s);
                let want = serde_json::to_string(&s).expect("a string serializes");
                assert_eq!(out, format!("got {want}"), "{s:?}");
            }
        }
    }

    #[test]
    fn short_values_are_written_as_shorten_writes_them() {
        let mut values = vec![
            json!(null),
            json!(1.5),
            json!(-7),
            json!([1, "a"]),
            json!({"k": 1}),
        ];
        for n in [0, 1, 56, 57, 58, 59, 60, 61, 62, 100] {
            for c in ["a", "é", "\"", "\\", "\n", "𝄞"] {
                values.push(Value::String(c.repeat(n)));
                values.push(Value::String(format!("{}{c}", "x".repeat(n))));
            }
        }
        for v in values {
            let mut out = String::from("one of ");
            write_short(&mut out, &v);
            assert_eq!(out, format!("one of {}", shorten(&v)), "{v}");
        }
    }

    #[test]
    fn shorten_writes_only_the_head_of_large_values() {
        let long: Vec<Value> = (0..200).map(|i| json!({"n": i, "s": "ü€𝄞"})).collect();
        let values = [
            json!([]),
            json!([1, 2, 3]),
            json!({"a": "b"}),
            Value::Array(vec![json!("x"); 9]),
            Value::Array(long.clone()),
            json!({"k": long}),
            Value::Object((0..20).map(|i| (format!("key{i}"), json!(i))).collect()),
            Value::Object((0..9).map(|i| (format!("k{i}"), json!(i))).collect()),
            json!(["𝄞".repeat(58)]),
            json!(["𝄞".repeat(59)]),
            json!(["é".repeat(100)]),
            json!("\"".repeat(40)),
            json!(["a".repeat(56)]),
            json!(["a".repeat(57)]),
            json!(["a".repeat(58)]),
            json!(["a".repeat(300)]),
        ];
        for v in values {
            assert_eq!(shorten(&v), shorten_whole(&v), "{v}");
        }
    }
}
