/** Gateways that gate every request by virtual key: the config lines that turn it on, and making a key. */

export interface CreatedKey {
  id: string;
  /** The secret, shown once at creation. */
  key: string;
  /** Whether the key may name `connection/model` directly. */
  direct: boolean;
}

/** The config lines of a gateway that wants a virtual key on every request and takes admin calls with the token. */
export function keysAuth(adminToken: string): string {
  return `auth: { mode: keys }\nadmin: { token: ${adminToken} }`;
}

/** `POST /admin/keys` with the given fields (at least `name`); anything but 201 fails the test. */
export async function createKey(gatewayUrl: string, adminToken: string, fields: Record<string, unknown>): Promise<CreatedKey> {
  const response = await fetch(`${gatewayUrl}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(fields),
    signal: AbortSignal.timeout(5_000),
  });
  if (response.status !== 201) throw new Error(`POST /admin/keys → ${response.status}: ${await response.text()}`);
  return (await response.json()) as CreatedKey;
}
