/**
 * What Linux's /proc says about a process and the machine: CPU time (all of a process's threads,
 * so a gateway's store thread and GC threads count), resident memory, and the open-file limit.
 * The bench reads these rather than trusting a load generator's view of "fast", because CPU per
 * request does not move with how busy the machine is, while requests per second does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** /proc counts CPU time in clock ticks (USER_HZ, 100 on every usual Linux); `getconf` says for sure. */
const ticksPerSecond = readTicksPerSecond();
const microsPerTick = 1_000_000 / ticksPerSecond;

function readTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (Number.isInteger(ticks) && ticks > 0) return ticks;
  } catch {
    // No getconf: the kernel's fixed user-space value.
  }
  return 100;
}

/** User + system CPU time a process has used since it started, over all its threads, in µs. */
export function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2, the command name, is in parentheses and may hold spaces; the rest follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so utime (field 14) and stime (field 15) are at 11 and 12.
  return (Number(fields[11]) + Number(fields[12])) * microsPerTick;
}

export interface ProcessMemory {
  /** VmRSS: resident now. */
  rssBytes: number;
  /** VmHWM: the most it has been resident since it started (at least VmRSS). */
  peakRssBytes: number;
}

export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssBytes = statusKilobytes(status, 'VmRSS') * 1024;
  // The kernel updates VmHWM lazily, so it can trail a VmRSS read a moment later.
  return { rssBytes, peakRssBytes: Math.max(rssBytes, statusKilobytes(status, 'VmHWM') * 1024) };
}

function statusKilobytes(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match === null) throw new Error(`/proc status has no ${field} line`);
  return Number(match[1]);
}

/** The whole machine's CPU time since boot, over every CPU, in µs: busy (everything but idle and iowait) and all. */
export interface MachineCpu {
  busyUs: number;
  allUs: number;
}

export function machineCpu(): MachineCpu {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1, 9).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busyUs: busy * microsPerTick, allUs: (busy + idle! + iowait!) * microsPerTick };
}

/** This process's soft limit on open files (`ulimit -n`), and the hard one it may be raised to. */
export function openFileLimits(): { soft: number; hard: number } {
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  const parse = (text: string | undefined) => (text === undefined || text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text));
  return { soft: parse(match?.[1]), hard: parse(match?.[2]) };
}

/**
 * How many times, machine-wide, a listening socket's accept queue was full when a handshake
 * completed (TcpExt ListenOverflows): each one a connection the client must retry, after 1 s,
 * then 3, then 7.
 */
export function listenOverflows(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
  const names = lines[0]?.split(/\s+/) ?? [];
  const values = lines[1]?.split(/\s+/) ?? [];
  const index = names.indexOf('ListenOverflows');
  return index === -1 ? 0 : Number(values[index]);
}
