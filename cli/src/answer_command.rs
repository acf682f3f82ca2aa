//! Structured outputs on the command line, over [`tooldef::Toolset`]:
//! `tooldef schema FILE (--type NAME | --tool NAME) --target T [--via-tool]` prints a provider's
//! response-format block (or, with `--via-tool`, the request fields of one tool the model is
//! forced to call), and `tooldef parse FILE (--type NAME | --tool NAME) [--lax | --strict]
//! [--target T [--via-tool]] [ANSWER | -]` checks a model's answer (or the call of that tool in
//! the provider's response) against the type.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Value};

use tooldef::emit::{self, Target};
use tooldef::envelope::Provider;
use tooldef::validate::{Invalid, Validated};
use tooldef::{Answer, Source, Toolset};

use super::{
    compile_input, print_diagnostics, read_input, to_stdout, write, Format, InputLimits,
    EXIT_ERRORS,
};

/// Which type an answer is read as.
#[derive(clap::Args)]
#[group(required = true, multiple = false)]
pub(crate) struct AnswerType {
    /// A named type or enum of the file.
    #[arg(long = "type")]
    type_name: Option<String>,
    /// The output type (`-> T`) of this tool.
    #[arg(long)]
    tool: Option<String>,
}

impl AnswerType {
    fn answer(&self) -> Answer<'_> {
        match (&self.type_name, &self.tool) {
            (Some(t), _) => Answer::Type(t),
            (None, Some(t)) => Answer::Output(t),
            // clap's group requires one of the two.
            (None, None) => Answer::Type(""),
        }
    }
}

/// The providers that take a structured output.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ResponseTarget {
    /// OpenAI Chat Completions `response_format`.
    Openai,
    /// OpenAI Responses `text` (its `format`).
    OpenaiResponses,
    /// Anthropic Messages `output_format`.
    Anthropic,
    /// Gemini `generationConfig` fields (`responseMimeType`, `responseJsonSchema`).
    Gemini,
    /// Gemini `generationConfig` fields in the OpenAPI form (`responseMimeType`,
    /// `responseSchema`).
    GeminiOpenapi,
    /// OpenAI Chat Completions tools in strict mode (with `--via-tool` only: `openai`'s
    /// structured outputs are strict already).
    OpenaiStrict,
}

impl ResponseTarget {
    /// The provider whose responses answer a request made for this target.
    fn provider(self) -> Provider {
        match self {
            ResponseTarget::Openai | ResponseTarget::OpenaiStrict => Provider::OpenAi,
            ResponseTarget::OpenaiResponses => Provider::OpenAiResponses,
            ResponseTarget::Anthropic => Provider::Anthropic,
            ResponseTarget::Gemini | ResponseTarget::GeminiOpenapi => Provider::Gemini,
        }
    }
}

impl From<ResponseTarget> for Target {
    fn from(t: ResponseTarget) -> Target {
        match t {
            ResponseTarget::Openai => Target::OpenAi,
            ResponseTarget::OpenaiResponses => Target::OpenAiResponses,
            ResponseTarget::Anthropic => Target::Anthropic,
            ResponseTarget::Gemini => Target::Gemini,
            ResponseTarget::GeminiOpenapi => Target::GeminiOpenApi,
            ResponseTarget::OpenaiStrict => Target::OpenAiStrict,
        }
    }
}

