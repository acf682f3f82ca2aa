//! `Toolset`: several sources, file-carrying diagnostics, one document per target.

use serde_json::Value;
use tooldef::emit::{self, Options, Target};
use tooldef::{Code, Source, Toolset};

const WEATHER: &str = "/// Weather.\ntool get_weather { city: string }\n";
const TIME: &str = "/// Time.\ntool get_time { tz: string }\n\n/// Date.\ntool get_date {}\n";

fn set() -> Toolset {
    Toolset::new([
        Source::new("weather.tool", WEATHER),
        Source::new("time.tool", TIME),
    ])
    .unwrap()
}

#[test]
fn names_come_file_by_file_in_source_order() {
    let tools = set();
    let names: Vec<&str> = tools.names().collect();
    assert_eq!(names, ["get_weather", "get_time", "get_date"]);
    assert_eq!(set().source_of("get_date").unwrap().name(), "time.tool");
}

#[test]
fn errors_display_file_line_and_column() {
    let errors = Toolset::new([
        Source::new("ok.tool", WEATHER),
        Source::new("dir/bad.tool", "/// T.\ntool t {\n  a: strng\n}\n"),
    ])
    .unwrap_err();
    let text = errors.to_string();
    assert!(
        text.starts_with("dir/bad.tool:3:6: [unknown-type]"),
        "{text}"
    );
    let d = errors.errors().next().unwrap();
    assert_eq!(d.file.as_ref().unwrap().name(), "dir/bad.tool");
}

#[test]
fn a_tool_defined_in_two_files_points_at_both() {
    let errors = Toolset::new([
        Source::new("a.tool", WEATHER),
        Source::new("b.tool", WEATHER),
    ])
    .unwrap_err();
    let d = errors.errors().next().unwrap();
    assert_eq!(d.code, Code::DuplicateName);
    assert_eq!(d.file.as_ref().unwrap().name(), "b.tool");
    assert_eq!(d.related[0].file.as_ref().unwrap().name(), "a.tool");
    assert!(errors.to_string().starts_with("b.tool:2:6:"), "{errors}");
}

#[test]
fn diagnostics_come_file_by_file_then_by_place() {
    // A tool defined again in `b.tool` is found after every file compiled, so it is reported
    // after `c.tool`'s errors; the sort puts it back before them.
    let errors = Toolset::new([
        Source::new("a.tool", WEATHER),
        Source::new("b.tool", "/// W.\ntool get_weather {}\n"),
        Source::new("c.tool", "/// T.\ntool u { x: nada, y: nix }\n"),
    ])
    .unwrap_err();
    let order: Vec<(String, Code, usize)> = errors
        .errors()
        .map(|d| {
            (
                d.file.as_ref().unwrap().name().to_string(),
                d.code,
                d.span.start,
            )
        })
        .collect();
    let places: Vec<(&str, Code)> = order.iter().map(|(f, c, _)| (f.as_str(), *c)).collect();
    assert_eq!(
        places,
        [
            ("b.tool", Code::DuplicateName),
            ("c.tool", Code::UnknownType),
            ("c.tool", Code::UnknownType),
        ],
        "{order:?}"
    );
    assert!(order[1].2 < order[2].2, "{order:?}");
}

/// The set's document is each source's document merged in the target's outer shape.
#[test]
fn one_document_per_target_for_the_whole_set() {
    let tools = set();
    for &target in Target::ALL {
        let whole = tools.emit(target).unwrap().json;
        let parts: Vec<Value> = [WEATHER, TIME]
            .iter()
            .map(|s| {
                let m = tooldef::compile(s).unwrap().module;
                emit::tools(&m, target, &Options::default()).unwrap().json
            })
            .collect();
        let merged = match target {
            Target::Gemini | Target::GeminiOpenApi => {
                let decls: Vec<Value> = parts
                    .iter()
                    .flat_map(|p| p[0]["functionDeclarations"].as_array().unwrap().clone())
                    .collect();
                serde_json::json!([{ "functionDeclarations": decls }])
            }
            Target::Mcp => {
                let all: Vec<Value> = parts
                    .iter()
                    .flat_map(|p| p["tools"].as_array().unwrap().clone())
                    .collect();
                serde_json::json!({ "tools": all })
            }
            _ => Value::Array(
                parts
                    .iter()
                    .flat_map(|p| p.as_array().unwrap().clone())
                    .collect(),
            ),
        };
        assert_eq!(whole, merged, "{}", target.as_str());
    }
}

