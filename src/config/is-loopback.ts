/** An IPv4 address in 127.0.0.0/8, written out. */
const IPV4_LOOPBACK = /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/**
 * Whether a host name or address (a bracketed IPv6 one too) stays on this machine: 127.0.0.0/8,
 * ::1 or localhost. Without node:net, as the config schema that uses it is read by the
 * dashboard's type check too.
 */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const bare = host.replace(/^\[|\]$/g, '');
  return IPV4_LOOPBACK.test(bare) || bare === '::1';
}
