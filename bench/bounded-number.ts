/** A command-line number within bounds (`whole`: an integer too); throws naming the flag, so every run stays bounded. */
export function boundedNumber(flag: string, text: string, min: number, max: number, whole: boolean): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
    throw new Error(`${flag} must be a ${whole ? 'whole ' : ''}number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}
