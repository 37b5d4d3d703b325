// `ajv-formats` in the Worker bundle (see unsupported.mjs).
export { addFormats as default } from './unsupported.mjs';
