import { Redis } from 'ioredis';

/**
 * What the bench's own redis-server ran while `action` did: its pid (whose CPU the bench reads
 * from /proc) and the commands others sent it meanwhile. One connection reads both counts, so
 * only the second `INFO` itself is to be discounted.
 */
export async function redisCommandsDuring(url: string, action: () => Promise<void>): Promise<{ pid: number; commands: number }> {
  const client = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true });
  try {
    await client.connect();
    const before = await client.info();
    await action();
    const after = await client.info();
    return { pid: infoNumber(after, 'process_id'), commands: infoNumber(after, 'total_commands_processed') - infoNumber(before, 'total_commands_processed') - 1 };
  } finally {
    client.disconnect();
  }
}

function infoNumber(info: string, field: string): number {
  const match = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
  if (match === null) throw new Error(`redis INFO has no ${field}`);
  return Number(match[1]);
}
