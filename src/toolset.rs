//! A toolset: the compiled tools of one or more sources, keyed by name.
//!
//! The entry point of the library for a program that serves tools to a model: it emits the
//! whole set for any target as one document, and hands out each tool's validator, in the
//! source's reading or in the shape a target showed ([`Toolset::validator_for`]).
//!
//! ```
//! use tooldef::{emit::Target, Toolset};
//! use tooldef::validate::Mode;
//!
//! let tools = Toolset::from_source(r#"
//! /// Return the weather for a city.
//! tool get_weather { city: string, days?: integer @min(1) = 1 }
//! "#).unwrap();
//!
//! let openai = tools.emit(Target::OpenAiStrict).unwrap();
//! assert_eq!(openai.json[0]["function"]["name"], "get_weather");
//!
//! // A model shown the strict schema sends `null` for `days`: that means "absent".
//! let v = tools.validator_for("get_weather", Target::OpenAiStrict).unwrap();
//! let ok = v.validate_str(r#"{"city": "Oslo", "days": null}"#, Mode::Strict).unwrap();
//! assert_eq!(*ok.arguments, serde_json::json!({"city": "Oslo", "days": 1}));
//! ```

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;

use crate::diagnostic::{Code, Diagnostic, Errors, Source};
use crate::emit::{self, Emitted, Options, Target};
use crate::model::{Module, Tool};
use crate::validate::{CompileError, Reading, Validator};

/// What a model's structured answer is read as: a named type or enum, or a tool's `-> T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer<'a> {
    /// The type or enum of that name.
    Type(&'a str),
    /// The output type of the tool of that name.
    Output(&'a str),
}

/// The object a type is, through named types and aliases.
fn object_of<'m>(
    module: &'m Module,
    ty: &'m crate::model::Ty,
) -> Option<&'m crate::model::ObjectTy> {
    let mut ty = ty;
    // An alias chain visits each named type at most once.
    for _ in 0..=module.types.len() {
        match ty {
            crate::model::Ty::Object(o) => return Some(o),
            crate::model::Ty::Ref(id) => ty = &module.types.get(id.0)?.ty,
            _ => return None,
        }
    }
    None
}

/// An answer's type, found.
struct Resolved<'s> {
    module: &'s Module,
    ty: crate::model::Ty,
    name: String,
    description: Option<&'s str>,
    span: crate::diagnostic::Span,
}

/// The compiled tools of one or more sources, keyed by name; immutable, `Send` and `Sync`.
#[derive(Debug)]
pub struct Toolset {
    sources: Vec<Source>,
    /// The tools of every source and the types they use, checked as one build.
    module: Arc<Module>,
    /// Where each file sits in the span space of `module`.
    places: crate::modules::Places,
    tools: IndexMap<String, Entry>,
    warnings: Vec<Diagnostic>,
}

#[derive(Debug)]
struct Entry {
    /// Index into `sources`: the source that defines the tool.
    source: usize,
    /// Index into the module's tools.
    index: usize,
    /// The validator in the source's reading.
    validator: Validator,
    /// The validator for `openai-strict`, made when first asked for.
    strict: OnceLock<Result<Validator, CompileError>>,
    /// The validator for `openai-responses` when it emits the tool strict (`None`: it reads the
    /// source's shape), made when first asked for.
    responses: OnceLock<Option<Validator>>,
    /// The validator for `gemini-openapi` when it lowers something of the tool (`None`: it
    /// reads the source's shape).
    gemini_openapi: OnceLock<Result<Option<Validator>, CompileError>>,
    /// The validator for `anthropic-strict` when it lowers something of the tool (`None`: it
    /// reads the source's shape).
    anthropic_strict: OnceLock<Result<Option<Validator>, CompileError>>,
}

/// Why a toolset could not be loaded from files.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The path as given.
        path: String,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The sources do not compile: every error of every file, each carrying its file.
    #[error("{0}")]
    Invalid(Errors),
}

impl Toolset {
    /// The toolset of one source (named `<source>` in diagnostics).
    pub fn from_source(text: &str) -> Result<Toolset, Errors> {
        Toolset::new([Source::new("<source>", text)])
    }

