// `ajv` in the Worker bundle (see unsupported.mjs).
export { Ajv as default } from './unsupported.mjs';
