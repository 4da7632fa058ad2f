import { readFileSync } from 'node:fs';
import type { ConnectionConfig } from './schema.js';
import { parseServiceAccountKey } from './service-account-key.js';

type Add = (path: PropertyKey[], message: string) => void;

/**
 * Vertex needs the project and location its paths name, and at most one key, which must be a
 * service-account key: a wrong one is said at load, naming the field, rather than at the first
 * request. No message quotes the key.
 */
export function checkVertex(name: string, connection: ConnectionConfig, add: Add): void {
  const path = (key: string) => ['connections', name, key];
  if (connection.project === undefined) add(path('project'), 'required for provider vertex (the Google Cloud project its requests name)');
  if (connection.location === undefined) add(path('location'), 'required for provider vertex (a region such as us-east5, or global)');
  const { credentials_file: file, credentials_json: json } = connection;
  if (file !== undefined && json !== undefined) {
    add(path('credentials_json'), 'give credentials_file or credentials_json, not both');
    return;
  }
  if (json !== undefined) {
    const parsed = parseServiceAccountKey(json);
    if (!parsed.ok) add(path('credentials_json'), `${parsed.reason}`);
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      add(path('credentials_file'), `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return;
    }
    const parsed = parseServiceAccountKey(text);
    if (!parsed.ok) add(path('credentials_file'), `${file} ${parsed.reason}`);
  }
}
