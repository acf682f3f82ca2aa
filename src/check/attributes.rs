//! Attributes: which apply where, their arguments, and the tool attributes (hints, approval,
//! modes, retries, formats, metadata).

use std::collections::HashMap;

use serde_json::Value;

use crate::ast::{self, AttrValue, Attribute, ValueKind};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::model::*;
use crate::suggest::did_you_mean;

use super::key_rules::{FieldIndex, OBJECT_CONSTRAINTS, REPEATABLE_ATTRIBUTES};
use super::values::non_negative;
use super::{
    Checker, ARRAY_CONSTRAINTS, FIELD_ANNOTATIONS, NUMBER_CONSTRAINTS, STRING_CONSTRAINTS,
    TOOL_ATTRIBUTES, TYPE_ATTRIBUTES,
};

/// The attributes of one item given so far that may be given once, with where each was given.
pub(super) type Seen<'a> = HashMap<&'a str, Span>;

impl Checker {
    // -----------------------------------------------------------------------------------------
    // Attributes

    /// The attributes of a `type` (`ty`, its type) or an `enum` (`None`); returns whether it is
    /// deprecated. An object type also takes the rules across its keys.
    pub(super) fn item_attributes(&mut self, attrs: &[Attribute], mut ty: Option<&mut Ty>) -> bool {
        let mut seen = Seen::new();
        let mut fields = FieldIndex::default();
        let mut deprecated = false;
        for a in attrs {
            if !self.first_time(&mut seen, a) {
                continue;
            }
            let name = a.name.text.as_str();
            match (name, ty.as_deref_mut()) {
                ("deprecated", _) => deprecated = self.flag(a).unwrap_or(true),
                (_, Some(Ty::Object(o))) if OBJECT_CONSTRAINTS.contains(&name) => {
                    self.key_rule(o, a, &mut fields);
                }
                _ => self.unknown_attribute(a, TYPE_ATTRIBUTES, "types and enums"),
            }
        }
        if let Some(Ty::Object(o)) = ty {
            self.key_count_range(o);
        }
        deprecated
    }

