// Stands in, in the Worker bundle and the Node host's (wrangler.toml [alias], read by
// scripts/build-node.mjs too), for what the MCP SDK imports but this service never runs: Zod 3 schema
// support (`zod/v3`, `zod-to-json-schema`; every schema here is Zod 4) and Ajv (the SDK validates JSON
// Schema with it only for elicitation and client-side tool output, neither of which this read-only
// server uses). About 450 KiB of code each bundle would load for nothing.
// Anything that does reach one of these fails loudly instead of misbehaving.
function unsupported(what) {
  return () => {
    throw new Error(`${what} is not part of this bundle (see wrangler.toml [alias])`);
  };
}

/** `zod/v3`: the SDK builds a Zod 3 object only from Zod 3 shapes. */
export const object = unsupported('Zod 3');

/** `zod-to-json-schema`: the SDK converts only Zod 3 schemas with it. */
export const zodToJsonSchema = unsupported('zod-to-json-schema');

/** `ajv` (see ajv.mjs): constructed by the SDK's default validator, used only when a JSON Schema must be checked. */
export class Ajv {
  compile = unsupported('JSON Schema validation (Ajv)');
  getSchema = () => undefined;
  addSchema = () => this;
  addFormat = () => this;
  addKeyword = () => this;
}

/** `ajv-formats` (see ajv-formats.mjs). */
export function addFormats(ajv) {
  return ajv;
}
