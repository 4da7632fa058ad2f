import { describe, expect, it } from 'vitest';
import { connectionSchema } from '../../src/config/schema.js';
import { anthropicMessagesBodySchema } from '../../src/dialects/anthropic-messages/anthropic-messages-schema.js';
import { parseAnthropicMessages } from '../../src/dialects/anthropic-messages/parse-anthropic-messages.js';
import { parseOpenAiChat } from '../../src/dialects/openai-chat/parse-openai-chat.js';
import { parseOpenAiResponses } from '../../src/dialects/openai-responses/parse-openai-responses.js';
import { adapterFor } from '../../src/providers/registry.js';
import type { CacheControl, ChatRequest } from '../../src/providers/spec.js';
import { readFixtureJson } from '../support/fixtures.js';

type Json = Record<string, unknown>;

const HOUR = { type: 'ephemeral', ttl: '1h' };
const EPHEMERAL = { type: 'ephemeral' };

/** The recorded Chat request with markers where clients that reach Claude over OpenAI's wire put them. */
function chatBody(): Json {
  const body = readFixtureJson('openai', 'chat-request-tools.json') as { messages: Json[] } & Json;
  const [system, user, assistant, tool] = body.messages as [Json, Json, Json, Json];
  return {
    ...body,
    prompt_cache_key: 'session-42',
    messages: [
      { ...system, content: [{ type: 'text', text: system.content, cache_control: HOUR }] },
      { ...user, content: [{ type: 'text', text: user.content, cache_control: EPHEMERAL }] },
      assistant,
      { ...tool, content: [{ type: 'text', text: tool.content, cache_control: EPHEMERAL }] },
    ],
  };
}

/** Each caller dialect's request as its parser makes it: markers (one of 1 h each), or a prompt_cache_key. */
const CALLERS: Record<string, () => ChatRequest> = {
  'Anthropic Messages': () => parseAnthropicMessages(readFixtureJson('anthropic', 'messages-request-cache-control-thinking.json')).request,
  'OpenAI Chat': () => parseOpenAiChat(chatBody()).request,
  'OpenAI Responses': () =>
    parseOpenAiResponses({ ...readFixtureJson('openai-responses-dialect', 'request-multi-turn.json'), prompt_cache_key: 'session-42' }).request,
};

interface Target {
  connection: Json;
  model: string;
  /** What becomes of cache markers there. */
  markers: 'cache_control' | 'cachePoint with ttl' | 'cachePoint' | 'none';
  promptCacheKey: boolean;
}

const TARGETS: Record<string, Target> = {
  Anthropic: { connection: { provider: 'anthropic' }, model: 'claude-sonnet-4-5', markers: 'cache_control', promptCacheKey: false },
  'Claude Sonnet 4.5 on Bedrock': {
    connection: { provider: 'bedrock', region: 'us-east-1' },
    model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    markers: 'cachePoint with ttl',
    promptCacheKey: false,
  },
  'Claude 3.7 Sonnet on Bedrock': {
    connection: { provider: 'bedrock', region: 'us-east-1' },
    model: 'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
    markers: 'cachePoint',
    promptCacheKey: false,
  },
  'Nova on Bedrock': { connection: { provider: 'bedrock', region: 'us-east-1' }, model: 'amazon.nova-pro-v1:0', markers: 'none', promptCacheKey: false },
  OpenAI: { connection: { provider: 'openai' }, model: 'gpt-4.1', markers: 'none', promptCacheKey: true },
  'Azure OpenAI': { connection: { provider: 'azure-openai', base_url: 'https://example.openai.azure.com' }, model: 'gpt-4.1', markers: 'none', promptCacheKey: true },
  Gemini: { connection: { provider: 'gemini' }, model: 'gemini-2.5-pro', markers: 'none', promptCacheKey: false },
  'an OpenAI-compatible host (Mistral)': {
    connection: { provider: 'openai-compatible', base_url: 'https://api.mistral.ai/v1' },
    model: 'mistral-large-latest',
    markers: 'none',
    promptCacheKey: false,
  },
  'the mock (OpenAI wire)': { connection: { provider: 'mock', dialect: 'openai' }, model: 'gpt-mock', markers: 'none', promptCacheKey: false },
  'the mock (Responses wire)': { connection: { provider: 'mock', dialect: 'openai-responses' }, model: 'gpt-mock', markers: 'none', promptCacheKey: false },
};

/** The body the target is sent, by the adapter the engine would pick (a Responses caller: the target's Responses API where it has one). */
function outbound(request: ChatRequest, target: Target): Json {
  const adapter = adapterFor(connectionSchema.parse(target.connection), target.model);
  const upstream = request.responsesBody !== undefined ? (adapter.responses ?? adapter) : adapter;
  return JSON.parse(upstream.buildRequest(request, { baseUrl: 'https://provider.test', routedModel: target.model }).body) as Json;
}