    pub(super) fn tool_attributes(&mut self, tool: &mut Tool, attrs: &[Attribute]) {
        let mut seen = Seen::new();
        let mut fields = FieldIndex::default();
        // Each `@retry` read, with where it was given.
        let mut retries: Vec<(Span, Retry)> = Vec::new();
        for a in attrs {
            if !self.first_time(&mut seen, a) {
                continue;
            }
            match a.name.text.as_str() {
                "title" => {
                    if let Some(s) = self.string_arg(a) {
                        self.shown_text(&s, a.span, "title");
                        tool.title = Some(s);
                    }
                }
                "read_only" => tool.hints.read_only = self.flag(a),
                "destructive" => tool.hints.destructive = self.flag(a),
                "idempotent" => tool.hints.idempotent = self.flag(a),
                "open_world" => tool.hints.open_world = self.flag(a),
                "requires_approval" => tool.requires_approval = self.flag(a).unwrap_or(true),
                "deprecated" => tool.deprecated = self.flag(a).unwrap_or(true),
                "strict" | "lax" => {
                    self.no_args(a);
                    let mode = if a.name.text == "strict" {
                        Mode::Strict
                    } else {
                        Mode::Lax
                    };
                    let other = if mode == Mode::Strict {
                        "lax"
                    } else {
                        "strict"
                    };
                    if let Some(&first) = seen.get(other) {
                        self.error(
                            Diagnostic::error(
                                Code::ConflictingAttributes,
                                a.span,
                                "a tool cannot be both `@strict` and `@lax`",
                            )
                            .with_label("conflicts")
                            .with_related(first, "the other mode is set here")
                            .with_help("keep one of them"),
                        );
                    }
                    tool.mode = Some(mode);
                }
                "on_error" => {
                    tool.on_error = match self.word_arg(a, &["raise", "suppress"]).as_deref() {
                        Some("raise") => Some(OnError::Raise),
                        Some("suppress") => Some(OnError::Suppress),
                        _ => None,
                    }
                }
                "retry" => {
                    if let Some(retry) = self.retry(a) {
                        self.reachable_retry(&retries, a.span, &retry);
                        retries.push((a.span, retry));
                    }
                }
                "on_invalid" => {
                    tool.on_invalid = match self.word_arg(a, &["reply", "raise"]).as_deref() {
                        Some("reply") => Some(OnInvalid::Reply),
                        Some("raise") => Some(OnInvalid::Raise),
                        _ => None,
                    }
                }
                "cache" => tool.cache = self.cache(a),
                "formats" => {
                    tool.formats = match self.word_arg(a, &["assert", "annotate"]).as_deref() {
                        Some("annotate") => Formats::Annotate,
                        _ => Formats::Assert,
                    }
                }
                "scope" => {
                    tool.scope = match self.single_arg(a).map(|x| &x.value) {
                        Some(AttrValue::Word(w)) => Some(w.text.clone()),
                        Some(AttrValue::Value(ast::Value {
                            kind: ValueKind::String(s),
                            span,
                        })) => {
                            self.shown_text(s, *span, "scope");
                            Some(s.clone())
                        }
                        Some(v) => {
                            self.bad_arg(v.span(), "`@scope` takes a name, e.g. `@scope(admin)`");
                            None
                        }
                        None => None,
                    }
                }
                "allow" => {
                    // Lints a tool can turn off; `allows` in the checker reads them.
                    const LINTS: &[Code] = &[Code::UndescribedField];
                    if a.args().is_empty() {
                        self.bad_arg(a.span, "`@allow` names the lints to turn off, e.g. `@allow(undescribed-field)`");
                    }
                    for arg in a.args() {
                        let known = match (&arg.name, &arg.value) {
                            (None, AttrValue::Word(w)) => {
                                LINTS.iter().any(|c| c.as_str() == w.text)
                            }
                            _ => false,
                        };
                        if !known {
                            self.bad_arg(
                                arg.span,
                                "`@allow` takes lint names: `undescribed-field`",
                            );
                        }
                    }
                }
                "provider" => {
                    if a.args().is_empty() {
                        self.bad_arg(a.span, "`@provider` takes a target and the fields to add to its tool object, e.g. `@provider(anthropic: {\"cache_control\": {\"type\": \"ephemeral\"}})`");
                    }
                    for arg in a.args() {
                        let Some(key) = &arg.name else {
                            self.bad_arg(arg.span, "`@provider` takes named arguments: a target, then an object of fields");
                            continue;
                        };
                        if crate::emit::Target::from_name(&key.text).is_none() {
                            let names = crate::emit::Target::ALL.iter().map(|t| t.as_str());
                            let hint = crate::suggest::did_you_mean(&key.text, names)
                                .map(|s| format!("; did you mean `{s}`?"))
                                .unwrap_or_default();
                            self.bad_arg(
                                key.span,
                                &format!("`{}` is not a target{hint}", key.text),
                            );
                            continue;
                        }
                        match &arg.value {
                            AttrValue::Value(v) => match self.value(v) {
                                Some(Value::Object(fields)) => {
                                    // A repeated key is reported with the attribute's arguments.
                                    tool.provider.insert(key.text.clone(), fields);
                                }
                                Some(_) => self.bad_arg(
                                    arg.span,
                                    "`@provider` takes an object of fields for each target",
                                ),
                                None => {}
                            },
                            _ => self.bad_arg(
                                arg.span,
                                "`@provider` takes an object of fields for each target",
                            ),
                        }
                    }
                }
                "meta" => {
                    for arg in a.args() {
                        let Some(key) = &arg.name else {
                            self.bad_arg(arg.span, "`@meta` takes named arguments, e.g. `@meta(owner: \"search-team\")`");
                            continue;
                        };
                        let value = match &arg.value {
                            AttrValue::Word(w) => Some(Value::String(w.text.clone())),
                            AttrValue::Value(v) => self.value(v),
                            AttrValue::List { span, .. } => {
                                self.bad_arg(
                                    *span,
                                    "`@meta` takes JSON values; write strings in double quotes",
                                );
                                None
                            }
                        };
                        if let Some(value) = value {
                            // A repeated key is reported with the attribute's arguments.
                            tool.meta.insert(key.text.clone(), value);
                        }
                    }
                }
                name if OBJECT_CONSTRAINTS.contains(&name) => {
                    self.key_rule(&mut tool.params, a, &mut fields)
                }
                _ => self.unknown_attribute(a, TOOL_ATTRIBUTES, "tools"),
            }
        }
        self.key_count_range(&tool.params);
        tool.retry = retries.into_iter().map(|(_, r)| r).collect();
        if tool.cache.is_some() && tool.hints.read_only != Some(true) {
            self.cache_not_read_only(attrs, tool);
        }
        if tool.hints.read_only == Some(true) && tool.hints.destructive == Some(true) {
            let span = attrs
                .iter()
                .find(|a| a.name.text == "destructive")
                .map_or(tool.span, |a| a.span);
            self.error(
                Diagnostic::error(
                    Code::ConflictingAttributes,
                    span,
                    "a read-only tool cannot be destructive",
                )
                .with_label("conflicts with `@read_only`")
                .with_help(
                    "remove `@destructive`, or `@read_only` if the tool changes its environment",
                ),
            );
        }
    }

