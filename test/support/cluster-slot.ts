/**
 * The hash slot Redis Cluster places a key in, computed as Redis does (the cluster specification:
 * CRC16-XMODEM of the key's hash tag — the bytes between its first `{` and the next `}`, when
 * there are any — or of the whole key, modulo 16384), so a test can check keys without a server.
 * The cluster tests check it against `CLUSTER KEYSLOT`.
 */
export function clusterSlotOf(key: string): number {
  const bytes = Buffer.from(key);
  const open = bytes.indexOf(0x7b);
  const close = open === -1 ? -1 : bytes.indexOf(0x7d, open + 1);
  const hashed = close > open + 1 ? bytes.subarray(open + 1, close) : bytes;
  return crc16(hashed) % 16_384;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
