// `ajv-formats` in the Worker and Node host bundles (see unsupported.mjs).
export { addFormats as default } from './unsupported.mjs';