    fn retry(&mut self, a: &Attribute) -> Option<Retry> {
        let mut retry = Retry {
            times: 1,
            on: Vec::new(),
            wait: Wait::Fixed(0.0),
            base: 1.0,
        };
        let mut ok = true;
        for arg in a.args() {
            let key = arg.name.as_ref().map(|n| n.text.as_str());
            match (key, &arg.value) {
                (Some("times"), AttrValue::Value(v)) => {
                    match self.value(v).as_ref().and_then(Value::as_u64) {
                        Some(n) if n <= u64::from(u32::MAX) => retry.times = n as u32,
                        _ => {
                            self.bad_arg(
                                v.span,
                                "`times` is a whole number of retries, e.g. `times: 3`",
                            );
                            ok = false;
                        }
                    }
                }
                (Some("wait"), AttrValue::Word(w)) if w.text == "linear" => {
                    retry.wait = Wait::Linear
                }
                (Some("wait"), AttrValue::Word(w)) if w.text == "exponential" => {
                    retry.wait = Wait::Exponential
                }
                (Some("wait"), AttrValue::Value(v))
                    if non_negative(self.value(v).as_ref()).is_some() =>
                {
                    retry.wait = Wait::Fixed(non_negative(self.value(v).as_ref()).unwrap_or(0.0));
                }
                (Some("wait"), v) => {
                    self.bad_arg(
                        v.span(),
                        "`wait` is `linear`, `exponential` or a number of seconds",
                    );
                    ok = false;
                }
                (Some("base"), AttrValue::Value(v))
                    if non_negative(self.value(v).as_ref()).is_some() =>
                {
                    retry.base = non_negative(self.value(v).as_ref()).unwrap_or(1.0);
                }
                (Some("base"), v) => {
                    self.bad_arg(v.span(), "`base` is a number of seconds, e.g. `base: 1.0`");
                    ok = false;
                }
                (Some("on"), v) => match self.error_kinds(v) {
                    Some(kinds) => retry.on = kinds,
                    None => ok = false,
                },
                _ => {
                    self.bad_arg(arg.span, "`@retry` takes `times: N`, `wait: linear | exponential | SECONDS`, `base: SECONDS` and `on: [KIND, ...]`");
                    ok = false;
                }
            }
        }
        ok.then_some(retry)
    }

