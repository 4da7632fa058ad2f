/**
 * Whether a model name is an embedding model's, as every provider spells them: OpenAI
 * `text-embedding-3-small`, Gemini `gemini-embedding-001` / `text-embedding-004`, Bedrock
 * `amazon.titan-embed-text-v2:0` / `cohere.embed-english-v3`, Mistral `mistral-embed`. The
 * gateway's own requests (a drill step, a health probe) send such a model an embeddings request:
 * a chat request would be refused (OpenAI answers 404), and that refusal is no finding.
 */
export function isEmbeddingModel(model: string): boolean {
  return /embed/i.test(model);
}
