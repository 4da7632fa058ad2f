import { z } from 'zod';

const MAX_MODEL_NAME_BYTES = 256;

/**
 * Printable ASCII only: every provider's model ids are, and the name travels on in places that
 * take nothing else (`x-switchyard-served-by`, URL paths); control characters never.
 */
const MODEL_NAME = new RegExp(`^[\\x20-\\x7e]{1,${MAX_MODEL_NAME_BYTES}}$`);

/** The `model` field of every inbound body. */
export const modelNameSchema = z
  .string()
  .regex(MODEL_NAME, `must be 1 to ${MAX_MODEL_NAME_BYTES} printable ASCII characters, without control characters`);