    /// The error kinds of `@retry`'s `on`: a list of words or strings (`[timeout, unavailable]`),
    /// or one of them alone; `None` after reporting a list that is empty or holds anything else.
    fn error_kinds(&mut self, v: &AttrValue) -> Option<Vec<String>> {
        let items: Vec<AttrValue> = match v {
            AttrValue::List { items, .. } => items.clone(),
            AttrValue::Value(ast::Value {
                kind: ValueKind::Array(values),
                ..
            }) => values.iter().cloned().map(AttrValue::Value).collect(),
            one => vec![one.clone()],
        };
        let mut kinds = Vec::with_capacity(items.len());
        for item in &items {
            match item {
                AttrValue::Word(w) => kinds.push(w.text.clone()),
                AttrValue::Value(ast::Value {
                    kind: ValueKind::String(s),
                    ..
                }) if !s.is_empty() => kinds.push(s.clone()),
                other => {
                    self.bad_arg(
                        other.span(),
                        "an error kind is a short name, e.g. `on: [timeout, unavailable]`",
                    );
                    return None;
                }
            }
        }
        if kinds.is_empty() {
            self.bad_arg(
                v.span(),
                "`on: []` retries nothing; name the error kinds, or leave `on` out to retry every kind",
            );
            return None;
        }
        Some(kinds)
    }

    /// Reports a `@retry` (at `span`) that never applies: every kind it retries is matched by
    /// an earlier `@retry`, which applies first.
    fn reachable_retry(&mut self, earlier: &[(Span, Retry)], span: Span, retry: &Retry) {
        let shadowing = earlier.iter().find(|(_, e)| {
            e.on.is_empty() || (!retry.on.is_empty() && retry.on.iter().all(|k| e.matches(k)))
        });
        if let Some((first, e)) = shadowing {
            let why = if e.on.is_empty() {
                "this `@retry` has no `on`, so it applies to every kind"
            } else {
                "this `@retry` applies first to the same kinds"
            };
            self.error(
                Diagnostic::error(
                    Code::ConflictingAttributes,
                    span,
                    "this `@retry` never applies: an earlier `@retry` matches every kind it names",
                )
                .with_label("never applies")
                .with_related(*first, why)
                .with_help(
                    "`@retry` policies are tried in order and the first whose `on` matches applies; \
                     put the narrower one first, or remove it",
                ),
            );
        }
    }

