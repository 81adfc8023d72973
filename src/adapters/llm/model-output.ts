import * as z from '../../domain/zod-mini.ts';
import { GenerationFailedError } from '../../ports/generation-errors.ts';

/**
 * The model output as a value: a chat answer's JSON text is parsed (a Markdown fence around it is
 * tolerated), and top-level fields sent as JSON strings (some models do this with tool inputs) are
 * parsed in place. Both are harmless slips, repaired instead of spending a re-ask on them.
 */
export function parseModelOutput(output: unknown): unknown {
  const value = typeof output === 'string' ? parseJson(output) : output;
  if (!isRecord(value)) return value;
  const repaired: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) repaired[key] = unstringify(field);
  return repaired;
}

/** Parses `value` with `schema`, or throws a reason naming up to three wrong paths (never the values). */
export function parseWith<S extends z.core.$ZodType>(schema: S, value: unknown, label: string): z.output<S> {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message.slice(0, 80)}`)
    .join('; ');
  throw new GenerationFailedError(`The model output does not match the ${label} schema (${where})`);
}

function parseJson(text: string): unknown {
  // JSON-mode servers without a schema sometimes wrap the object in a Markdown code fence.
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(unfenced);
  } catch {
    throw new GenerationFailedError(`The model output is not valid JSON (${text.length} characters)`);
  }
}

function unstringify(field: unknown): unknown {
  if (typeof field !== 'string' || !/^\s*[[{]/.test(field)) return field;
  try {
    return JSON.parse(field);
  } catch {
    return field;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
