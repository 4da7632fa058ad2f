/**
 * What the session-affinity tests share: routes that spread requests evenly over two accounts of
 * one provider (each with a prompt cache of its own), and a turn sent as Claude Code sends one.
 */

/** Connections `account-a` and `account-b`, and for each name a `weighted` route over both, with the YAML lines given. */
export function weightedOverTwoAccounts(routes: Record<string, string>): string {
  const routeYaml = Object.entries(routes).map(
    ([name, lines]) => `  ${name}:
    strategy: weighted
    ${lines}
    targets:
      - { connection: account-a, model: claude-mock }
      - { connection: account-b, model: claude-mock }`,
  );
  return `connections:
  account-a: { provider: mock, dialect: anthropic }
  account-b: { provider: mock, dialect: anthropic }
routes:
${routeYaml.join('\n')}
`;
}

/** One turn as Claude Code sends it: `POST /v1/messages` with the session in `x-claude-code-session-id`; the body is read. */
export async function claudeCodeTurn(gatewayUrl: string, options: { route: string; session: string; text: string }): Promise<Response> {
  const response = await fetch(`${gatewayUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-claude-code-session-id': options.session },
    body: JSON.stringify({ model: options.route, max_tokens: 64, stream: false, messages: [{ role: 'user', content: options.text }] }),
    signal: AbortSignal.timeout(15_000),
  });
  await response.arrayBuffer();
  return response;
}
