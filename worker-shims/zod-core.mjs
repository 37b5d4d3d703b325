// zod/v4/core/index.js of the installed zod without `locales` (see zod.mjs).

export * from '../node_modules/zod/v4/core/api.js';
export * from '../node_modules/zod/v4/core/checks.js';
export * from '../node_modules/zod/v4/core/compile.js';
export * from '../node_modules/zod/v4/core/core.js';
export * from '../node_modules/zod/v4/core/doc.js';
export * from '../node_modules/zod/v4/core/errors.js';
export * as JSONSchema from '../node_modules/zod/v4/core/json-schema.js';
export { JSONSchemaGenerator } from '../node_modules/zod/v4/core/json-schema-generator.js';
export { toJSONSchema } from '../node_modules/zod/v4/core/json-schema-processors.js';
export * from '../node_modules/zod/v4/core/memoizer.js';
export * from '../node_modules/zod/v4/core/parse.js';
export * as regexes from '../node_modules/zod/v4/core/regexes.js';
export * from '../node_modules/zod/v4/core/registries.js';
export * from '../node_modules/zod/v4/core/schemas.js';
export * from '../node_modules/zod/v4/core/to-json-schema.js';
export * as util from '../node_modules/zod/v4/core/util.js';
export { toZod } from '../node_modules/zod/v4/core/util.js';
export * from '../node_modules/zod/v4/core/versions.js';
