//! Validating the arguments an LLM sends for a tool call.
//!
//! A [`Validator`] is compiled once per tool from the model: property lookups are indexed,
//! regexes built, named types shared. It is immutable, `Send` and `Sync`, and validates argument
//! text (`&str`, as providers deliver it) or a [`serde_json::Value`].
//!
//! - **Strict** mode accepts exactly what a draft 2020-12 validator accepts on the emitted schema
//!   ([`crate::emit::parameters`]): `1.0` is an integer, `uniqueItems` compares `1`
//!   and `1.0` as equal, `false` is not `0`, lengths count code points, patterns are unanchored,
//!   and `format` is an annotation (not asserted), as the draft's default vocabulary says.
//! - **Lax** mode is strict mode plus the coercions of [`coerce`] (`"42"` → `42`, `null` for an
//!   optional field → absent), each one recorded.
//!
//! Both modes report every problem at once (unknown keys with suggestions, missing fields with
//! their type and description), fill in defaults, and return the arguments normalized: keys in
//! declaration order, coerced values, defaults filled.
//!
//! ```
//! use tooldef::validate::{Validator, Mode};
//!
//! let source = r#"
//! /// Return the current weather for a city.
//! tool get_weather {
//!   /// The city, e.g. "Paris".
//!   city: string @min_length(1)
//!   days?: integer @min(1) @max(14) = 1
//!   unit?: "celsius" | "fahrenheit"
//! }
//! "#;
//! let module = tooldef::compile(source).unwrap().module;
//! let validator = Validator::for_tool(&module, "get_weather").unwrap();
//!
//! let ok = validator.validate_str(r#"{"city": "Paris"}"#, Mode::Strict).unwrap();
//! assert_eq!(*ok.arguments, serde_json::json!({"city": "Paris", "days": 1}));
//!
//! let lax = validator.validate_str(r#"{"days": "3", "city": "Oslo"}"#, Mode::Lax).unwrap();
//! assert_eq!(*lax.arguments, serde_json::json!({"city": "Oslo", "days": 3}));
//! assert_eq!(lax.coercions.len(), 1);
//!
//! let err = validator.validate_str(r#"{"cty": "Paris", "days": 20}"#, Mode::Strict).unwrap_err();
//! let codes: Vec<&str> = err.errors.iter().map(|e| e.code.as_str()).collect();
//! assert_eq!(codes, ["missing-field", "above-maximum", "unknown-key"]);
//! assert!(err.message().contains("did you mean `city`?"));
//! assert!(err.message().ends_with(
//!     r#"get_weather(city: string (at least 1 character), days?: integer 1..14 = 1, unit?: "celsius" | "fahrenheit")"#
//! ));
//! ```

pub mod coerce;
mod compile;
mod equal;
pub mod error;
mod format;
mod kind;
mod lenient;
mod message;
mod number;
mod reader;
pub(crate) mod reading;
mod single_pass;
mod sink;
use single_pass::Read;
mod walk;

#[cfg(test)]
mod agreement;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::model::{Module, Tool, Ty};

pub use crate::model::{Mode, OnInvalid};
pub use coerce::{Coercion, CoercionRule};
pub use compile::PatternError;
pub use equal::json_equal;
pub(crate) use equal::{json_hash, Positions};
pub use error::{ErrorCode, TextPosition, ValidationError};
pub use lenient::{Repair, RepairKind};
pub(crate) use message::kind as message_kind;
pub(crate) use message::type_text;
pub(crate) use number::{cmp as cmp_numbers, is_multiple_of};
pub(crate) use reader::parse as parse_json;
pub use reading::{Reading, EXTRA_KEYS, TUPLE_REST};

use compile::{Compiler, NodeId, Program};
use error::Problem;

/// Whether a number is an integer an `integer` field accepts: one held exactly (an `i64`, a
/// `u64`, or a double with a zero fractional part within ±2^53; a double beyond that may be a
/// rounded reading of what was written, so it is refused rather than passed on changed).
pub(crate) fn is_integer(n: &serde_json::Number) -> bool {
    number::is_integer(n)
}

/// Whether `value` fits `ty` in strict mode: the first way it breaks it, in words (prefixed
/// `at /path: ` when the problem is inside the value), or `None` when it fits. This is the
/// question the checker asks of defaults and examples, and the importer of a schema's values.
pub fn first_violation(module: &Module, ty: &Ty, value: &Value) -> Option<String> {
    first_violations(module, [(ty, value)]).pop().flatten()
}

