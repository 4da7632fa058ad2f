import { describe, expect, it } from 'vitest';
import { createCompatibleAdapter } from '../../../src/providers/openai-compatible/adapter.js';
import {
  COMPATIBLE_HOSTS,
  GENERIC_COMPATIBLE_HOST,
  resolveCompatibleHost,
} from '../../../src/providers/openai-compatible/hosts.js';
import type { ChatRequest } from '../../../src/providers/spec.js';

describe('resolveCompatibleHost', () => {
  it.each([
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://api.together.xyz/v1', 'together'],
    ['https://api.fireworks.ai/inference/v1', 'fireworks'],
    ['https://api.deepseek.com', 'deepseek'],
    ['https://API.Mistral.ai/v1/', 'mistral'],
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['https://api.x.ai/v1', 'xai'],
    ['https://api.perplexity.ai', 'perplexity'],
    ['http://localhost:11434/v1', 'ollama'],
    ['http://127.0.0.1:11434/v1', 'ollama'],
    ['http://localhost:8000/v1', 'vllm'],
    ['http://127.0.0.1:1234/v1', 'lm-studio'],
  ])('matches %s to %s', (baseUrl, name) => {
    expect(resolveCompatibleHost(baseUrl).name).toBe(name);
  });

  it.each([['http://localhost:9999/v1'], ['https://llm.internal.example/v1'], [''], ['not a url']])(
    'gives %j the generic row: bearer auth, nothing dropped',
    (baseUrl) => {
      const host = resolveCompatibleHost(baseUrl);
      expect(host).toBe(GENERIC_COMPATIBLE_HOST);
      expect(host.auth).toEqual({ header: 'authorization', scheme: 'Bearer' });
      expect(host.dropParams).toEqual([]);
    },
  );

  it('drops what the hosts document as rejected or unknown', () => {
    expect(resolveCompatibleHost('https://api.groq.com/openai/v1').dropParams).toEqual(['logprobs', 'logit_bias', 'top_logprobs']);
    expect(resolveCompatibleHost('https://api.perplexity.ai').dropParams).toEqual(['max_completion_tokens']);
    expect(resolveCompatibleHost('http://localhost:11434/v1').dropParams).toEqual(['max_completion_tokens']);
    expect(resolveCompatibleHost('https://api.mistral.ai/v1').dropParams).toEqual(
      expect.arrayContaining(['max_completion_tokens', 'stream_options', 'user']),
    );
  });

  it('keeps the table unambiguous: unique names and hostnames, defaults that resolve to their own row', () => {
    const names = COMPATIBLE_HOSTS.map((host) => host.name);
    expect(new Set(names).size).toBe(names.length);
    const hostnames = COMPATIBLE_HOSTS.flatMap((host) => host.hostnames);
    expect(new Set(hostnames).size).toBe(hostnames.length);
    for (const host of COMPATIBLE_HOSTS) {
      expect(host.defaultBaseUrl, host.name).toBeDefined();
      expect(resolveCompatibleHost(host.defaultBaseUrl ?? '').name).toBe(host.name);
      expect(host.hostnames.every((hostname) => hostname === hostname.toLowerCase())).toBe(true);
    }
  });
});

describe('createCompatibleAdapter', () => {
  const request: ChatRequest = {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    maxOutputTokens: 256,
    user: 'user-7',
    stream: true,
    includeUsage: false,
    passthrough: { dialect: 'openai', fields: { max_completion_tokens: 256, logprobs: true, seed: 3 } },
  };

  function bodyFor(baseUrl: string): Record<string, unknown> {
    const adapter = createCompatibleAdapter(baseUrl);
    expect(adapter.dialect).toBe('openai');
    const upstream = adapter.buildRequest(request, { baseUrl, routedModel: 'some-model' });
    expect(upstream.url).toBe(`${baseUrl.replace(/\/$/, '')}/chat/completions`);
    expect(upstream.headers).toEqual({ 'content-type': 'application/json' });
    return JSON.parse(upstream.body) as Record<string, unknown>;
  }

  it('passes everything through to an unknown host, in the name the caller used', () => {
    expect(bodyFor('https://llm.internal.example/v1')).toEqual({
      model: 'some-model',
      messages: [{ role: 'user', content: 'Hi' }],
      max_completion_tokens: 256,
      user: 'user-7',
      stream: true,
      stream_options: { include_usage: true },
      logprobs: true,
      seed: 3,
    });
  });

  it('removes the fields Groq rejects', () => {
    const body = bodyFor('https://api.groq.com/openai/v1');
    expect(body).not.toHaveProperty('logprobs');
    expect(body).toMatchObject({ max_completion_tokens: 256, seed: 3, stream_options: { include_usage: true } });
  });

  it('sends Mistral only fields its strict schema knows, with the limit as max_tokens', () => {
    expect(bodyFor('https://api.mistral.ai/v1')).toEqual({
      model: 'some-model',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 256,
      stream: true,
    });
  });

  it('sends Ollama the limit as max_tokens, the name it knows', () => {
    const body = bodyFor('http://localhost:11434/v1');
    expect(body).toMatchObject({ max_tokens: 256, stream_options: { include_usage: true } });
    expect(body).not.toHaveProperty('max_completion_tokens');
  });
});