    /// The toolset of the files at `paths`, read as UTF-8.
    pub fn from_files<P: AsRef<Path>>(
        paths: impl IntoIterator<Item = P>,
    ) -> Result<Toolset, LoadError> {
        let sources = paths
            .into_iter()
            .map(|p| {
                Source::read(p.as_ref()).map_err(|error| LoadError::Io {
                    path: p.as_ref().display().to_string(),
                    error,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Toolset::new(sources).map_err(LoadError::Invalid)
    }

    /// The toolset of several sources, compiled as one build ([`crate::compile_with`] for many):
    /// every file, named or imported, is read and checked once. Imports are read from disk
    /// relative to their source's name, and stay inside the folder that holds every source
    /// (see [`Toolset::with_loader`] for another loader). Tool names are unique across the set: a
    /// name defined twice is an error at the second definition, pointing at the first; type
    /// names are one namespace across it. Every diagnostic carries its source; `Errors` holds
    /// them file by file, each file's in source order.
    pub fn new(sources: impl IntoIterator<Item = Source>) -> Result<Toolset, Errors> {
        let sources: Vec<Source> = sources.into_iter().collect();
        let loader = crate::FileLoader::within(crate::modules::project_root(
            sources.iter().map(Source::name),
        ));
        Toolset::with_loader(sources, &loader)
    }

    /// [`Toolset::new`], with imports read through `loader`.
    pub fn with_loader(
        sources: impl IntoIterator<Item = Source>,
        loader: &dyn crate::Loader,
    ) -> Result<Toolset, Errors> {
        let sources: Vec<Source> = sources.into_iter().collect();
        let set = crate::modules::compile_set(&sources, loader);
        let mut diagnostics = set.diagnostics;
        let Some(module) = set.module else {
            return Err(Errors {
                diagnostics: in_source_order(&sources, diagnostics),
            });
        };
        let module = Arc::new(module);
        let mut failed = false;
        let mut tools: IndexMap<String, Entry> = IndexMap::new();
        for (index, tool) in module.tools.iter().enumerate() {
            match Validator::new(&module, tool) {
                Ok(validator) => {
                    tools.insert(
                        tool.name.clone(),
                        Entry {
                            source: set.tool_roots.get(index).copied().unwrap_or(0),
                            index,
                            validator,
                            strict: OnceLock::new(),
                            responses: OnceLock::new(),
                            gemini_openapi: OnceLock::new(),
                            anthropic_strict: OnceLock::new(),
                        },
                    );
                }
                Err(e) => {
                    failed = true;
                    diagnostics.push(set.places.place(Diagnostic::error(
                        Code::InvalidPattern,
                        tool.span,
                        e.to_string(),
                    )));
                }
            }
        }
        let diagnostics = in_source_order(&sources, diagnostics);
        if failed {
            return Err(Errors { diagnostics });
        }
        Ok(Toolset {
            module,
            places: set.places,
            sources,
            tools,
            warnings: diagnostics,
        })
    }

    /// The sources, in the order given.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The checked module behind the set: every tool and every named type they use.
    pub(crate) fn module(&self) -> &Module {
        &self.module
    }

    /// The warnings of every source, each carrying its source.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The tools' names, in source order (file by file).
    pub fn names(&self) -> impl Iterator<Item = &str> + Clone {
        self.tools.keys().map(String::as_str)
    }

    /// How many tools the set holds.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the set holds no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool called `name`, with the module that defines it.
    pub fn tool(&self, name: &str) -> Option<(&Module, &Tool)> {
        let e = self.tools.get(name)?;
        Some((&self.module, &self.module.tools[e.index]))
    }

    /// The source that defines the tool called `name`.
    pub fn source_of(&self, name: &str) -> Option<&Source> {
        self.tools.get(name).map(|e| &self.sources[e.source])
    }

    /// The tools, in source order, with the module that defines each.
    pub fn tools(&self) -> impl Iterator<Item = (&Module, &Tool)> {
        self.tools
            .values()
            .map(|e| (&*self.module, &self.module.tools[e.index]))
    }

    /// The validator of the tool called `name`, reading calls in the source's shape. An unknown
    /// name is an error with a did-you-mean among the set's names.
    pub fn validator(&self, name: &str) -> Result<&Validator, CompileError> {
        self.entry(name).map(|e| &e.validator)
    }

    /// The validator of the tool called `name` for the target the model was shown: it reads
    /// calls in the shape that target emitted ([`Reading::for_target`]). Fails for an unknown
    /// name, and when the target refuses the tool.
    pub fn validator_for(&self, name: &str, target: Target) -> Result<&Validator, CompileError> {
        self.validator_at(self.entry(name)?, target)
    }

    /// The tool called `name` with the validator [`Toolset::validator_for`] gives it (for no
    /// target, [`Toolset::validator`]), or `None` for a name the set lacks: one lookup, and no
    /// suggestion made.
    pub(crate) fn known(
        &self,
        name: &str,
        target: Option<Target>,
    ) -> Option<(&Tool, Result<&Validator, CompileError>)> {
        let e = self.tools.get(name)?;
        let validator = match target {
            Some(target) => self.validator_at(e, target),
            None => Ok(&e.validator),
        };
        Some((&self.module.tools[e.index], validator))
    }

    fn validator_at<'a>(
        &'a self,
        e: &'a Entry,
        target: Target,
    ) -> Result<&'a Validator, CompileError> {
        let module = &*self.module;
        let tool = &module.tools[e.index];
        match target {
            Target::OpenAiStrict => e
                .strict
                .get_or_init(|| Validator::for_target(module, tool, target))
                .as_ref()
                .map_err(Clone::clone),
            Target::OpenAiResponses => Ok(e
                .responses
                .get_or_init(|| match Reading::for_target(module, tool, target) {
                    Ok(Reading::NullForAbsent) => {
                        Validator::with_reading(module, tool, Reading::NullForAbsent).ok()
                    }
                    _ => None,
                })
                .as_ref()
                .unwrap_or(&e.validator)),
            Target::AnthropicStrict => e
                .anthropic_strict
                .get_or_init(|| {
                    let closed = Validator::for_target(module, tool, target)?;
                    Ok((closed.reading() != Reading::Source).then_some(closed))
                })
                .as_ref()
                .map(|v| v.as_ref().unwrap_or(&e.validator))
                .map_err(Clone::clone),
            Target::GeminiOpenApi => e
                .gemini_openapi
                .get_or_init(|| {
                    let lowered = Validator::for_target(module, tool, target)?;
                    Ok((lowered.reading() != Reading::Source).then_some(lowered))
                })
                .as_ref()
                .map(|v| v.as_ref().unwrap_or(&e.validator))
                .map_err(Clone::clone),
            _ => Ok(&e.validator),
        }
    }

    fn entry(&self, name: &str) -> Result<&Entry, CompileError> {
        self.tools
            .get(name)
            .ok_or_else(|| CompileError::UnknownTool {
                name: name.to_string(),
                suggestion: self.suggest(name).map(str::to_string),
            })
    }

    /// The validator of a model's structured answer ([`Answer`]): strict by default, lax mode
    /// reading almost-JSON leniently, as for tool calls. Read an answer with
    /// `toolset.answer_validator(answer)?.validate_str(text, mode)`.
    pub fn answer_validator(&self, answer: Answer<'_>) -> Result<Validator, CompileError> {
        let a = self.resolve(answer)?;
        Validator::for_type(a.module, &a.ty, &a.name)
    }

    /// [`Toolset::answer_validator`] for the provider the schema was given to. OpenAI's
    /// strict-mode schema asks for every key, with `null` for what is absent, so an answer to
    /// it is read that way ([`Reading::NullForAbsent`], as tool calls are) and returned in the
    /// type's own shape.
    pub fn answer_validator_for(
        &self,
        answer: Answer<'_>,
        target: Target,
    ) -> Result<Validator, CompileError> {
        let a = self.resolve(answer)?;
        if let Some(object) = object_of(a.module, &a.ty) {
            let shape = Tool::new(a.name.clone(), String::new(), object.clone());
            match target {
                Target::OpenAi | Target::OpenAiResponses => {
                    return Validator::with_reading(a.module, &shape, Reading::NullForAbsent)
                }
                Target::GeminiOpenApi => return Validator::for_target(a.module, &shape, target),
                _ => {}
            }
        }
        Validator::for_type(a.module, &a.ty, &a.name)
    }

    /// An answer given through a tool: the tool the model is forced to call, whose arguments are
    /// the answer. It is named after the type (`--type Answer`: `Answer`), or after the tool
    /// whose output it is with `_output` added (so that it never collides with that tool), and
    /// described by the type's description.
    fn answer_tool(&self, answer: Answer<'_>) -> Result<(&Module, Tool), CompileError> {
        let a = self.resolve(answer)?;
        let object =
            object_of(a.module, &a.ty).ok_or_else(|| CompileError::NotAnObject(a.name.clone()))?;
        let name = match answer {
            Answer::Type(_) => a.name.clone(),
            Answer::Output(tool) => format!("{tool}_output"),
        };
        let description = a
            .description
            .unwrap_or("Give your answer as this tool's arguments.");
        let mut tool = Tool::new(name, description, object.clone());
        tool.span = a.span;
        Ok((a.module, tool))
    }

    /// Structured output through a forced tool ([`emit::forced_tool`]): the request fields
    /// `tools` (one tool, whose arguments are the answer, in `target`'s shape) and the tool
    /// choice that makes the model call it. Read the answer back from the call with
    /// [`Toolset::answer_tool_validator`]. `json-schema` and `mcp` have no tool choice, and an
    /// answer that is not an object cannot be a tool's arguments: both are errors.
    pub fn response_tool(
        &self,
        answer: Answer<'_>,
        target: Target,
        options: &Options,
    ) -> Result<Emitted, Errors> {
        let at = |message: String| {
            Errors::new(vec![Diagnostic::error(
                Code::TargetLimit,
                crate::diagnostic::Span::default(),
                message,
            )])
        };
        let (module, tool) = self.answer_tool(answer).map_err(|e| at(e.to_string()))?;
        let emitted = emit::tool(module, &tool, target, options).map_err(|e| {
            Errors::new(
                e.diagnostics
                    .into_iter()
                    .map(|d| self.places.place(d))
                    .collect(),
            )
        })?;
        let json = emit::forced_tool(target, &tool.name, emitted.json).ok_or_else(|| {
            at(CompileError::NoToolChoice {
                target: target.as_str(),
            }
            .to_string())
        })?;
        Ok(Emitted {
            json,
            warnings: emitted
                .warnings
                .into_iter()
                .map(|d| self.places.place(d))
                .collect(),
        })
    }

    /// The validator of an answer given through a forced tool ([`Toolset::response_tool`]):
    /// it reads the tool call's arguments in the shape `target` showed the model.
    pub fn answer_tool_validator(
        &self,
        answer: Answer<'_>,
        target: Target,
    ) -> Result<Validator, CompileError> {
        let (module, tool) = self.answer_tool(answer)?;
        Validator::for_target(module, &tool, target)
    }

    /// The name of the forced tool of [`Toolset::response_tool`], to find its call in a
    /// response.
    pub fn answer_tool_name(&self, answer: Answer<'_>) -> Result<String, CompileError> {
        self.answer_tool(answer).map(|(_, tool)| tool.name)
    }

    /// The structured-output block of `target` for an answer ([`emit::response_format`]): the
    /// value of OpenAI's `response_format` or `text`, Anthropic's `output_format`, or the
    /// fields of Gemini's `generationConfig`. An unknown name is an error with a did-you-mean.
    pub fn response_format(
        &self,
        answer: Answer<'_>,
        target: Target,
        options: &Options,
    ) -> Result<Emitted, Errors> {
        let a = self.resolve(answer).map_err(|e| {
            Errors::new(vec![Diagnostic::error(
                Code::UnknownType,
                crate::diagnostic::Span::default(),
                e.to_string(),
            )])
        })?;
        emit::response_format(
            a.module,
            &a.ty,
            &a.name,
            a.description,
            a.span,
            target,
            options,
        )
        .map(|mut emitted| {
            emitted.warnings = emitted
                .warnings
                .into_iter()
                .map(|d| self.places.place(d))
                .collect();
            emitted
        })
        .map_err(|e| {
            Errors::new(
                e.diagnostics
                    .into_iter()
                    .map(|d| self.places.place(d))
                    .collect(),
            )
        })
    }

    fn resolve(&self, answer: Answer<'_>) -> Result<Resolved<'_>, CompileError> {
        match answer {
            Answer::Type(name) => {
                let module = &*self.module;
                if let Some((id, named)) = module.named(name) {
                    return Ok(Resolved {
                        module,
                        ty: crate::model::Ty::Ref(id),
                        name: named.name.clone(),
                        description: named.description.as_deref(),
                        span: named.span,
                    });
                }
                let names = module.types.iter().map(|t| t.name.as_str());
                Err(CompileError::UnknownType {
                    name: name.to_string(),
                    suggestion: crate::suggest::did_you_mean(name, names).map(str::to_string),
                })
            }
            Answer::Output(tool) => {
                let e = self.entry(tool)?;
                let module = &*self.module;
                let t = &module.tools[e.index];
                let ty = t
                    .output
                    .clone()
                    .ok_or_else(|| CompileError::NoOutput(t.name.clone()))?;
                Ok(Resolved {
                    module,
                    ty,
                    name: t.name.clone(),
                    description: None,
                    span: t.span,
                })
            }
        }
    }

    /// The tool choice in `target`'s form ([`emit::tool_choice`]): for one tool, a name of the
    /// set (an unknown name is an error with a did-you-mean); for `json-schema` and `mcp`, which
    /// have no tool choice, an error that says so.
    pub fn tool_choice(
        &self,
        target: Target,
        choice: emit::ToolChoice<'_>,
    ) -> Result<serde_json::Value, CompileError> {
        if let emit::ToolChoice::Tool(name) = choice {
            self.entry(name)?;
        }
        emit::tool_choice(target, choice).ok_or_else(|| CompileError::NoToolChoice {
            target: target.as_str(),
        })
    }

    /// The set's name closest to `name`, if one is close enough.
    pub fn suggest(&self, name: &str) -> Option<&str> {
        crate::suggest::did_you_mean(name, self.names())
    }

    /// Every tool of the set in a target's shape, as one document (an array; for `gemini` one
    /// `Tool` holding every declaration; for `mcp` one `tools/list` result), with warnings
    /// (each carrying its source) on by default.
    pub fn emit(&self, target: Target) -> Result<Emitted, Errors> {
        self.emit_with(target, &Options::default())
    }

    /// [`Toolset::emit`] with options.
    pub fn emit_with(&self, target: Target, options: &Options) -> Result<Emitted, Errors> {
        let mut items = Vec::with_capacity(self.tools.len());
        let mut diagnostics = Vec::new();
        let mut failed = false;
        // The named types are measured once, for all the tools.
        let module = &*self.module;
        let shapes = crate::shape::Shapes::of(module);
        let mut emitted_tools = Vec::with_capacity(self.tools.len());
        for e in self.tools.values() {
            let tool = &module.tools[e.index];
            match emit::tool_shaped(module, tool, target, options, &shapes) {
                Ok(emitted) => {
                    emitted_tools.push(tool);
                    items.push(emitted.json);
                    diagnostics.extend(emitted.warnings.into_iter().map(|d| self.places.place(d)));
                }
                Err(errors) => {
                    failed = true;
                    diagnostics
                        .extend(errors.diagnostics.into_iter().map(|d| self.places.place(d)));
                }
            }
        }
        // The limits of one request are counted once every tool compiles.
        if !failed {
            let request = emit::request_problems(target, emitted_tools.into_iter().zip(&items));
            if !request.is_empty() {
                failed = true;
                diagnostics.extend(request.into_iter().map(|d| self.places.place(d)));
            }
        }
        if failed {
            return Err(Errors { diagnostics });
        }
        Ok(Emitted {
            json: emit::document(target, items),
            warnings: diagnostics,
        })
    }
}

/// `diagnostics` sorted by the source they point into (the first of `sources` equal to it; none
/// first), then by place. Each file's place is found once, by identity for a clone of a source
/// and by name and text otherwise, so the sort costs no scan of the sources per comparison.
fn in_source_order(sources: &[Source], diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut first_equal: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, s) in sources.iter().enumerate() {
        first_equal.entry((s.name(), s.text())).or_insert(i);
    }
    let mut place: HashMap<*const (), Option<usize>> = HashMap::new();
    let mut keyed: Vec<(Option<usize>, Diagnostic)> = diagnostics
        .into_iter()
        .map(|d| {
            let at = d.file.as_ref().and_then(|f| {
                *place
                    .entry(f.id())
                    .or_insert_with(|| first_equal.get(&(f.name(), f.text())).copied())
            });
            (at, d)
        })
        .collect();
    keyed.sort_by_key(|(at, d)| (*at, d.span.start, d.span.end));
    keyed.into_iter().map(|(_, d)| d).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toolset_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Toolset>();
    }
}
