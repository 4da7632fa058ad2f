import type { UpstreamDialect } from '../providers/spec.js';
import { asRecord as record } from './answer.js';

/** A request for a JSON answer: with the schema it must fit, or any JSON object (`json_object`). */
export interface RequestedJson {
  schema?: unknown;
}

/**
 * Whether the request asks for structured output, where each wire format says so: OpenAI
 * `response_format` (`json_schema` / `json_object`), Anthropic `output_config.format` (and the
 * older `output_format`), Gemini `generationConfig` (`responseJsonSchema`, `responseSchema`, or
 * `responseMimeType: application/json` alone), Bedrock `outputConfig.textFormat` (its schema is a
 * JSON string).
 */
export function requestedJson(dialect: UpstreamDialect, body: Record<string, unknown>): RequestedJson | undefined {
  switch (dialect) {
    case 'openai': {
      const format = record(body.response_format);
      if (format?.type === 'json_object') return {};
      if (format?.type === 'json_schema') return { schema: record(format.json_schema)?.schema };
      return undefined;
    }
    case 'openai-responses': {
      const format = record(record(body.text)?.format);
      if (format?.type === 'json_object') return {};
      if (format?.type === 'json_schema') return { schema: format.schema };
      return undefined;
    }
    case 'anthropic': {
      const format = record(record(body.output_config)?.format) ?? record(body.output_format);
      return format?.type === 'json_schema' ? { schema: format.schema } : undefined;
    }
    case 'gemini': {
      // Gemini's REST API takes snake_case field names too.
      const config = record(body.generationConfig) ?? record(body.generation_config);
      if (!config) return undefined;
      const schema = config.responseJsonSchema ?? config.response_json_schema ?? config.responseSchema ?? config.response_schema;
      if (schema !== undefined) return { schema };
      const mimeType = config.responseMimeType ?? config.response_mime_type;
      return mimeType === 'application/json' ? {} : undefined;
    }
    case 'bedrock': {
      const format = record(record(body.outputConfig)?.textFormat);
      if (format?.type !== 'json_schema') return undefined;
      const schema = record(record(format.structure)?.jsonSchema)?.schema;
      return { schema: typeof schema === 'string' ? parseSchemaText(schema) : schema };
    }
  }
}

/** Left as the text when it is not JSON: the value generator then refuses it by name. */
function parseSchemaText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
