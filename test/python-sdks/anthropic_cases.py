"""The `anthropic` Python SDK against the quick start's `demo-claude` route: Messages, every way it is called."""

from anthropic import Anthropic, AsyncAnthropic

from sdk_cases import CLIENT_OPTIONS, gateway_url, run

ROUTE = "demo-claude"
HELLO = {"model": ROUTE, "max_tokens": 64, "messages": [{"role": "user", "content": "Hello"}]}
WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
TOOLS = {"tools": [WEATHER], "tool_choice": {"type": "tool", "name": "get_weather"}}


def client():
    return Anthropic(base_url=gateway_url(), api_key="unused", **CLIENT_OPTIONS)


def async_client():
    return AsyncAnthropic(base_url=gateway_url(), api_key="unused", **CLIENT_OPTIONS)


def message(answer, event_types=None):
    return {
        "text": "".join(block.text for block in answer.content if block.type == "text"),
        "tool_uses": [{"name": block.name, "input": block.input} for block in answer.content if block.type == "tool_use"],
        "stop_reason": answer.stop_reason,
        "usage": {"input_tokens": answer.usage.input_tokens, "output_tokens": answer.usage.output_tokens},
        "event_types": event_types,
    }


def raw_stream(events):
    """The events of `create(stream=True)`, read as a caller without the helper would."""
    text, stop_reason, usage, event_types = "", None, {}, []
    for event in events:
        event_types.append(event.type)
        if event.type == "message_start":
            usage["input_tokens"] = event.message.usage.input_tokens
        elif event.type == "content_block_delta" and event.delta.type == "text_delta":
            text += event.delta.text
        elif event.type == "message_delta":
            stop_reason = event.delta.stop_reason
            usage["output_tokens"] = event.usage.output_tokens
    return {"text": text, "tool_uses": [], "stop_reason": stop_reason, "usage": usage, "event_types": event_types}


def stream_helper(**extra):
    with client().messages.stream(**HELLO, **extra) as stream:
        event_types = [event.type for event in stream]
        return message(stream.get_final_message(), event_types)


async def create_async():
    async with async_client() as sdk:
        return message(await sdk.messages.create(**HELLO))


async def create_streamed_async():
    async with async_client() as sdk:
        return raw_stream([event async for event in await sdk.messages.create(**HELLO, stream=True)])


async def stream_helper_async(**extra):
    async with async_client() as sdk:
        async with sdk.messages.stream(**HELLO, **extra) as stream:
            text = "".join([text async for text in stream.text_stream])
            answer = message(await stream.get_final_message())
            return {**answer, "text_stream": text}


run(
    {
        "messages.create": lambda: message(client().messages.create(**HELLO)),
        "messages.create streamed": lambda: raw_stream(client().messages.create(**HELLO, stream=True)),
        "messages.create async": create_async,
        "messages.create streamed async": create_streamed_async,
        "messages.stream()": stream_helper,
        "messages.stream() async": stream_helper_async,
        "messages.create with tools": lambda: message(client().messages.create(**HELLO, **TOOLS)),
        "messages.stream() with tools async": lambda: stream_helper_async(**TOOLS),
    }
)