#[test]
fn emit_errors_and_warnings_carry_their_file() {
    let tools = Toolset::new([
        Source::new("w.tool", WEATHER),
        Source::new(
            "m.tool",
            "/// Tags.\ntool tag { tags: [\"a\", 1], n?: integer = 2 }\n",
        ),
    ])
    .unwrap();
    let errors = tools.emit(Target::OpenAiStrict).unwrap_err();
    assert!(errors
        .errors()
        .all(|d| d.file.as_ref().unwrap().name() == "m.tool"));
    let warnings = tools.emit(Target::GeminiOpenApi).unwrap_err();
    assert!(warnings.to_string().starts_with("m.tool:"), "{warnings}");
}

#[test]
fn unknown_names_get_a_did_you_mean() {
    let e = set().validator("get_wether").unwrap_err();
    assert!(e.to_string().contains("did you mean `get_weather`?"), "{e}");
}

#[test]
fn files_are_read_and_named_by_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.tool");
    std::fs::write(&path, WEATHER).unwrap();
    let tools = Toolset::from_files([&path]).unwrap();
    assert_eq!(tools.sources()[0].name(), path.display().to_string());
    let missing = Toolset::from_files([dir.path().join("none.tool")]).unwrap_err();
    assert!(missing.to_string().contains("cannot read"), "{missing}");
}

/// One set shared by threads gives every thread the single-threaded verdicts.
#[test]
fn a_set_is_shared_across_threads() {
    let tools = std::sync::Arc::new(set());
    let calls = [r#"{"city": "Oslo"}"#, r#"{"city": 3}"#, r#"{"cty": "x"}"#];
    let expected: Vec<Result<Value, String>> = calls
        .iter()
        .map(|c| {
            let v = tools.validator("get_weather").unwrap();
            v.validate_str(c, tooldef::validate::Mode::Strict)
                .map(|ok| ok.into_arguments())
                .map_err(|e| e.message())
        })
        .collect();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let tools = std::sync::Arc::clone(&tools);
            std::thread::spawn(move || {
                calls
                    .iter()
                    .map(|c| {
                        let v = tools
                            .validator_for("get_weather", Target::OpenAiStrict)
                            .unwrap();
                        v.validate_str(c, tooldef::validate::Mode::Strict)
                            .map(|ok| ok.into_arguments())
                            .map_err(|e| e.message())
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), expected);
    }
}

/// A clone of a tool's validator outlives its toolset and gives the same verdicts, messages
/// and arguments, in the source's reading and in a target's (whose shown shape it copies too).
#[test]
fn a_cloned_validator_outlives_its_set_with_the_same_verdicts() {
    use tooldef::validate::Mode;
    let source = "/// Weather.\ntool get_weather {\n  /// City.\n  city: string @min_length(1)\n  \
                  /// Days.\n  days?: integer @min(1) = 1\n  /// Note.\n  note?: string\n}\n";
    let calls = [
        r#"{"city": "Oslo"}"#,
        r#"{"city": "Oslo", "days": "2"}"#,
        r#"{"city": "", "days": 0}"#,
        r#"{"cty": "x"}"#,
        r#"{"city": "Oslo", "note": null, "days": null}"#,
        "not json",
    ];
    for target in [None, Some(Target::OpenAiStrict)] {
        let tools = Toolset::new([Source::new("w.tool", source)]).unwrap();
        let original = match target {
            None => tools.validator("get_weather"),
            Some(t) => tools.validator_for("get_weather", t),
        }
        .unwrap();
        let verdicts = |v: &tooldef::validate::Validator| {
            let mut out = Vec::new();
            for call in calls {
                for mode in [Mode::Strict, Mode::Lax] {
                    out.push((
                        v.is_valid(call, mode),
                        v.validate_str(call, mode)
                            .map(|ok| ok.into_arguments())
                            .map_err(|e| e.message()),
                    ));
                }
            }
            out
        };
        let expected = verdicts(original);
        let copy = original.clone();
        drop(tools);
        assert_eq!(verdicts(&copy), expected, "target {target:?}");
        assert_eq!(copy.tool(), "get_weather");
    }
}