/// [`first_violation`] of each value against its type, in order. The types are compiled
/// together, so a named type is compiled once however many of the values it types: one at a
/// time, a default on each of n fields of one large type compiled that type n times.
pub(crate) fn first_violations<'a>(
    module: &Module,
    checks: impl IntoIterator<Item = (&'a Ty, &'a Value)>,
) -> Vec<Option<String>> {
    let checks: Vec<(&Ty, &Value)> = checks.into_iter().collect();
    let mut problems: Vec<Option<String>> = vec![None; checks.len()];
    // Most values are valid: a program without message texts gives the verdicts, and the
    // texts are written only for the types of values that break a rule.
    // A type that several values share (a field's examples) is compiled once: by address.
    let mut verdicts = Compiler::without_texts(module);
    let mut compiled: HashMap<*const Ty, NodeId> = HashMap::new();
    let mut roots = Vec::with_capacity(checks.len());
    for (i, &(ty, value)) in checks.iter().enumerate() {
        if let Some(path) = walk::too_deep(value, Limits::DEFAULT_MAX_DEPTH) {
            problems[i] = Some(format!(
                "at {path}: nests deeper than {} levels",
                Limits::DEFAULT_MAX_DEPTH
            ));
        } else {
            let root = *compiled
                .entry(std::ptr::from_ref(ty))
                .or_insert_with(|| verdicts.ty(ty));
            roots.push((i, root));
        }
    }
    let program = verdicts.finish();
    roots.retain(|&(i, root)| !walk::accepts(&program, root, checks[i].1));
    if roots.is_empty() {
        return problems;
    }
    let mut texts = Compiler::new(module);
    compiled.clear();
    let roots: Vec<(usize, NodeId)> = roots
        .into_iter()
        .map(|(i, _)| {
            let ty = checks[i].0;
            let root = *compiled
                .entry(std::ptr::from_ref(ty))
                .or_insert_with(|| texts.ty(ty));
            (i, root)
        })
        .collect();
    let program = texts.finish();
    for (i, root) in roots {
        problems[i] = for_author(&program, root, checks[i].1).map(|(path, message)| {
            if path.is_empty() {
                message
            } else {
                format!("at {path}: {message}")
            }
        });
    }
    problems
}

/// The first problem of `value` against node `id` in strict mode, worded for the author of a
/// definition: where (a JSON pointer into `value`) and what. The run is the one that collects
/// the problems for the model; only the wording differs.
fn for_author(program: &Program, id: NodeId, value: &Value) -> Option<(String, String)> {
    let mut run = walk::Run::<sink::Collect>::new(program);
    run.walk(id, value);
    let e = run.errors.into_iter().next()?;
    let path = e.place();
    let Some((node, problem)) = e.found_by() else {
        return Some((path.to_string(), e.message().into_owned()));
    };
    let node = program.nodes.get(node);
    // What the problem was found in (`null` for a missing field).
    let found = value.pointer(&e.path).unwrap_or(&Value::Null);
    // A union's problem says why its first member does not fit.
    let reason = match (problem, node) {
        (Problem::NoMatch, Some(compile::Node::AnyOf(u))) => u
            .members
            .first()
            .and_then(|&m| for_author(program, m, found))
            .map(|(_, why)| why),
        _ => None,
    };
    let message = message::for_author(node, found, problem, &e.path, reason.as_deref());
    Some((path.to_string(), message))
}

/// Limits on argument text and values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest argument text accepted, in bytes.
    pub max_bytes: usize,
    /// The deepest nesting of arrays and objects accepted (the arguments object is level 1).
    pub max_depth: usize,
}

impl Limits {
    /// 4 MiB.
    pub const DEFAULT_MAX_BYTES: usize = 4 * 1024 * 1024;
    /// 128 levels.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: Limits::DEFAULT_MAX_BYTES,
            max_depth: Limits::DEFAULT_MAX_DEPTH,
        }
    }
}

/// Per-call policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// The mode; `None` uses the tool's `@strict` / `@lax` (or the validator's default).
    pub mode: Option<Mode>,
    /// What to do with invalid arguments; `None` uses the tool's `@on_invalid` (`reply` when
    /// it has none).
    pub on_invalid: Option<OnInvalid>,
}

/// The arguments of a call: text as providers deliver it, or a parsed value.
#[derive(Clone, Copy, Debug)]
pub enum Arguments<'a> {
    /// JSON text.
    Text(&'a str),
    /// A parsed value.
    Value(&'a Value),
}

impl Arguments<'_> {
    /// The arguments' size in bytes, if it is over `limit`: the text's length, or the length
    /// of the value written as compact JSON, so that a limit holds whatever the encoding a
    /// provider used. A value is measured without recursion, in one pass over what it holds.
    fn size_over(&self, limit: usize) -> Option<usize> {
        match self {
            Arguments::Text(text) => (text.len() > limit).then_some(text.len()),
            Arguments::Value(value) => json_len_over(value, limit),
        }
    }
}

/// The length of `value` as compact JSON, if it is over `limit`.
fn json_len_over(value: &Value, limit: usize) -> Option<usize> {
    let len = json_len(value);
    (len > limit).then_some(len)
}

/// The length of `value` as compact JSON, measured without recursion and without writing it.
pub(crate) fn json_len(value: &Value) -> usize {
    /// The bytes of a JSON string holding `s`: its quotes, and each character that is escaped
    /// at its escape's length.
    fn string_len(s: &str) -> usize {
        2 + s
            .bytes()
            .map(|b| match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
                0..=0x1f => 6,
                _ => 1,
            })
            .sum::<usize>()
    }
    let mut len = 0usize;
    let mut todo: Vec<&Value> = vec![value];
    while let Some(v) = todo.pop() {
        len = len.saturating_add(match v {
            Value::Null => 4,
            Value::Bool(b) => 4 + usize::from(!b),
            Value::Number(n) => n.to_string().len(),
            Value::String(s) => string_len(s),
            Value::Array(items) => {
                todo.extend(items);
                // The brackets and the commas.
                2 + items.len().saturating_sub(1)
            }
            Value::Object(map) => {
                todo.extend(map.values());
                // The braces, the commas, and each key with its colon.
                2 + map.len().saturating_sub(1)
                    + map.keys().map(|k| string_len(k) + 1).sum::<usize>()
            }
        });
    }
    len
}

