//! Dispatching a model's response: tooldef reading a three-call OpenAI Chat Completions
//! response, validating each call and building the replies for the bad ones, against
//! `serde_json` parsing the same response into a `Value` alone.
//!
//! Two responses: every call valid, and one call invalid (its reply is built). Before anything
//! is timed, the calls tooldef reads are checked against the parsed value (the binary panics
//! otherwise); `cargo test --benches` runs these checks and each benchmark once.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use tooldef::envelope::Provider;
use tooldef::{DispatchOptions, Toolset};

const TOOLS: &str = r#"
/// Return the weather forecast for a city.
tool get_forecast {
  /// The city, e.g. "Paris".
  city: string @min_length(1)
  unit?: "celsius" | "fahrenheit" = "celsius"
  /// Forecast length in days.
  days?: integer @min(1) @max(14) = 1
}

/// Search the web.
tool search {
  query: string @min_length(1)
  limit?: integer @min(1) @max(50) = 10
  site?: string
}

/// Create a calendar event.
tool create_event {
  title: string
  start: string @format(date-time)
  attendees?: string[] @max_items(20)
}
"#;

fn response(second_arguments: &Value) -> String {
    let call = |id: &str, name: &str, args: &Value| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}});
    json!({
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": 1741569952,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [
                    call("call_Dn2RJJSxzDm49vlVTehseJ0k", "get_forecast",
                         &json!({"city": "Paris", "unit": "celsius", "days": 3})),
                    call("call_4yJ8ptA3m8Dqc8cTmbD6JvDm", "search", second_arguments),
                    call("call_zD9JQCMjUG4Q1YjxWbZC6Np8", "create_event",
                         &json!({"title": "Trip planning", "start": "2025-03-10T09:00:00Z",
                                 "attendees": ["ada@example.com", "grace@example.com"]})),
                ],
                "refusal": null,
                "annotations": []
            },
            "logprobs": null,
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 214, "completion_tokens": 96, "total_tokens": 310},
        "service_tier": "default",
        "system_fingerprint": "fp_b42f2c3b8d"
    })
    .to_string()
}

fn bench(c: &mut Criterion) {
    let tools = Toolset::from_source(TOOLS).expect("the tools compile");
    let options = DispatchOptions::default();
    let cases = [
        (
            "openai_3_calls_valid",
            response(&json!({"query": "Paris weather", "limit": 5})),
        ),
        (
            "openai_3_calls_1_invalid",
            response(&json!({"query": "", "limt": 5})),
        ),
    ];
    for (name, text) in &cases {
        // Both sides agree on what the response holds before anything is timed.
        let parsed: Value = serde_json::from_str(text).expect("valid JSON");
        let out = tools
            .dispatch_str(Provider::OpenAi, text, &options)
            .expect("an OpenAI response");
        let sent = parsed["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap();
        assert_eq!(out.calls.len(), sent.len());
        for (got, want) in out.calls.iter().zip(sent) {
            assert_eq!(got.call.id.as_ref(), Some(&want["id"]));
            assert_eq!(got.call.name, want["function"]["name"]);
        }
        let invalid = out.calls.iter().filter(|c| !c.is_valid()).count();
        assert_eq!(out.replies.len(), invalid);
        assert_eq!(invalid, usize::from(name.ends_with("1_invalid")));

        let mut g = c.benchmark_group(format!("dispatch/{name}"));
        g.bench_function("tooldef_dispatch", |b| {
            b.iter(|| {
                tools
                    .dispatch_str(Provider::OpenAi, black_box(text), &options)
                    .map(|d| d.replies.len())
            })
        });
        g.bench_function("serde_json_parse", |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(text)).map(|v| v.is_object()))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