/// The arguments of `tooldef schema`.
#[derive(clap::Args)]
pub(crate) struct SchemaArgs {
    /// The `.tool` file that defines the type; `-` reads standard input.
    file: PathBuf,
    #[command(flatten)]
    answer: AnswerType,
    /// The provider whose block to print.
    #[arg(long, value_enum)]
    target: ResponseTarget,
    /// Give the answer through a tool the model is forced to call: print the request fields
    /// `tools` (that one tool) and `tool_choice` (Gemini: `toolConfig`) instead of a
    /// response-format block. The tool is named after the type (`--tool T`: `T_output`).
    #[arg(long)]
    via_tool: bool,
    /// Write the JSON here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// How to print diagnostics (on standard error).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// The arguments of `tooldef parse`.
#[derive(clap::Args)]
pub(crate) struct ParseArgs {
    /// The `.tool` file that defines the type.
    file: PathBuf,
    #[command(flatten)]
    answer: AnswerType,
    /// The model's answer: a file of its text; `-` or nothing reads standard input.
    text: Option<PathBuf>,
    /// Read leniently: documented coercions, and almost-JSON repaired (code fences, prose,
    /// trailing commas, single quotes, ...).
    #[arg(long, conflicts_with = "strict")]
    lax: bool,
    /// Read exactly as the schema says (the default).
    #[arg(long)]
    strict: bool,
    /// The provider the schema was given to: OpenAI's answers hold every key, with `null` for
    /// what is absent, and are read that way.
    #[arg(long, value_enum)]
    target: Option<ResponseTarget>,
    /// The answer is the provider's whole response, in which the model called the tool of
    /// `schema --via-tool`: its arguments are read as the answer (needs `--target`).
    #[arg(long, requires = "target")]
    via_tool: bool,
    /// Print `{valid, value | errors, coercions, repairs, message}` as JSON.
    #[arg(long)]
    json: bool,
}

/// The file's toolset, or the exit code after printing its diagnostics.
fn load(
    file: &std::path::Path,
    format: Format,
    limits: &InputLimits,
) -> Result<Result<Toolset, u8>, String> {
    let input = read_input(file, limits.input())?;
    let (module, diags, text) = compile_input(&input, limits);
    if module.is_none() {
        print_diagnostics(&[(input.name, text, diags)], format, false);
        return Ok(Err(EXIT_ERRORS));
    }
    match limits.toolset(vec![Source::new(input.name.clone(), text.clone())]) {
        Ok(set) => Ok(Ok(set)),
        Err(e) => {
            print_diagnostics(&[(input.name, text, e.diagnostics)], format, false);
            Ok(Err(EXIT_ERRORS))
        }
    }
}

pub(crate) fn schema(a: &SchemaArgs, limits: &InputLimits) -> Result<u8, String> {
    if let Some(out) = &a.output {
        write::refuse_output_over_input(out, &[a.file.as_path()])?;
    }
    let set = match load(&a.file, a.format, limits)? {
        Ok(set) => set,
        Err(code) => return Ok(code),
    };
    let emitted = if a.via_tool {
        set.response_tool(
            a.answer.answer(),
            a.target.into(),
            &emit::Options::default(),
        )
    } else {
        set.response_format(
            a.answer.answer(),
            a.target.into(),
            &emit::Options::default(),
        )
    };
    let name = a.file.display().to_string();
    let json = match emitted {
        Ok(e) => {
            if !e.warnings.is_empty() {
                let text = set
                    .sources()
                    .first()
                    .map(|s| s.text().to_string())
                    .unwrap_or_default();
                print_diagnostics(&[(name, text, e.warnings)], a.format, false);
            }
            e.json
        }
        Err(e) => {
            let text = set
                .sources()
                .first()
                .map(|s| s.text().to_string())
                .unwrap_or_default();
            print_diagnostics(&[(name, text, e.diagnostics)], a.format, false);
            return Ok(EXIT_ERRORS);
        }
    };
    let mut text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    text.push('\n');
    match &a.output {
        Some(p) => write::write_file(p, text.as_bytes())?,
        None => to_stdout(&text),
    }
    Ok(0)
}

pub(crate) fn parse(a: &ParseArgs, limits: &InputLimits) -> Result<u8, String> {
    let text_path = a.text.clone().unwrap_or_else(|| PathBuf::from("-"));
    if a.file.as_os_str() == "-" && text_path.as_os_str() == "-" {
        return Err("the tool file and the answer cannot both come from standard input".into());
    }
    let set = match load(&a.file, Format::Human, limits)? {
        Ok(set) => set,
        // Exit code 1 is an invalid answer: a file with errors is a usage problem here, as
        // for `validate`.
        Err(_) => return Err("the tool file has errors".into()),
    };
    let result = match (a.target, a.via_tool) {
        (Some(t), true) => match answer_from_call(&set, a, t, &text_path, limits)? {
            Ok(result) => result,
            Err(missing) => {
                to_stdout(&format!("{missing}\n"));
                return Ok(1);
            }
        },
        (target, _) => {
            let validator = match target {
                Some(t) => set.answer_validator_for(a.answer.answer(), t.into()),
                None => set.answer_validator(a.answer.answer()),
            }
            .map_err(|e| e.to_string())?;
            super::validate_command::read_and_validate(
                validator, a.lax, a.strict, &text_path, limits,
            )?
        }
    };
    let code = u8::from(result.is_err());
    let out = match (&result, a.json) {
        (Ok(v), true) => json!({
            "valid": true,
            "value": v.arguments,
            "coercions": v.coercions,
            "repairs": v.repairs,
            "message": Value::Null,
        })
        .to_string(),
        (Err(e), true) => json!({
            "valid": false,
            "errors": e.errors_json(),
            "coercions": e.coercions,
            "message": e.message(),
        })
        .to_string(),
        (Ok(v), false) => {
            let mut err = std::io::stderr().lock();
            for r in &v.repairs {
                let _ = writeln!(err, "repaired {r}");
            }
            serde_json::to_string_pretty(&*v.arguments).map_err(|e| e.to_string())?
        }
        (Err(e), false) => e.message(),
    };
    to_stdout(&format!("{out}\n"));
    Ok(code)
}

/// The answer in the call of the forced tool in a provider's response (`parse --via-tool`): the
/// verdict on its arguments, or (as `Err`) what to tell the model when it did not call the tool.
/// A response that is not in the provider's shape is a usage error.
fn answer_from_call(
    set: &Toolset,
    a: &ParseArgs,
    target: ResponseTarget,
    path: &std::path::Path,
    limits: &InputLimits,
) -> Result<Result<Result<Validated<'static>, Invalid>, String>, String> {
    let answer = a.answer.answer();
    let name = set.answer_tool_name(answer).map_err(|e| e.to_string())?;
    let validator = set
        .answer_tool_validator(answer, target.into())
        .map_err(|e| e.to_string())?;
    let raw = read_input(path, limits.args())?;
    let text =
        String::from_utf8(raw.bytes).map_err(|e| format!("{} is not UTF-8: {e}", raw.name))?;
    let calls = target
        .provider()
        .calls_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
        .map_err(|e| e.to_string())?;
    let Some(call) = calls.iter().find(|c| c.name == name) else {
        return Ok(Err(format!(
            "The response holds no call to `{name}`; answer by calling the tool `{name}`."
        )));
    };
    let mode = super::mode_flag(a.lax, a.strict).unwrap_or(validator.default_mode());
    Ok(Ok(validator
        .validate(call.arguments.as_arguments(), mode)
        .map(Validated::into_owned)))
}