impl<'a> From<&'a str> for Arguments<'a> {
    fn from(s: &'a str) -> Self {
        Arguments::Text(s)
    }
}

impl<'a> From<&'a String> for Arguments<'a> {
    fn from(s: &'a String) -> Self {
        Arguments::Text(s)
    }
}

impl<'a> From<&'a Value> for Arguments<'a> {
    fn from(v: &'a Value) -> Self {
        Arguments::Value(v)
    }
}

/// Valid arguments.
///
/// Validating a [`Value`] borrows it when it is already normalized (the usual case: keys in
/// declaration order, every defaulted field present), and otherwise holds a normalized copy;
/// validating text always owns the result (`Validated<'static>`).
#[derive(Clone, Debug, PartialEq)]
pub struct Validated<'a> {
    /// The arguments normalized: keys in declaration order (other keys after, as they came),
    /// coerced values, defaults filled in, integral numbers of integer fields as integers.
    pub arguments: Cow<'a, Value>,
    /// Every coercion lax mode applied, in document order (empty in strict mode).
    pub coercions: Vec<Coercion>,
    /// Every repair lax mode's lenient reading made to text that was not JSON (empty in strict
    /// mode, and for text that was JSON).
    pub repairs: Vec<Repair>,
}

impl Validated<'_> {
    /// The arguments as a typed value.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&*self.arguments)
    }

    /// The normalized arguments, owned.
    pub fn into_arguments(self) -> Value {
        self.arguments.into_owned()
    }

    /// The same result, owning its arguments.
    pub fn into_owned(self) -> Validated<'static> {
        Validated {
            arguments: Cow::Owned(self.arguments.into_owned()),
            coercions: self.coercions,
            repairs: self.repairs,
        }
    }
}

/// Invalid arguments: every problem, and one message for the model ([`Invalid::message`],
/// also the `Display` text), written when asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Invalid {
    /// The tool called.
    pub tool: Arc<str>,
    /// The mode used.
    pub mode: Mode,
    /// Every problem, in document order (declared fields first, then unknown keys).
    pub errors: Vec<ValidationError>,
    /// The coercions applied before the problems were found.
    pub coercions: Vec<Coercion>,
    signature: Arc<str>,
    subject: message::Subject,
}

impl Invalid {
    /// One message that lists every problem and reprints the tool's signature.
    pub fn message(&self) -> String {
        message::call_message(self.subject, &self.tool, &self.signature, &self.errors)
    }

    /// Each error's [`message`](ValidationError::message), in order, their "did you mean"
    /// drawn from one budget: the way to show every problem of a large call, in time bounded
    /// by the call's size whatever the number of enum values or fields it is compared with
    /// ([`message`](Invalid::message) lists the first hundred).
    pub fn messages(&self) -> impl Iterator<Item = Cow<'_, str>> + '_ {
        let mut suggestions = crate::suggest::Budget::default();
        self.errors
            .iter()
            .map(move |e| e.message_within(&mut suggestions))
    }

    /// Every error as `{"path", "code", "message"}`, in order, the messages as
    /// [`messages`](Invalid::messages) gives them: the list the command line and
    /// [`crate::Dispatched::to_json`] print.
    pub fn errors_json(&self) -> Value {
        self.errors
            .iter()
            .zip(self.messages())
            .map(|(e, message)| {
                serde_json::json!({"path": e.path, "code": e.code.as_str(), "message": message})
            })
            .collect()
    }

    /// The tool's compact signature, as the message prints it.
    pub fn signature(&self) -> &str {
        &self.signature
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Invalid {}

/// The result of [`Validator::call`].
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<'a> {
    /// The arguments are valid: run the tool with them.
    Valid(Validated<'a>),
    /// The arguments are invalid and the policy is [`OnInvalid::Reply`]: return this text as the
    /// tool's result.
    Reply(String),
}

/// Why [`Validator::validate_into`] failed.
#[derive(Debug, thiserror::Error)]
pub enum IntoError {
    /// The arguments are invalid.
    #[error("{0}")]
    Invalid(Box<Invalid>),
    /// The arguments are valid but do not deserialize into the requested type (the type does
    /// not match the tool's definition).
    #[error("the validated arguments do not fit the requested type: {0}")]
    Deserialize(serde_json::Error),
}

/// Why a validator could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// The module has no tool of that name.
    #[error("no tool named `{name}`{}", suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// A close name, if any.
        suggestion: Option<String>,
    },
    /// The module has no type or enum of that name.
    #[error("no type named `{name}`{}", suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownType {
        /// The name asked for.
        name: String,
        /// A close name, if any.
        suggestion: Option<String>,
    },
    /// The tool declares no output (`-> T`).
    #[error("tool `{0}` declares no output (`-> T`)")]
    NoOutput(String),
    /// An answer given through a tool ([`crate::Toolset::response_tool`]) must be an object: a
    /// tool's arguments are one.
    #[error("`{0}` is not an object, and a tool's arguments are one; wrap the value in an object type, e.g. `type Answer {{ value: T }}`")]
    NotAnObject(String),
    /// A target that has no tool choice (`json-schema`, `mcp`) was asked for one.
    #[error("the target `{target}` has no tool choice; the client of an MCP server, or the request of a provider target, chooses")]
    NoToolChoice {
        /// The target.
        target: &'static str,
    },
    /// A `@pattern` does not compile (the checker rejects these; only hand-built models have
    /// them).
    #[error("invalid pattern /{}/: {}", .0.pattern, .0.reason)]
    Pattern(PatternError),
    /// The target refuses the tool, so no model was shown it (e.g. a map for `openai-strict`);
    /// the errors are the target's, as `compile --target` reports them.
    #[error("target {target} cannot carry tool `{tool}`: {errors}")]
    NotRepresentable {
        /// The tool.
        tool: String,
        /// The target's name.
        target: &'static str,
        /// The target's errors.
        errors: crate::Errors,
    },
}

