/**
 * The request's settings a Responses object repeats (`instructions`, `tools`, `temperature`, …),
 * with the defaults OpenAI reports for fields the caller left out.
 */
export type ResponsesEcho = {
  instructions: string | null;
  /** The stored response this one continues (its conversation was expanded before parsing). */
  previous_response_id: string | null;
  max_output_tokens: number | null;
  parallel_tool_calls: boolean;
  reasoning: { effort: string | null; summary: string | null };
  store: boolean;
  temperature: number;
  text: { format: unknown; verbosity?: string };
  tool_choice: unknown;
  tools: readonly unknown[];
  top_p: number;
  user: string | null;
  metadata: Record<string, string>;
};
