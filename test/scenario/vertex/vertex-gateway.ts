import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { serviceAccountKeyJson } from '../../../src/mock/service-account-key.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

export interface VertexGateway {
  gateway: TestGateway;
  /** The mock playing Vertex and its token endpoint (the gateway's own mock plays the other providers). */
  vertex: MockProvider;
  close(): Promise<void>;
}

/**
 * A gateway with a `provider: vertex` connection named `vertex` whose service-account key (from
 * the environment, as an operator would give it) has its tokens exchanged at a mock's `/token`,
 * `tokenDirectives` appended (`?expires_in=3`, `?refuse=invalid_grant`). `body` is the rest of
 * the config: more connections and the routes; `mockRootPlaceholder` in it becomes the Vertex
 * mock's root URL, for more connections on it (Vertex's base_url is the root and `/v1`).
 */
export async function startVertexGateway(body: string, options: { tokenDirectives?: string; location?: string; mockRootPlaceholder?: string } = {}): Promise<VertexGateway> {
  const vertex = await startMockProvider();
  const key = serviceAccountKeyJson(`${vertex.url}/token${options.tokenDirectives ?? ''}`);
  const gateway = await startGateway(
    `
admin: { token: ${ADMIN_TOKEN} }
${(options.mockRootPlaceholder ? body.replaceAll(options.mockRootPlaceholder, vertex.url) : body).replace('connections:', `connections:\n  vertex: { provider: vertex, project: switchyard-test, location: ${options.location ?? 'us-east5'}, base_url: "${vertex.url}/v1", credentials_json: "\${env:VERTEX_SA_KEY}" }`)}
`,
    { env: { VERTEX_SA_KEY: key } },
  );
  return {
    gateway,
    vertex,
    async close() {
      await gateway.close();
      await vertex.close();
    },
  };
}
