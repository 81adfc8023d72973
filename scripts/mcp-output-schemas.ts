import { parse } from 'yaml';
import { CONTRACT_RESULTS } from '../src/mcp/contract-results.ts';

type Json = Record<string, unknown>;

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;
/**
 * Keywords left out of the tools' output schemas: examples and descriptions are for people reading
 * the contract, and they would more than double what every client downloads with tools/list (the
 * tool descriptions say what the results mean).
 */
const LEFT_OUT = new Set(['examples', 'description']);

/**
 * The output schemas of the MCP tools (src/mcp/contract-results.ts), from openapi.yaml: each named
 * component as a self-contained JSON Schema, the components it refers to under `$defs` (references
 * rewritten to `#/$defs/NAME`), so that a client can validate structuredContent with it alone.
 */
export function mcpOutputSchemas(openapi: string): Record<string, Json> {
  const components = ((parse(openapi) as Json).components as Json).schemas as Record<string, Json>;
  const schemas: Record<string, Json> = {};
  for (const name of CONTRACT_RESULTS) {
    const needed = new Set<string>();
    // `names`: the keys of this object are property names (under `properties`), not keywords.
    const rewrite = (node: unknown, names = false): unknown => {
      if (Array.isArray(node)) return node.map((item) => rewrite(item));
      if (typeof node !== 'object' || node === null) return node;
      const copy: Json = {};
      for (const [key, value] of Object.entries(node)) {
        if (names) {
          copy[key] = rewrite(value);
          continue;
        }
        if (LEFT_OUT.has(key)) continue;
        const target =
          key === '$ref' && typeof value === 'string' ? COMPONENT_REF.exec(value)?.[1] : undefined;
        if (target !== undefined) {
          if (!components[target]) throw new Error(`openapi.yaml: ${value} does not exist`);
          needed.add(target);
          copy.$ref = `#/$defs/${target}`;
        } else {
          copy[key] = rewrite(value, key === 'properties' || key === 'patternProperties');
        }
      }
      return copy;
    };
    const root = rewrite(components[name]) as Json;
    const defs: Json = {};
    // Components found while rewriting others join the queue: the closure of what `name` refers to.
    for (const dependency of needed) defs[dependency] = rewrite(components[dependency]);
    schemas[name] = Object.keys(defs).length > 0 ? { ...root, $defs: sortedKeys(defs) } : root;
  }
  return schemas;
}

function sortedKeys(object: Json): Json {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));
}
