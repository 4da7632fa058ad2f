import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the admin commands look for a token when neither --token nor SWITCHYARD_ADMIN_TOKEN gives one (relative to the working directory). */
export const DEFAULT_ADMIN_TOKEN_FILE = join('.switchyard', 'admin-token');

/**
 * Mints a fresh admin token and writes it to `path`, readable by this user only. The file is
 * written beside its final name and renamed into place, so a reader never sees half a token and
 * an older file with looser permissions is replaced rather than reused.
 */
export function writeAdminTokenFile(path: string): string {
  const token = `sy-admin-${randomBytes(32).toString('base64url')}`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, `${token}\n`, { mode: 0o600 });
  // The mode given to writeFileSync is narrowed by the umask only; chmod makes it exact.
  chmodSync(partial, 0o600);
  renameSync(partial, path);
  return token;
}

/** The token in the file, or undefined when there is none to read. */
export function readAdminTokenFile(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  return text.trim() || undefined;
}
