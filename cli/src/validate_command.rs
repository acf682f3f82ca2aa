//! `tooldef validate FILE --tool NAME [--lax | --strict] [ARGS | -]`: the command line over
//! [`tooldef::validate`].

use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Value};

use tooldef::validate::{Invalid, Limits, Validated, Validator};

use super::{compile_input, print_diagnostics, read_input, Format, InputLimits, EXIT_ERRORS};

/// The arguments of `tooldef validate`.
#[derive(clap::Args)]
pub(crate) struct ValidateArgs {
    /// The `.tool` file that defines the tool.
    file: PathBuf,
    /// The tool whose arguments to validate.
    #[arg(long)]
    tool: String,
    /// The arguments: a file of JSON text; `-` or nothing reads standard input.
    args: Option<PathBuf>,
    /// Validate leniently (documented coercions such as "42" → 42), whatever the tool says.
    #[arg(long, conflicts_with = "strict")]
    lax: bool,
    /// Validate exactly as the emitted JSON Schema, whatever the tool says.
    #[arg(long)]
    strict: bool,
    /// How to print the result.
    #[arg(long, value_enum, default_value_t = ResultFormat::Human)]
    format: ResultFormat,
}

/// How `validate` prints its result (the tool file's diagnostics follow the same choice).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ResultFormat {
    /// The normalized arguments, or the message for the model.
    Human,
    /// One JSON object: `{valid, arguments | errors: [{path, code, message}], coercions,
    /// repairs (when valid), message}`.
    Json,
}

impl From<ResultFormat> for Format {
    fn from(f: ResultFormat) -> Format {
        match f {
            ResultFormat::Human => Format::Human,
            ResultFormat::Json => Format::Json,
        }
    }
}

/// Reads the text at `path` through the argument limit (which becomes the validator's own: what
/// is read is what it accepts) and validates it in the mode the flags choose, else the
/// validator's default. A byte-order mark is dropped: editors may save one, providers never send
/// one.
pub(crate) fn read_and_validate(
    validator: Validator,
    lax: bool,
    strict: bool,
    path: &std::path::Path,
    limits: &InputLimits,
) -> Result<Result<Validated<'static>, Invalid>, String> {
    let checked = Limits {
        max_bytes: limits.max_args_bytes,
        ..validator.limits()
    };
    let validator = validator.with_limits(checked);
    let mode = super::mode_flag(lax, strict).unwrap_or(validator.default_mode());
    let raw = read_input(path, limits.args())?;
    let text =
        String::from_utf8(raw.bytes).map_err(|e| format!("{} is not UTF-8: {e}", raw.name))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Ok(validator.validate_str(text, mode))
}

pub(crate) fn run(a: &ValidateArgs, limits: &InputLimits) -> Result<u8, String> {
    let args_path = a.args.clone().unwrap_or_else(|| PathBuf::from("-"));
    if a.file.as_os_str() == "-" && args_path.as_os_str() == "-" {
        return Err("the tool file and the arguments cannot both come from standard input".into());
    }
    let input = read_input(&a.file, limits.input())?;
    let (module, diags, text) = compile_input(&input, limits);
    let Some(module) = module else {
        print_diagnostics(&[(input.name, text, diags)], a.format.into(), false);
        return Err("the tool file has errors".into());
    };
    let validator = Validator::for_tool(&module, &a.tool).map_err(|e| e.to_string())?;
    let result = read_and_validate(validator, a.lax, a.strict, &args_path, limits)?;
    let (code, out) = match (&result, a.format) {
        (Ok(v), ResultFormat::Json) => (
            0,
            pretty(&json!({
                "valid": true,
                "arguments": v.arguments,
                "coercions": v.coercions,
                "repairs": v.repairs,
                "message": Value::Null,
            })),
        ),
        (Ok(v), ResultFormat::Human) => {
            // Notes on standard error; a closed pipe there is not worth failing for.
            let mut err = std::io::stderr().lock();
            for r in &v.repairs {
                let _ = writeln!(err, "repaired {r}");
            }
            for c in &v.coercions {
                let to =
                    c.to.as_ref()
                        .map_or("(absent)".to_string(), |t| t.to_string());
                let rule = c.rule.as_str();
                let _ = writeln!(
                    err,
                    "coerced {} ({rule}): {} → {to}",
                    pointer(&c.path),
                    c.from
                );
            }
            (0, pretty(&v.arguments))
        }
        (Err(e), ResultFormat::Json) => (
            EXIT_ERRORS,
            pretty(&json!({
                "valid": false,
                "errors": e.errors_json(),
                "coercions": e.coercions,
                "message": e.message(),
            })),
        ),
        (Err(e), ResultFormat::Human) => (EXIT_ERRORS, format!("{}\n", e.message())),
    };
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    Ok(code)
}

fn pointer(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}