/// A tool's compiled validator. A clone is a validator of its own (sharing the compiled
/// program, which is reference-counted), for a caller that keeps one tool's validator apart
/// from its toolset.
// What every call reads comes first, and the validator starts a cache line: a call for a tool
// whose validator is cold reads one line of it (the names and the texts of errors come after).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Validator {
    limits: Limits,
    root: NodeId,
    program: Program,
    default_mode: Mode,
    default_on_invalid: OnInvalid,
    tool: Arc<str>,
    signature: Arc<str>,
    /// The strict reading of a target that showed the tool in another shape ([`Reading`]).
    shown: Option<Box<Shown>>,
    /// What is validated, for the words of the message.
    subject: message::Subject,
}

/// A tool as a target showed it: the validator of that shape, and the two modules that turn its
/// arguments back into the source's shape.
#[derive(Clone, Debug)]
struct Shown {
    validator: Validator,
    reading: Reading,
    source: Module,
    shown: Module,
    /// The tool's parameters as a type of `source`, where [`reading::back`] starts.
    params: Ty,
    /// Whether the tool holds a rule the shown shape cannot check as the source means it
    /// ([`reading::has_source_only_rules`]).
    source_only: bool,
    /// Whether the reading lowers something of the tool ([`reading::lowers_any`]): lax mode
    /// then also accepts the lowered shape.
    lowered: bool,
}

impl Shown {
    /// Validates `args` in the shown shape and turns them into the source's. `source` is the
    /// validator of the source's shape: it reports a `@unique` array whose items are equal
    /// only in that shape.
    fn validate<'a>(
        &self,
        source: &Validator,
        args: Arguments<'a>,
    ) -> Result<Validated<'a>, Invalid> {
        let valid = self.validator.validate(args, Mode::Strict)?;
        let mut arguments = valid.arguments.into_owned();
        let bare = self.source_only.then(|| arguments.clone());
        // What the shown schema could not say (a key in two entries, JSON text that is not
        // JSON) is found on the way back.
        let back = reading::back(
            &self.source,
            &self.shown,
            self.reading,
            &self.params,
            &mut arguments,
        );
        if let Err(errors) = back {
            return Err(self
                .validator
                .invalid(Mode::Strict, errors, valid.coercions));
        }
        // Items that sent different absent fields as `null` are distinct in the shown shape and
        // may be equal in the source's, and the rules across keys count only what was given:
        // the source reading of the call without those nulls (and without defaults) says.
        if let Some(mut bare) = bare {
            reading::bare(
                &self.source,
                &self.shown,
                self.reading,
                &self.params,
                &mut bare,
            );
            source
                .read_full(Arguments::Value(&bare), Mode::Strict)
                .map_err(|mut e| {
                    e.coercions = valid.coercions.clone();
                    e
                })?;
        }
        Ok(Validated {
            arguments: Cow::Owned(arguments),
            coercions: valid.coercions,
            repairs: valid.repairs,
        })
    }
}

impl Validator {
    /// Compiles the validator of `tool`, a tool of `module`. The mode defaults to the tool's
    /// `@strict` / `@lax`, and to strict when it has neither.
    pub fn new(module: &Module, tool: &Tool) -> Result<Validator, CompileError> {
        let mut compiler = Compiler::new(module).formats(tool.formats);
        let root = compiler.object(&tool.params);
        if let Some(e) = compiler.errors.first() {
            return Err(CompileError::Pattern(e.clone()));
        }
        Ok(Validator {
            tool: tool.name.as_str().into(),
            default_mode: tool.mode.unwrap_or(Mode::Strict),
            default_on_invalid: tool.on_invalid.unwrap_or_default(),
            limits: Limits::default(),
            signature: message::signature(module, tool).into(),
            program: compiler.finish(),
            root,
            shown: None,
            subject: message::Subject::Arguments,
        })
    }

    /// Compiles the validator of `tool`'s output type (its `-> T`), for checking what the tool
    /// returns; `None` when the tool declares no output. Its default mode is strict, and its
    /// [`Validator::signature`] is the type as messages print it.
    pub fn for_output(module: &Module, tool: &Tool) -> Option<Result<Validator, CompileError>> {
        let ty = tool.output.as_ref()?;
        Some(Validator::for_type(module, ty, &tool.name))
    }

