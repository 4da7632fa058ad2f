import type { ConnectionFacts, ConnectionIssue } from './provider-table.js';
import { parseServiceAccountKey } from './vertex/service-account-key.js';

/**
 * Vertex needs the project and location its paths name, and at most one key, which must be a
 * service-account key: a wrong one is said at load, naming the field, rather than at the first
 * request. No message quotes the key.
 */
export function checkVertex(connection: ConnectionFacts, readText: (path: string) => string): ConnectionIssue[] {
  const issues: ConnectionIssue[] = [];
  if (connection.project === undefined) issues.push({ key: 'project', message: 'required for provider vertex (the Google Cloud project its requests name)' });
  if (connection.location === undefined) issues.push({ key: 'location', message: 'required for provider vertex (a region such as us-east5, or global)' });
  const { credentials_file: file, credentials_json: json } = connection;
  if (file !== undefined && json !== undefined) return [...issues, { key: 'credentials_json', message: 'give credentials_file or credentials_json, not both' }];
  if (json !== undefined) {
    const parsed = parseServiceAccountKey(json);
    if (!parsed.ok) issues.push({ key: 'credentials_json', message: parsed.reason });
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = readText(file);
    } catch (error) {
      return [...issues, { key: 'credentials_file', message: `cannot read ${file} (${(error as { code?: string }).code ?? 'error'})` }];
    }
    const parsed = parseServiceAccountKey(text);
    if (!parsed.ok) issues.push({ key: 'credentials_file', message: `${file} ${parsed.reason}` });
  }
  return issues;
}
