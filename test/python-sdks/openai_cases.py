"""The `openai` Python SDK against the quick start's `demo` route: Chat Completions and Responses."""

import json

from openai import AsyncOpenAI, OpenAI

from sdk_cases import CLIENT_OPTIONS, gateway_url, run

ROUTE = "demo"
HELLO = [{"role": "user", "content": "Hello"}]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
TOOLS = {"tools": [WEATHER], "tool_choice": {"type": "function", "function": {"name": "get_weather"}}}
STREAMED = {"stream": True, "stream_options": {"include_usage": True}}


def client():
    return OpenAI(base_url=f"{gateway_url()}/v1", api_key="unused", **CLIENT_OPTIONS)


def async_client():
    return AsyncOpenAI(base_url=f"{gateway_url()}/v1", api_key="unused", **CLIENT_OPTIONS)


def completion(answer):
    choice = answer.choices[0]
    calls = choice.message.tool_calls or []
    return {
        "text": choice.message.content,
        "finish_reason": choice.finish_reason,
        "tool_calls": [{"name": call.function.name, "arguments": json.loads(call.function.arguments)} for call in calls],
        "usage": {"prompt_tokens": answer.usage.prompt_tokens, "completion_tokens": answer.usage.completion_tokens},
    }


def streamed_completion(chunks):
    text, finish_reason, usage, calls = "", None, None, {}
    for chunk in chunks:
        if chunk.usage:
            usage = {"prompt_tokens": chunk.usage.prompt_tokens, "completion_tokens": chunk.usage.completion_tokens}
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                entry = calls.setdefault(call.index, {"name": "", "arguments": ""})
                entry["name"] += call.function.name or ""
                entry["arguments"] += call.function.arguments or ""
            finish_reason = choice.finish_reason or finish_reason
    return {
        "text": text,
        "finish_reason": finish_reason,
        "tool_calls": [{"name": call["name"], "arguments": json.loads(call["arguments"])} for call in calls.values()],
        "usage": usage,
    }


def response(answer, event_types=None):
    return {
        "text": answer.output_text,
        "status": answer.status,
        "usage": {"input_tokens": answer.usage.input_tokens, "output_tokens": answer.usage.output_tokens},
        "event_types": event_types,
    }


def responses_stream():
    with client().responses.stream(model=ROUTE, input="Hello") as stream:
        event_types = [event.type for event in stream]
        return response(stream.get_final_response(), event_types)


async def chat_async():
    async with async_client() as sdk:
        return completion(await sdk.chat.completions.create(model=ROUTE, messages=HELLO))


async def chat_streamed_async(**extra):
    async with async_client() as sdk:
        stream = await sdk.chat.completions.create(model=ROUTE, messages=HELLO, **STREAMED, **extra)
        return streamed_completion([chunk async for chunk in stream])


async def responses_stream_async():
    async with async_client() as sdk:
        async with sdk.responses.stream(model=ROUTE, input="Hello") as stream:
            event_types = [event.type async for event in stream]
            return response(await stream.get_final_response(), event_types)


run(
    {
        "chat": lambda: completion(client().chat.completions.create(model=ROUTE, messages=HELLO)),
        "chat streamed": lambda: streamed_completion(client().chat.completions.create(model=ROUTE, messages=HELLO, **STREAMED)),
        "chat async": chat_async,
        "chat streamed async": chat_streamed_async,
        "chat with tools": lambda: completion(client().chat.completions.create(model=ROUTE, messages=HELLO, **TOOLS)),
        "chat with tools streamed async": lambda: chat_streamed_async(**TOOLS),
        "responses.create": lambda: response(client().responses.create(model=ROUTE, input="Hello")),
        "responses.stream()": responses_stream,
        "responses.stream() async": responses_stream_async,
    }
)