    /// Compiles the validator of a type of `module`, for checking a value on its own (a
    /// model's structured answer, a tool's result); `name` names it in messages. Its default
    /// mode is strict, and its [`Validator::signature`] is the type as messages print it, with a
    /// `where Name = {...}` line for each named object type it uses.
    pub fn for_type(module: &Module, ty: &Ty, name: &str) -> Result<Validator, CompileError> {
        let mut compiler = Compiler::new(module);
        let root = compiler.ty(ty);
        if let Some(e) = compiler.errors.first() {
            return Err(CompileError::Pattern(e.clone()));
        }
        Ok(Validator {
            tool: name.into(),
            default_mode: Mode::Strict,
            default_on_invalid: OnInvalid::Reply,
            limits: Limits::default(),
            signature: message::value_signature(module, ty).into(),
            program: compiler.finish(),
            root,
            shown: None,
            subject: message::Subject::Value,
        })
    }

    /// Compiles the validator of `tool` for the target its schema was emitted for: it reads
    /// calls in the shape that target showed ([`Reading::for_target`]). Fails when the target
    /// refuses the tool.
    pub fn for_target(
        module: &Module,
        tool: &Tool,
        target: crate::emit::Target,
    ) -> Result<Validator, CompileError> {
        let reading = Reading::for_target(module, tool, target).map_err(|errors| {
            CompileError::NotRepresentable {
                tool: tool.name.clone(),
                target: target.as_str(),
                errors,
            }
        })?;
        Validator::with_reading(module, tool, reading)
    }

    /// Compiles the validator of `tool` for a reading.
    pub fn with_reading(
        module: &Module,
        tool: &Tool,
        reading: Reading,
    ) -> Result<Validator, CompileError> {
        let mut validator = Validator::new(module, tool)?;
        if reading != Reading::Source {
            let (source, shown) = reading::shown_module(module, tool, reading);
            let strict = match shown.tools.first() {
                Some(t) => Validator::new(&shown, t)?,
                None => return Ok(validator),
            };
            // Lax mode keeps the source's rules, but its messages show the target's shape.
            validator.signature = Arc::clone(&strict.signature);
            let source_only = reading::has_source_only_rules(&source);
            let lowered = reading::lowers_any(module, tool, reading);
            validator.shown = Some(Box::new(Shown {
                validator: strict,
                reading,
                params: Ty::Object(Box::new(tool.params.clone())),
                source,
                shown,
                source_only,
                lowered,
            }));
        }
        Ok(validator)
    }

    /// How this validator reads a call.
    pub fn reading(&self) -> Reading {
        self.shown.as_ref().map_or(Reading::Source, |s| s.reading)
    }

    /// Compiles the validator of the tool called `name`.
    pub fn for_tool(module: &Module, name: &str) -> Result<Validator, CompileError> {
        match module.tool(name) {
            Some(t) => Validator::new(module, t),
            None => Err(CompileError::UnknownTool {
                name: name.to_string(),
                suggestion: crate::suggest::did_you_mean(
                    name,
                    module.tools.iter().map(|t| t.name.as_str()),
                )
                .map(str::to_string),
            }),
        }
    }

