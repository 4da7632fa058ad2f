import type { CommitPolicy } from '../config/schema.js';
import { estimateTokens, outputCharactersOfResult, requestCharacters } from '../metering/estimate-tokens.js';
import { trustedUsage } from '../metering/trusted-usage.js';
import type { ChatRequest, ChatResult, ProviderAdapter, StreamEvent, UpstreamDialect } from '../providers/spec.js';
import { createFrameDecoder } from '../streaming/create-frame-decoder.js';
import { readEventBatches } from '../streaming/read-event-batches.js';
import { forwardCommitted } from './forward-committed.js';
import { relayingParser } from './relaying-parser.js';
import { readToCommitPoint } from './read-to-commit-point.js';
import { EMPTY_ANSWER, isEmptyResult } from './empty-answer.js';
import { asksForReasoning } from './asks-for-reasoning.js';
import { withoutThinkingBlocks } from './without-thinking.js';
import type { Operation } from './run-attempt.js';

/**
 * A chat answer: whole, or a committed stream in batches whose first holds what was read up to
 * the commit point; `upstream` is the wire format that answered.
 */
export type ChatAnswer = ({ result: ChatResult; relayedBody?: string } | { events: AsyncIterable<StreamEvent[]>; relayed?: true }) & { upstream: UpstreamDialect };

export interface ChatOperationOptions {
  /** Only targets on their own Responses API are tried (a route's `hosted_tools: skip_target`). */
  responsesTargetsOnly?: boolean;
}

/**
 * A chat completion attempt. A non-streamed answer is read whole; a stream is read up to the
 * route's commit point, and any failure before it is a failed attempt that the caller never saw.
 * A target speaking the caller's own wire format (and a connection that allows it) is relayed:
 * sent the caller's body with the gateway's edits, its answer kept as sent for the caller (the
 * body, or each frame of a stream beside the events the engine reads).
 * A Responses caller is served by a target's own Responses API where the provider has one; its
 * HTTP errors are in the same OpenAI envelope, so the target's adapter reads them either way.
 */
export function chatOperation(request: ChatRequest, commit: CommitPolicy, options: ChatOperationOptions = {}): Operation<ChatAnswer> {
  const upstreamOf = (adapter: ProviderAdapter): ProviderAdapter => (request.responsesBody !== undefined ? (adapter.responses ?? adapter) : adapter);
  const relays = (adapter: ProviderAdapter, allowed: boolean | undefined): boolean =>
    allowed === true && adapter.relay !== undefined && request.callerBody !== undefined && request.callerBody.dialect === adapter.dialect;
  return {
    name: options.responsesTargetsOnly ? 'hosted tools (hosted_tools: skip_target)' : 'chat completions',
    ...(request.stream ? { streamedInputTokens: estimateTokens(requestCharacters(request)) } : {}),
    asksForReasoning: asksForReasoning(request),
    ...(options.responsesTargetsOnly ? { accepts: (adapter: ProviderAdapter) => upstreamOf(adapter).dialect === 'openai-responses' } : {}),
    withoutThinking() {
      const stripped = withoutThinkingBlocks(request);
      return stripped === undefined ? undefined : chatOperation(stripped, commit, options);
    },
    build(adapter, target) {
      const upstream = upstreamOf(adapter);
      const relayed = relays(upstream, target.relay) ? upstream.relay!(request.callerBody!.text, request, target) : undefined;
      return relayed ? { ...relayed, relayed: true } : upstream.buildRequest(request, target);
    },
    estimateInputTokens: () => estimateTokens(requestCharacters(request)),
    async discard(answer) {
      if (!('events' in answer)) return;
      // Its forwarder releases the upstream (and settles the attempt) once it has been started.
      const events = answer.events[Symbol.asyncIterator]();
      await events.next();
      await events.return?.();
    },
    async read(response, context, input) {
      const adapter = upstreamOf(input.adapter);
      // Decided when the request was built, and kept on its record.
      const relayed = context.record.relay === true;
      if (!request.stream) {
        context.timer.arm('idle', input.timeouts.idle_ms);
        const text = await response.body.text();
        const result = adapter.parseResponse(JSON.parse(text));
        if (result.finishReason === 'content_filter' && result.text === '' && result.toolCalls.length === 0) {
          return context.fail({ kind: 'moderation', code: 'content_filter', message: 'the provider refused to answer (content filter)' });
        }
        if (isEmptyResult(result)) {
          // Generated and billed all the same.
          context.billed(result.usage);
          return context.fail(EMPTY_ANSWER);
        }
        // Providers that do not say which model answered (Bedrock) answered with the routed one.
        if (!result.responseModel) result.responseModel = input.target.routedModel;
        // The caller is shown the same usage the ledger is charged: a body whose usage had to be estimated is rendered, not relayed.
        const reported = result.usage;
        if (reported) {
          result.usage = trustedUsage(reported, () => ({
            inputTokens: estimateTokens(requestCharacters(request)),
            outputTokens: estimateTokens(outputCharactersOfResult(result)),
          }));
        }
        const relayedBody = relayed && result.usage === reported ? { relayedBody: text } : {};
        return context.answeredWhole({ result, upstream: adapter.dialect, ...relayedBody }, result.usage);
      }

      const parser = adapter.createStreamParser();
      const batches = readEventBatches(response.body, createFrameDecoder(adapter.framing), relayed ? relayingParser(parser, { includeUsage: request.includeUsage }) : parser);
      const estimateInputTokens = () => estimateTokens(requestCharacters(request));
      const ready = await readToCommitPoint(batches, context, {
        commit,
        timeouts: input.timeouts,
        estimateInputTokens,
        shownReasoning: request.shownReasoning,
      });
      if (!('held' in ready)) {
        void batches.return();
        return context.fail(ready);
      }
      nameTheAnsweringModel(ready.held, input.target.routedModel);
      return context.answered({ events: forwardCommitted(ready, batches, context), upstream: adapter.dialect, ...(relayed ? { relayed: true as const } : {}) });
    },
  };
}

/** A stream whose provider does not say which model answered (Bedrock) answered with the routed one. */
function nameTheAnsweringModel(held: StreamEvent[], routedModel: string): void {
  const start = held.find((event) => event.type === 'response-start');
  if (start === undefined) held.unshift({ type: 'response-start', responseModel: routedModel });
  else if (!start.responseModel) start.responseModel = routedModel;
}
