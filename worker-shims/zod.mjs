// zod's classic API for the Worker and Node host bundles (wrangler.toml [alias] "zod"), without the
// 40-odd locales that `export * as locales` drags in once the `z` namespace is used as a value
// (@hono/zod-openapi extends it). zod registers its English messages itself on first use, so answers
// are unchanged.
import * as z from './zod-external.mjs';

export * from './zod-external.mjs';
export { z, z as default };
