//! OpenAI Chat Completions: calls in `choices[].message.tool_calls[]`, each
//! `{id, type: "function", function: {name, arguments}}` with `arguments` a JSON string; a
//! reply is a `tool` message (platform.openai.com/docs/api-reference/chat/object,
//! "Function calling").

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{json, Value};

use super::{index, join, CallArguments, EnvelopeError, Provider, Reader, ToolCall};

/// The calls of a response given as text, read straight into the few fields a call has (the
/// rest of the response is skipped, not built). `None` when the text is not a well-formed
/// response of that shape: [`calls`] on the parsed value then decides, with the pointer of the
/// problem.
pub(super) fn calls_str(text: &str) -> Option<Vec<ToolCall>> {
    #[derive(Deserialize)]
    struct Response<'a> {
        #[serde(borrow)]
        choices: Vec<Object<Choice<'a>>>,
    }
    #[derive(Deserialize)]
    struct Choice<'a> {
        #[serde(borrow)]
        message: Option<Object<Message<'a>>>,
    }
    #[derive(Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        tool_calls: Option<Vec<Object<Call<'a>>>>,
    }
    #[derive(Deserialize)]
    struct Call<'a> {
        #[serde(borrow)]
        id: Option<Cow<'a, str>>,
        #[serde(borrow, rename = "type")]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow)]
        function: Option<Object<Function<'a>>>,
    }
    #[derive(Deserialize)]
    struct Function<'a> {
        #[serde(borrow)]
        name: Cow<'a, str>,
        #[serde(borrow)]
        arguments: Cow<'a, str>,
    }
    let Object(response): Object<Response> = serde_json::from_str(text).ok()?;
    let mut calls = Vec::new();
    for (c, Object(choice)) in response.choices.into_iter().enumerate() {
        for (i, Object(call)) in choice
            .message
            .and_then(|Object(m)| m.tool_calls)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            if call.kind.as_deref().is_some_and(|k| k != "function") {
                continue;
            }
            let Object(function) = call.function?;
            calls.push(ToolCall {
                id: call.id.map(|id| Value::String(id.into_owned())),
                name: function.name.into_owned(),
                arguments: CallArguments::Text(function.arguments.into_owned()),
                pointer: format!("/choices/{c}/message/tool_calls/{i}"),
            });
        }
    }
    Some(calls)
}

/// A struct read from a JSON object only. A derived `Deserialize` also reads a struct from an
/// array of its fields in order, which the response's shape does not allow: `[[]]` would read
/// as a response without calls.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Fields<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        deserializer
            .deserialize_map(Fields(PhantomData))
            .map(Object)
    }
}

pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, EnvelopeError> {
    let r = Reader::new(Provider::OpenAi);
    let root = r.object(response, "")?;
    let mut calls = Vec::new();
    for (c, choice) in r.array(root, "", "choices", false)?.iter().enumerate() {
        let at = index("/choices", c);
        let choice = r.object(choice, &at)?;
        let at = join(&at, "message");
        let Some(message) = choice.get("message").filter(|m| !m.is_null()) else {
            continue;
        };
        let message = r.object(message, &at)?;
        for (i, call) in r
            .array(message, &at, "tool_calls", true)?
            .iter()
            .enumerate()
        {
            let at = index(&join(&at, "tool_calls"), i);
            let call = r.object(call, &at)?;
            // Other kinds of call (`custom` tools) are not function calls.
            if call
                .get("type")
                .is_some_and(|t| !t.is_null() && t.as_str() != Some("function"))
            {
                continue;
            }
            let id = r.id(call, &at, "id")?;
            let function_at = join(&at, "function");
            let function = r.object(r.member(call, &at, "function")?, &function_at)?;
            calls.push(ToolCall {
                id,
                name: r.string(function, &function_at, "name")?.to_string(),
                arguments: CallArguments::Text(
                    r.string(function, &function_at, "arguments")?.to_string(),
                ),
                pointer: at,
            });
        }
    }
    Ok(calls)
}

pub(super) fn reply(call: &ToolCall, text: &str) -> Value {
    json!({"role": "tool", "tool_call_id": call.id, "content": text})
}
