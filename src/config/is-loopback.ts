import { isIP } from 'node:net';

/** Whether a host name or address (a bracketed IPv6 one too) stays on this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1';
  return false;
}
