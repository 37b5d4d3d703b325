// `npm start`: rebuilds the Node host's bundle when it is missing or a source is newer, then runs the
// bundle in this same process (one Node start instead of two; package.json gives this process the
// server's V8 flags).
import { buildNode, bundleIsStale } from './build-node.mjs';

if (bundleIsStale()) await buildNode();
await import('../dist-node/main.mjs');
