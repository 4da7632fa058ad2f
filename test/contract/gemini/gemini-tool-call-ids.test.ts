import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../../src/providers/gemini/adapter.js';
import { SKIP_SIGNATURE_VALIDATION } from '../../../src/providers/gemini/to-gemini-contents.js';
import { readToolCallId, toolCallIdOf } from '../../../src/providers/gemini/tool-call-id.js';
import type { ChatMessage, ChatRequest, ToolCall } from '../../../src/providers/spec.js';
import { userText } from '../../support/adapter-calls.js';
import { readFixture, replaySse, summarizeStream } from '../../support/fixtures.js';

const PROVIDER = 'gemini';
const TARGET = { baseUrl: 'https://generativelanguage.googleapis.com/v1beta', routedModel: 'gemini-3-pro-preview' };

type Json = Record<string, unknown>;

/** The follow-up turn a client sends after running the tools: the calls, then one result each. */
function followUp(toolCalls: ToolCall[], results: string[]): ChatRequest {
  return {
    messages: [
      userText('What is the weather?'),
      { role: 'assistant', content: [], toolCalls },
      ...toolCalls.map((call, position): ChatMessage => ({
        role: 'tool',
        toolCallId: call.id,
        content: [{ type: 'text', text: results[position] ?? '' }],
      })),
    ],
    stream: false,
    includeUsage: false,
  };
}

function contentsOf(request: ChatRequest, target = TARGET): Json[] {
  return (JSON.parse(geminiAdapter.buildRequest(request, target).body) as { contents: Json[] }).contents;
}

describe('Gemini tool-call ids', () => {
  it('round-trip a signature and Gemini’s own id, in characters every provider accepts', () => {
    const cases = [
      { index: 0, responseId: 'm36LaZGyCLz1xs0PtNSB-QU', signature: 'EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5' },
      { index: 1, responseId: 'FugfaZasF6ra2roP_9i9KQ', signature: 'c2lnbmF0dXJlIQ==' },
      { index: 2, signature: 'YWJjZA==' },
      { index: 0, geminiId: 'fc_7', signature: 'c2ln' },
      { index: 3, geminiId: 'call-12' },
      { index: 4, responseId: 'r/with:odd=chars' },
    ];
    for (const input of cases) {
      const id = toolCallIdOf(input);
      expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(readToolCallId(id)).toEqual({ geminiId: input.geminiId, signature: input.signature });
    }
  });

  it('stay short without a signature, and differ between the calls and turns of a conversation', () => {
    expect(toolCallIdOf({ index: 0, responseId: 'FugfaZasF6ra2roP_9i9KQ' })).toBe('gmx14_0-FugfaZasF6ra');
    expect(toolCallIdOf({ index: 1, responseId: 'FugfaZasF6ra2roP_9i9KQ' })).toBe('gmx14_1-FugfaZasF6ra');
    expect(toolCallIdOf({ index: 0, responseId: 'm36LaZGyCLz1xs0PtNSB-QU' })).toBe('gmx14_0-m36LaZGyCLz1');
    expect(toolCallIdOf({ index: 0, geminiId: 'fc_7' })).toBe('gmi4_fc_7');
  });

  it('restore nothing from ids of other forms, and leave out a signature that is not base64', () => {
    for (const id of ['call_abc123', 'toolu_01A9HHF5Ezy3oBrKmSgfASm9', 'gmx99_short', 'gmx2_0-sig.nature', 'gm', '']) {
      expect(readToolCallId(id)).toEqual({});
    }
    expect(toolCallIdOf({ index: 0, signature: 'not base64!' })).toBe('gmx1_0');
  });
});

describe('Gemini function calls across turns', () => {
  it('carry the signature and function name from a parsed response into the follow-up request', () => {
    const response = JSON.parse(readFixture(PROVIDER, 'generateContent-response-function-call.json')) as Json;
    const { toolCalls } = geminiAdapter.parseResponse(response);
    const contents = contentsOf(followUp(toolCalls, ['{"temperature_f": 61, "condition": "fog"}']));
    const [recordedPart] = (response as { candidates: { content: { parts: Json[] } }[] }).candidates[0]!.content.parts;
    expect(contents.slice(1)).toEqual([
      // Exactly the part Gemini sent.
      { role: 'model', parts: [recordedPart] },
      { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { temperature_f: 61, condition: 'fog' } } }] },
    ]);
  });

  it('carry a padded signature from a streamed answer into the follow-up request', async () => {
    const sse = readFixture(PROVIDER, 'stream-function-call.sse');
    const [call] = summarizeStream(await replaySse(sse, geminiAdapter)).toolCalls;
    const signature = /"thoughtSignature": "([^"]+)"/.exec(sse)![1]!;
    expect(signature.endsWith('=')).toBe(true);
    const contents = contentsOf(followUp([{ id: call!.id, name: call!.name, arguments: call!.arguments }], ['sunny, 18C']));
    expect(contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'getWeather', args: { location: 'Tokyo' } }, thoughtSignature: signature }] },
      { role: 'user', parts: [{ functionResponse: { name: 'getWeather', response: { output: 'sunny, 18C' } } }] },
    ]);
  });

  it('send Gemini’s own call id back on the call and on its result', () => {
    const { toolCalls } = geminiAdapter.parseResponse({
      responseId: 'r9',
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { id: 'fc-1', name: 'clock', args: { zone: 'UTC' } }, thoughtSignature: 'c2lnMQ==' }] },
          finishReason: 'STOP',
        },
      ],
    });
    expect(contentsOf(followUp(toolCalls, ['12:00'])).slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { id: 'fc-1', name: 'clock', args: { zone: 'UTC' } }, thoughtSignature: 'c2lnMQ==' }] },
      { role: 'user', parts: [{ functionResponse: { id: 'fc-1', name: 'clock', response: { output: '12:00' } } }] },
    ]);
  });

  it('give a Gemini 3 target the documented stand-in for calls that never had a signature', () => {
    const foreignCalls: ToolCall[] = [
      { id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_def', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ];
    const request = followUp(foreignCalls, ['18C', '21C']);
    const modelParts = (target: typeof TARGET): Json[] => (contentsOf(request, target)[1] as { parts: Json[] }).parts;
    // Only the first call of a step needs one.
    expect(modelParts(TARGET).map((part) => part.thoughtSignature)).toEqual([SKIP_SIGNATURE_VALIDATION, undefined]);
    expect(modelParts({ ...TARGET, routedModel: 'models/gemini-3-flash' })[0]!.thoughtSignature).toBe(SKIP_SIGNATURE_VALIDATION);
    // Older generations do not check signatures.
    expect(modelParts({ ...TARGET, routedModel: 'gemini-2.5-flash' })[0]).not.toHaveProperty('thoughtSignature');
    // A real signature is never replaced.
    const signed = [{ ...foreignCalls[0]!, id: toolCallIdOf({ index: 0, signature: 'c2ln' }) }, foreignCalls[1]!];
    const parts = (contentsOf(followUp(signed, ['18C', '21C']))[1] as { parts: Json[] }).parts;
    expect(parts.map((part) => part.thoughtSignature)).toEqual(['c2ln', undefined]);
  });
});