    /// The same validator with other limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        if let Some(shown) = self.shown.as_mut() {
            shown.validator.limits = limits;
        }
        self
    }

    /// The same validator with `@format` as an annotation only: strings are no longer checked
    /// against their format (as with the tool attribute `@formats(annotate)`).
    pub fn without_formats(mut self) -> Self {
        self.program.drop_formats();
        if let Some(shown) = self.shown.as_mut() {
            shown.validator.program.drop_formats();
        }
        self
    }

    /// The same validator with another default mode (used when a call does not choose one).
    pub fn with_default_mode(mut self, mode: Mode) -> Self {
        self.default_mode = mode;
        self
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The mode used when a call does not choose one.
    pub fn default_mode(&self) -> Mode {
        self.default_mode
    }

    /// What invalid arguments do when a call does not say: the tool's `@on_invalid`, else
    /// [`OnInvalid::Reply`].
    pub fn default_on_invalid(&self) -> OnInvalid {
        self.default_on_invalid
    }

    /// What invalid arguments do in a call that says `on_invalid` (`None`: it does not): the
    /// call's choice wins over the tool's `@on_invalid`, which wins over
    /// [`OnInvalid::Reply`].
    pub fn on_invalid(&self, call: Option<OnInvalid>) -> OnInvalid {
        call.unwrap_or(self.default_on_invalid)
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The tool's compact signature, as the failure message prints it.
    pub fn signature(&self) -> &str {
        &self.signature
    }

    /// Validates argument text in the given mode.
    pub fn validate_str(&self, text: &str, mode: Mode) -> Result<Validated<'static>, Invalid> {
        if let Some(shown) = self.shown_for(mode) {
            return shown
                .validate(self, Arguments::Text(text))
                .map(Validated::into_owned);
        }
        if Arguments::Text(text)
            .size_over(self.limits.max_bytes)
            .is_none()
        {
            let lax = mode == Mode::Lax;
            match single_pass::validate(&self.program, self.root, text, self.limits.max_depth, lax)
            {
                Read::Valid(arguments, coercions) => {
                    return Ok(Validated {
                        arguments: Cow::Owned(arguments),
                        coercions,
                        repairs: Vec::new(),
                    })
                }
                Read::Invalid(value) => {
                    if let Some(invalid) = self.problems(&value, mode) {
                        return self
                            .lowered_in_lax(Arguments::Text(text), mode)
                            .map(Validated::into_owned)
                            .ok_or(invalid);
                    }
                }
                // (Strict mode only: nothing was coerced.)
                Read::Found(errors) => return Err(self.invalid(mode, errors, Vec::new())),
                Read::Unsure => {}
            }
        }
        self.validate_full(Arguments::Text(text), mode)
            .map(Validated::into_owned)
    }

    /// The problems (and, in lax mode, the coercions) of a value that the single pass read
    /// whole, as sent, and found invalid (the text is not read again). `None` if the run finds
    /// none, which leaves the call to the full path.
    #[cold]
    #[inline(never)]
    fn problems(&self, value: &Value, mode: Mode) -> Option<Invalid> {
        let (_, errors, coercions) = match mode {
            Mode::Strict => walk::Run::<sink::Collect>::new(&self.program).finish(self.root, value),
            Mode::Lax => walk::Run::<sink::LaxCollect>::new(&self.program).finish(self.root, value),
        };
        (!errors.is_empty()).then(|| self.invalid(mode, errors, coercions))
    }

    /// Validates a parsed value in the given mode. Valid arguments borrow `value` when it is
    /// already normalized.
    pub fn validate_value<'a>(
        &self,
        value: &'a Value,
        mode: Mode,
    ) -> Result<Validated<'a>, Invalid> {
        self.validate(Arguments::Value(value), mode)
    }

    /// Validates arguments in the given mode, collecting every problem.
    pub fn validate<'a>(
        &self,
        args: impl Into<Arguments<'a>>,
        mode: Mode,
    ) -> Result<Validated<'a>, Invalid> {
        // Each path asks for the target's reading itself.
        match args.into() {
            // Text takes the single pass, which reads it once, valid or not.
            Arguments::Text(text) => self.validate_str(text, mode),
            args @ Arguments::Value(_) => self.validate_full(args, mode),
        }
    }

    /// [`Validator::validate`] without the single pass over text: the text is parsed, then
    /// validated. Gives the same result (`agreement.rs` compares the two).
    pub(crate) fn validate_full<'a>(
        &self,
        args: impl Into<Arguments<'a>>,
        mode: Mode,
    ) -> Result<Validated<'a>, Invalid> {
        let args = args.into();
        if let Some(shown) = self.shown_for(mode) {
            return shown.validate(self, args);
        }
        match self.read_full(args, mode) {
            Err(invalid) => self.lowered_in_lax(args, mode).ok_or(invalid),
            valid => valid,
        }
    }

    /// Lax mode also accepts the shape a target lowered the tool into: the call read as the
    /// target's strict reading reads it, when that accepts it (`None` otherwise).
    fn lowered_in_lax<'a>(&self, args: Arguments<'a>, mode: Mode) -> Option<Validated<'a>> {
        let shown = self.shown.as_deref().filter(|s| s.lowered)?;
        (mode == Mode::Lax)
            .then(|| shown.validate(self, args).ok())
            .flatten()
    }

    /// Lax mode's reading of text that is not JSON ([`lenient`]): the text repaired and
    /// validated, the repairs recorded. The reader's own error stands when nothing could be
    /// repaired, when the repaired text is still not JSON, and when closing a cut-off document
    /// does not give valid arguments.
    fn read_leniently(
        &self,
        text: &str,
        error: ValidationError,
    ) -> Result<Validated<'static>, Invalid> {
        let refused = |v: &Self| Err(v.invalid(Mode::Lax, vec![error.clone()], Vec::new()));
        let Some(repaired) = lenient::repair(text) else {
            return refused(self);
        };
        // What the repairs left is the problem to name (not one they mended), where it stands in
        // the text as sent.
        let to_sent = |at| repaired.sent_offset(at);
        if let Err(e) =
            reader::parse_repaired(&repaired.text, text, &to_sent, self.limits.max_depth)
        {
            return Err(self.invalid(Mode::Lax, vec![*e], Vec::new()));
        }
        match self.read_full(Arguments::Text(&repaired.text), Mode::Lax) {
            Ok(valid) => Ok(Validated {
                repairs: repaired.repairs,
                ..valid.into_owned()
            }),
            Err(_) if repaired.closed => refused(self),
            Err(invalid) => Err(invalid),
        }
    }

    /// The full path in the source's shape (the lax mode of every reading).
    fn read_full<'a>(&self, args: Arguments<'a>, mode: Mode) -> Result<Validated<'a>, Invalid> {
        let parsed;
        let mut errors = Vec::new();
        let from_text = matches!(args, Arguments::Text(_));
        if let Some(size) = args.size_over(self.limits.max_bytes) {
            let e = ValidationError::new(
                String::new(),
                ErrorCode::TooLarge,
                format!("at most {} bytes", self.limits.max_bytes),
                format!("{size} bytes"),
                format!(
                    "the arguments are {size} bytes long, more than the limit of {} bytes",
                    self.limits.max_bytes
                ),
            );
            return Err(self.invalid(mode, vec![e], Vec::new()));
        }
        let value = match args {
            Arguments::Text(text) => {
                match reader::parse(text, self.limits.max_depth) {
                    // Most calls are valid as sent. When the strict check accepts the parsed
                    // value, both modes give the same result without coercions (lax mode only
                    // coerces what strict mode rejects), and the normalized arguments are built
                    // by moving the parsed value instead of copying it.
                    Ok(p)
                        if p.duplicates.is_empty()
                            && walk::accepts(&self.program, self.root, &p.value) =>
                    {
                        let mut arguments = p.value;
                        walk::normalize(&self.program, self.root, &mut arguments, true);
                        return Ok(Validated {
                            arguments: Cow::Owned(arguments),
                            coercions: Vec::new(),
                            repairs: Vec::new(),
                        });
                    }
                    Ok(p) => {
                        errors = p.duplicates;
                        parsed = p.value;
                        &parsed
                    }
                    Err(e) if mode == Mode::Lax => return self.read_leniently(text, *e),
                    Err(e) => return Err(self.invalid(mode, vec![*e], Vec::new())),
                }
            }
            Arguments::Value(v) => {
                // As for text: valid as sent (and not too deep), so normalized without the full
                // run, and borrowed when normalizing would change nothing.
                let (valid, normal) =
                    walk::accepts_normal(&self.program, self.root, v, self.limits.max_depth);
                if valid {
                    let arguments = if normal {
                        Cow::Borrowed(v)
                    } else {
                        Cow::Owned(walk::normalized(&self.program, self.root, v))
                    };
                    return Ok(Validated {
                        arguments,
                        coercions: Vec::new(),
                        repairs: Vec::new(),
                    });
                }
                let too_deep = nests_deeper(v, self.limits.max_depth)
                    .then(|| walk::too_deep(v, self.limits.max_depth))
                    .flatten();
                if let Some(path) = too_deep {
                    let e = ValidationError::new(
                        path,
                        ErrorCode::TooDeep,
                        format!("at most {} levels of nesting", self.limits.max_depth),
                        format!("more than {}", self.limits.max_depth),
                        format!(
                            "the arguments nest deeper than {} levels",
                            self.limits.max_depth
                        ),
                    );
                    return Err(self.invalid(mode, vec![e], Vec::new()));
                }
                v
            }
        };
        // Strict mode only needs the problems here (valid values took the fast path above), so
        // the run builds no output. So does lax mode for text, which reaches this point when
        // the single pass failed, so almost always with problems; without any, the run is
        // made again, building the arguments.
        let lax = mode == Mode::Lax;
        let (mut out, mut found, mut coercions) = match mode {
            Mode::Lax if !from_text => {
                walk::Run::<sink::LaxBuild>::new(&self.program).finish(self.root, value)
            }
            Mode::Lax => walk::Run::<sink::LaxCollect>::new(&self.program).finish(self.root, value),
            Mode::Strict => walk::Run::<sink::Collect>::new(&self.program).finish(self.root, value),
        };
        if lax && from_text && out.is_some() && found.is_empty() && errors.is_empty() {
            (out, found, coercions) =
                walk::Run::<sink::LaxBuild>::new(&self.program).finish(self.root, value);
        }
        if errors.is_empty() {
            errors = found;
        } else {
            errors.extend(found);
        }
        match out {
            Some(arguments) if errors.is_empty() => {
                let arguments = if mode == Mode::Strict {
                    // Not reached: the strict check and the strict run agree. Kept so that a
                    // disagreement still returns correct arguments.
                    let mut arguments = value.clone();
                    walk::normalize(&self.program, self.root, &mut arguments, true);
                    arguments
                } else {
                    arguments
                };
                Ok(Validated {
                    arguments: Cow::Owned(arguments),
                    coercions,
                    repairs: Vec::new(),
                })
            }
            _ => Err(self.invalid(mode, errors, coercions)),
        }
    }

    /// The target's reading, when this validator has one and `mode` is strict.
    #[inline(always)]
    fn shown_for(&self, mode: Mode) -> Option<&Shown> {
        match mode {
            Mode::Strict => self.shown.as_deref(),
            Mode::Lax => None,
        }
    }

    fn invalid(
        &self,
        mode: Mode,
        errors: Vec<ValidationError>,
        coercions: Vec<Coercion>,
    ) -> Invalid {
        Invalid {
            tool: Arc::clone(&self.tool),
            mode,
            errors,
            coercions,
            signature: Arc::clone(&self.signature),
            subject: self.subject,
        }
    }

    /// Validates with the per-call policy: the mode (default: the tool's), and whether invalid
    /// arguments become a reply for the model or an error.
    pub fn call<'a>(
        &self,
        args: impl Into<Arguments<'a>>,
        options: CallOptions,
    ) -> Result<Outcome<'a>, Invalid> {
        let mode = options.mode.unwrap_or(self.default_mode);
        match self.validate(args, mode) {
            Ok(v) => Ok(Outcome::Valid(v)),
            Err(invalid) => match self.on_invalid(options.on_invalid) {
                OnInvalid::Reply => Ok(Outcome::Reply(invalid.message())),
                OnInvalid::Raise => Err(invalid),
            },
        }
    }

    /// Validates in the tool's default mode and deserializes the normalized arguments.
    pub fn validate_into<'a, T: DeserializeOwned>(
        &self,
        args: impl Into<Arguments<'a>>,
    ) -> Result<T, IntoError> {
        self.validate_into_mode(args, self.default_mode)
    }

    /// Validates in the given mode and deserializes the normalized arguments.
    pub fn validate_into_mode<'a, T: DeserializeOwned>(
        &self,
        args: impl Into<Arguments<'a>>,
        mode: Mode,
    ) -> Result<T, IntoError> {
        let v = self
            .validate(args, mode)
            .map_err(|e| IntoError::Invalid(Box::new(e)))?;
        v.deserialize().map_err(IntoError::Deserialize)
    }

    /// The fast check: whether the arguments are valid, without building errors, messages or
    /// output. In strict mode a parsed value is checked in place (text is parsed first); lax
    /// mode runs the full validation, since coercions must be applied before uniqueness can be
    /// judged.
    pub fn is_valid<'a>(&self, args: impl Into<Arguments<'a>>, mode: Mode) -> bool {
        if let Some(shown) = self.shown_for(mode) {
            // Where the tool has no unique array and nothing lowered, the shown shape decides
            // alone.
            let args = args.into();
            return shown.validator.is_valid(args, Mode::Strict)
                && (!(shown.source_only || shown.lowered) || shown.validate(self, args).is_ok());
        }
        let args = args.into();
        if args.size_over(self.limits.max_bytes).is_some() {
            return false;
        }
        match (args, mode) {
            (Arguments::Text(text), Mode::Strict) => {
                let max_depth = self.limits.max_depth;
                single_pass::is_valid(&self.program, self.root, text, max_depth)
                        // Deeper than the single pass goes: the full path's reader decides.
                        || (max_depth > single_pass::DEPTH_CAP
                            && reader::parse(text, max_depth).is_ok_and(|p| {
                                p.duplicates.is_empty()
                                    && walk::accepts(&self.program, self.root, &p.value)
                            }))
            }
            (Arguments::Value(v), Mode::Strict) => {
                walk::accepts_within(&self.program, self.root, v, self.limits.max_depth)
            }
            (args, mode) => self.validate(args, mode).is_ok(),
        }
    }
}