    /// `@cache(ttl: DURATION)`.
    fn cache(&mut self, a: &Attribute) -> Option<Cache> {
        const HOW: &str = "`@cache` takes `ttl: DURATION`, e.g. `@cache(ttl: \"5m\")` (`ms`, `s`, `m`, `h` or `d`, or a number of seconds)";
        let [arg] = a.args() else {
            self.bad_arg(a.span, HOW);
            return None;
        };
        if arg.name.as_ref().map(|n| n.text.as_str()) != Some("ttl") {
            self.bad_arg(arg.span, HOW);
            return None;
        }
        let ttl = match &arg.value {
            AttrValue::Value(ast::Value {
                kind: ValueKind::String(s),
                ..
            }) => parse_duration(s),
            AttrValue::Value(v) => non_negative(self.value(v).as_ref())
                .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok()),
            _ => None,
        };
        match ttl {
            Some(ttl) if !ttl.is_zero() => Some(Cache { ttl }),
            _ => {
                self.bad_arg(arg.value.span(), HOW);
                None
            }
        }
    }

    /// `@cache` on a tool that does not say `@read_only`.
    fn cache_not_read_only(&mut self, attrs: &[Attribute], tool: &Tool) {
        let span = attrs
            .iter()
            .find(|a| a.name.text == "cache")
            .map_or(tool.span, |a| a.span);
        let said = attrs.iter().find(|a| a.name.text == "read_only");
        let mut d = Diagnostic::error(
            Code::CacheNotReadOnly,
            span,
            "only a `@read_only` tool can be cached",
        )
        .with_label("the tool is not `@read_only`")
        .with_help(
            "a cached call does not run the tool, so a tool that changes its environment would \
             skip the change; add `@read_only` if the tool changes nothing, or remove `@cache`",
        );
        if let Some(said) = said {
            d = d.with_related(said.span, "read-only is turned off here");
        }
        self.error(d);
    }

    /// Whether `a` is the first attribute of its name in `seen` (each attribute that may be given
    /// once, by name, where it was first given); reports a repeat otherwise, and repeated
    /// argument names.
    pub(super) fn first_time<'a>(&mut self, seen: &mut Seen<'a>, a: &'a Attribute) -> bool {
        // Each group rule is a rule of its own: an object may have several.
        let repeatable = REPEATABLE_ATTRIBUTES.contains(&a.name.text.as_str());
        if !repeatable {
            if let Some(&first) = seen.get(a.name.text.as_str()) {
                self.error(
                    Diagnostic::error(
                        Code::DuplicateAttribute,
                        a.span,
                        format!("`@{}` is given twice", a.name.text),
                    )
                    .with_label("duplicate attribute")
                    .with_related(first, "first given here"),
                );
                return false;
            }
            seen.insert(&a.name.text, a.span);
        }
        // Where each argument name was last given.
        let mut names: HashMap<&str, Span> = HashMap::new();
        for arg in a.args() {
            let Some(n) = &arg.name else { continue };
            // The latest earlier one, as a map that kept the last span would report.
            if let Some(first) = names.insert(&n.text, n.span) {
                self.error(
                    Diagnostic::error(
                        Code::InvalidAttributeArgument,
                        n.span,
                        format!("argument `{}` is given twice", n.text),
                    )
                    .with_label("repeated argument")
                    .with_related(first, "first given here"),
                );
            }
        }
        true
    }

    pub(super) fn unknown_attribute(&mut self, a: &Attribute, known: &[&str], applies_to: &str) {
        let name = a.name.text.as_str();
        let mut d = Diagnostic::error(
            Code::UnknownAttribute,
            a.name.span,
            format!("unknown attribute `@{name}` for {applies_to}"),
        )
        .with_label("unknown attribute");
        let all = NUMBER_CONSTRAINTS
            .iter()
            .chain(STRING_CONSTRAINTS)
            .chain(ARRAY_CONSTRAINTS)
            .chain(OBJECT_CONSTRAINTS)
            .chain(FIELD_ANNOTATIONS)
            .chain(TOOL_ATTRIBUTES);
        if let Some((theirs, ours, help)) = ATTRIBUTE_SPELLINGS
            .iter()
            .find(|(theirs, _, _)| *theirs == name)
        {
            d = d.with_help(*help);
            if let Some(ours) = ours {
                d = d.with_replacement(a.name.span, theirs, ours, *ours);
            }
        } else if let Some(s) = did_you_mean(name, known.iter().copied()) {
            d = d
                .with_help(format!("did you mean `@{s}`?"))
                .with_replacement(a.name.span, name, s, s);
        } else if all.clone().any(|k| *k == name) {
            d = d.with_help(format!(
                "`@{name}` is not used on {applies_to}; the attributes here are {}",
                list(known)
            ));
        } else if let Some(s) = did_you_mean(name, all.copied()) {
            d = d.with_help(format!(
                "did you mean `@{s}`? (it does not apply to {applies_to})"
            ));
        } else {
            d = d.with_help(format!(
                "the attributes for {applies_to} are {}",
                list(known)
            ));
        }
        self.error(d);
    }

    pub(super) fn bad_arg(&mut self, span: Span, message: &str) {
        self.error(
            Diagnostic::error(Code::InvalidAttributeArgument, span, message.to_string())
                .with_label("invalid argument"),
        );
    }

    fn no_args(&mut self, a: &Attribute) {
        if a.args.is_some() {
            self.bad_arg(a.span, &format!("`@{}` takes no arguments", a.name.text));
        }
    }

    /// A flag: `@x` is true, `@x(true)` / `@x(false)` say so explicitly.
    pub(super) fn flag(&mut self, a: &Attribute) -> Option<bool> {
        match a.args() {
            [] => Some(true),
            [arg] if arg.name.is_none() => match &arg.value {
                AttrValue::Value(ast::Value {
                    kind: ValueKind::Bool(b),
                    ..
                }) => Some(*b),
                v => {
                    self.bad_arg(
                        v.span(),
                        &format!("`@{}` takes `true`, `false` or nothing", a.name.text),
                    );
                    None
                }
            },
            _ => {
                self.bad_arg(
                    a.span,
                    &format!("`@{}` takes `true`, `false` or nothing", a.name.text),
                );
                None
            }
        }
    }

    /// The one positional argument of an attribute.
    pub(super) fn single_arg<'a>(&mut self, a: &'a Attribute) -> Option<&'a ast::AttrArg> {
        match a.args() {
            [arg] if arg.name.is_none() => Some(arg),
            _ => {
                self.bad_arg(
                    a.span,
                    &format!("`@{}` takes exactly one argument", a.name.text),
                );
                None
            }
        }
    }

    pub(super) fn string_arg(&mut self, a: &Attribute) -> Option<String> {
        match &self.single_arg(a)?.value {
            AttrValue::Value(ast::Value {
                kind: ValueKind::String(s),
                ..
            }) => Some(s.clone()),
            v => {
                self.bad_arg(
                    v.span(),
                    &format!("`@{}` takes a string in double quotes", a.name.text),
                );
                None
            }
        }
    }

    fn word_arg(&mut self, a: &Attribute, words: &[&str]) -> Option<String> {
        let arg = self.single_arg(a)?;
        let text = match &arg.value {
            AttrValue::Word(w) => Some(w.text.clone()),
            AttrValue::Value(ast::Value {
                kind: ValueKind::String(s),
                ..
            }) => Some(s.clone()),
            _ => None,
        };
        match text {
            Some(t) if words.contains(&t.as_str()) => Some(t),
            other => {
                let span = arg.value.span();
                let mut d = Diagnostic::error(
                    Code::InvalidAttributeArgument,
                    span,
                    format!("`@{}` takes one of {}", a.name.text, list(words)),
                )
                .with_label("invalid argument");
                // Another library's spelling of one of the words: name tooldef's, as a fix.
                let spelled = other.as_deref().and_then(|t| {
                    SPELLINGS
                        .iter()
                        .find(|(attr, theirs, _, _)| *attr == a.name.text && *theirs == t)
                });
                if let Some((_, theirs, ours, whose)) = spelled {
                    d = d
                        .with_help(format!("{whose}'s `{theirs}` is tooldef's `{ours}`"))
                        .with_replacement(span, theirs, ours, *ours);
                }
                self.error(d);
                None
            }
        }
    }
}

