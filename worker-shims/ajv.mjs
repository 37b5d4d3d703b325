// `ajv` in the Worker and Node host bundles (see unsupported.mjs).
export { Ajv as default } from './unsupported.mjs';
