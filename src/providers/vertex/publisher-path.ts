import { joinUrl } from '../shared/join-url.js';

/** Whose models a Vertex path names: Anthropic's Claude, or Google's own (Gemini, the embedding models). */
export type VertexPublisher = 'anthropic' | 'google';

/**
 * `{prefix}/publishers/{publisher}/models/{model}:{method}`, where the prefix is
 * `{base_url}/projects/{project}/locations/{location}`. The model is encoded (the mock reads
 * directives from `?…` in a name) except its `@`, which Vertex's own spellings carry
 * (`claude-sonnet-4-5@20250929`) and which Google's clients send as it is.
 */
export function publisherModelUrl(prefix: string, publisher: VertexPublisher, model: string, method: string): string {
  const name = encodeURIComponent(model).replaceAll('%40', '@');
  return joinUrl(prefix, `/publishers/${publisher}/models/${name}:${method}`);
}