/// Other libraries' words for an attribute's arguments, with tooldef's: (attribute, their word,
/// ours, whose).
const SPELLINGS: &[(&str, &str, &str, &str)] = &[
    ("on_error", "return_empty", "suppress", "Phronomy"),
    ("on_invalid", "return_error", "reply", "Phronomy"),
];

/// Other libraries' attributes that tooldef spells another way or keeps elsewhere: (their name,
/// tooldef's name when a rename fixes it, what to write instead).
const ATTRIBUTE_SPELLINGS: &[(&str, Option<&str>, &str)] = &[(
    "on_schema_error",
    Some("on_invalid"),
    "Phronomy's `@on_schema_error` is tooldef's `@on_invalid`: `reply` (Phronomy's \
     `return_error`, the default: the model is told what to fix) or `raise`; its `coerce` is \
     `@lax`. A call can choose otherwise with `RunOptions::on_invalid`",
)];

/// Reads a duration such as `"500ms"`, `"30s"`, `"5m"`, `"2h"` or `"1d"` (a whole or decimal
/// number, then its unit); `None` for anything else, or one too long to be represented.
pub(crate) fn parse_duration(text: &str) -> Option<std::time::Duration> {
    use std::time::Duration;
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let millis: u64 = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
        return None;
    }
    // A whole number is exact; a decimal one is read as seconds to the nanosecond.
    match number.parse::<u64>() {
        Ok(n) => n.checked_mul(millis).map(Duration::from_millis),
        Err(_) => {
            let n: f64 = number.parse().ok()?;
            Duration::try_from_secs_f64(n * millis as f64 / 1000.0).ok()
        }
    }
}

pub(super) fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn article(kind: &str) -> String {
    if kind.starts_with("union") {
        return format!("a {kind}");
    }
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}
