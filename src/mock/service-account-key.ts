import { generateKeyPairSync } from 'node:crypto';

let privateKeyPem: string | undefined;

/**
 * A Google service-account key's JSON, as Google Cloud downloads it, with a fresh RSA key (made
 * once per process) and `token_uri` where its tokens are exchanged: the mock's `/token`, whose
 * tokens the mock's Vertex routes take (a rehearsal's Vertex stand-in, tests).
 */
export function serviceAccountKeyJson(tokenUri: string, clientEmail = 'gateway@switchyard-test.iam.gserviceaccount.com'): string {
  privateKeyPem ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return JSON.stringify({
    type: 'service_account',
    project_id: 'switchyard-test',
    private_key_id: 'test-key-1',
    private_key: privateKeyPem,
    client_email: clientEmail,
    client_id: '100000000000000000001',
    token_uri: tokenUri,
  });
}