/// Whether `value` nests deeper than `max` levels (a container is a level; scalars never nest),
/// looking only into containers.
fn nests_deeper(value: &Value, max: usize) -> bool {
    let deeper =
        |v: &Value| matches!(v, Value::Array(_) | Value::Object(_)) && nests_deeper(v, max - 1);
    match value {
        Value::Array(items) => max == 0 || items.iter().any(deeper),
        Value::Object(map) => max == 0 || map.values().any(deeper),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nests_deeper_counts_containers() {
        let v = serde_json::json!({"a": [1, {"b": []}], "c": "x"});
        // Object, array, object, array: four levels.
        assert!(!nests_deeper(&v, 4));
        assert!(nests_deeper(&v, 3));
        assert!(!nests_deeper(&serde_json::json!(1), 0));
        assert!(nests_deeper(&serde_json::json!([]), 0));
        for max in 0..5 {
            assert_eq!(nests_deeper(&v, max), walk::exceeds_depth(&v, max), "{max}");
        }
    }

    /// What the layout comment of [`Validator`] says: what a call reads (the limits, the root,
    /// the nodes and the defaults table) lies in its first cache line.
    #[test]
    fn a_call_reads_one_line_of_the_validator() {
        use std::mem::{align_of, offset_of};
        assert_eq!(align_of::<Validator>(), 64);
        assert!(offset_of!(Validator, limits) + 16 <= 64);
        assert!(offset_of!(Validator, root) + 8 <= 64);
        assert!(offset_of!(Validator, program.nodes) + 16 <= 64);
        assert!(offset_of!(Validator, program.fills) + 16 <= 64);
    }

    #[test]
    fn an_output_validator_checks_the_output_type() {
        let module = crate::compile(
            "/// A tool.\ntool t -> { n: integer @min(0), tags?: string[] = [] } { a: string }\n\
             /// No output.\ntool u { }",
        )
        .unwrap()
        .module;
        assert!(Validator::for_output(&module, module.tool("u").unwrap()).is_none());
        let v = Validator::for_output(&module, module.tool("t").unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(v.default_mode(), Mode::Strict);
        let ok = v.validate_str(r#"{"n": 2}"#, Mode::Strict).unwrap();
        assert_eq!(*ok.arguments, serde_json::json!({"n": 2, "tags": []}));
        let value = serde_json::json!({"n": -1, "tags": ["a", 3]});
        let err = v.validate_value(&value, Mode::Strict).unwrap_err();
        let paths: Vec<&str> = err.errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["/n", "/tags/1"]);
        // The arguments' validator reads the parameters, not the output.
        let args = Validator::for_tool(&module, "t").unwrap();
        assert!(!args.is_valid(r#"{"n": 2}"#, Mode::Strict));
        // A scalar output, through the single pass over text too.
        let module = crate::compile("/// A tool.\ntool t -> integer[] { }")
            .unwrap()
            .module;
        let v = Validator::for_output(&module, &module.tools[0])
            .unwrap()
            .unwrap();
        assert!(v.validate_str("[1, 2]", Mode::Strict).is_ok());
        assert!(v.validate_str(r#"[1, "2"]"#, Mode::Strict).is_err());
        assert!(v.validate_str(r#"[1, "2"]"#, Mode::Lax).is_ok());
    }

    #[test]
    fn validator_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Validator>();
        check::<Invalid>();
    }
}