/** Every object in the body that has `name` as a key, in document order. */
function holders(value: unknown, name: string): Json[] {
  if (Array.isArray(value)) return value.flatMap((item) => holders(item, name));
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Json;
  return [...Object.values(record).flatMap((item) => holders(item, name)), ...(name in record ? [record] : [])];
}

/** The markers of a canonical request, wherever they are. */
function markersOf(request: ChatRequest): CacheControl[] {
  const marked: { cacheControl?: CacheControl | undefined }[] = [...(request.tools ?? [])];
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        marked.push(...(message.parts ?? []));
        break;
      case 'assistant':
        marked.push(...message.content, ...(message.toolCalls ?? []));
        break;
      case 'tool':
        marked.push(...message.content, message);
        break;
      case 'user':
        marked.push(...message.content);
    }
  }
  return marked.flatMap((item) => (item.cacheControl ? [item.cacheControl] : []));
}

const MARKERS_SENT: Record<string, number> = { 'Anthropic Messages': 4, 'OpenAI Chat': 3, 'OpenAI Responses': 0 };

describe.each(Object.keys(CALLERS))('a %s caller', (caller) => {
  it('is parsed with every marker it sent', () => {
    const markers = markersOf(CALLERS[caller]!());
    expect(markers).toHaveLength(MARKERS_SENT[caller]!);
    if (markers.length > 0) expect(markers.filter((marker) => marker.ttl === '1h')).toHaveLength(1);
  });

  it.each(Object.keys(TARGETS))('sends %s a body with the markers it takes, and nothing it would refuse', (name) => {
    const target = TARGETS[name]!;
    const request = CALLERS[caller]!();
    const body = outbound(request, target);
    const sentMarkers = markersOf(request);

    const cacheControls = holders(body, 'cache_control').map((holder) => holder.cache_control);
    const cachePoints = holders(body, 'cachePoint').map((holder) => holder.cachePoint as Json);
    if (target.markers === 'cache_control') {
      expect(cacheControls).toHaveLength(sentMarkers.length);
      expect(anthropicMessagesBodySchema.safeParse(body).success).toBe(true);
    } else {
      expect(cacheControls).toEqual([]);
    }
    if (target.markers.startsWith('cachePoint')) {
      expect(cachePoints).toHaveLength(sentMarkers.length);
      const ttls = target.markers === 'cachePoint with ttl' ? sentMarkers.map((marker) => marker.ttl) : sentMarkers.map(() => undefined);
      expect(cachePoints.map((point) => point.ttl).sort()).toEqual(ttls.sort());
    } else {
      expect(cachePoints).toEqual([]);
    }
    expect(body.prompt_cache_key).toBe(target.promptCacheKey && request.promptCacheKey !== undefined ? 'session-42' : undefined);
  });
});

describe('a cache marker on an OpenAI Chat content part that Anthropic would not take', () => {
  it('is left out, not refused', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'persistent' } }, { type: 'text', text: 'there', cache_control: { type: 'ephemeral', ttl: '10m' } }] }] };
    const request = parseOpenAiChat(body).request;
    expect(markersOf(request)).toEqual([]);
    expect(holders(outbound(request, TARGETS.Anthropic!), 'cache_control')).toEqual([]);
  });
});

describe('more cache markers than a provider takes', () => {
  const marked = (text: string) => ({ type: 'text', text, cache_control: EPHEMERAL });
  const sentEntry = { role: 'system', content: [marked('Mid-conversation reminder.')] };
  const body = {
    model: 'claude',
    max_tokens: 100,
    system: [marked('System A.'), marked('System B.')],
    messages: [
      { role: 'user', content: [marked('Turn 1.')] },
      { role: 'assistant', content: [marked('Answer 1.')] },
      sentEntry,
      { role: 'user', content: [marked('Turn 2.')] },
    ],
  };

  it('are cut to the last 4 for Anthropic, without touching the entry the caller sent', () => {
    const sent = outbound(parseAnthropicMessages(body).request, TARGETS.Anthropic!);
    // Anthropic reads system before the turns: the two system markers are the first, and go.
    expect(holders(sent, 'cache_control').map((holder) => holder.text)).toEqual(['Turn 1.', 'Answer 1.', 'Mid-conversation reminder.', 'Turn 2.']);
    expect(holders(sent.system, 'cache_control')).toEqual([]);
    expect(sentEntry.content[0]).toHaveProperty('cache_control');
  });

  it('are cut to the last 4 cache points for Claude on Bedrock', () => {
    const sent = outbound(parseAnthropicMessages(body).request, TARGETS['Claude Sonnet 4.5 on Bedrock']!);
    expect(holders(sent, 'cachePoint')).toHaveLength(4);
    // Converse has no system turn, so the entry joins system, where the first two points go.
    expect(sent.system).toEqual([{ text: 'System A.' }, { text: 'System B.' }, { text: 'Mid-conversation reminder.' }, { cachePoint: { type: 'default' } }]);
    expect((sent.messages as Json[])[0]).toEqual({ role: 'user', content: [{ text: 'Turn 1.' }, { cachePoint: { type: 'default' } }] });
  });
});
