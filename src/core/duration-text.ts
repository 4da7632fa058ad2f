/** Whole days or hours when the seconds make them, else seconds: `7 d`, `36 h`, `5400 s`. */
export function durationText(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  return `${seconds} s`;
}
