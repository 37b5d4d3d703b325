import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { createTestDeps } from '../helpers/deps';

type Response = { description: string; headers?: Record<string, unknown>; content?: unknown };
type Operation = {
  parameters?: { name: string; schema: Record<string, unknown> }[];
  responses: Record<string, Response>;
};

describe('OpenAPI documents the responses every path really gives (SPEC decisions 7 and 14, extension 21)', () => {
  it('lists 405 everywhere, 304 and the caching headers on every GET, Retry-After on 503, and hours as an integer', async () => {
    const doc = (await (await createApp(createTestDeps()).request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    let gets = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, { responses }] of Object.entries(item)) {
        expect(responses[405]?.headers, `${method} ${path}`).toHaveProperty('Allow');
        if (responses[503]) expect(responses[503].headers, path).toHaveProperty('Retry-After');
        if (method !== 'get') continue;
        gets++;
        expect(responses[200]?.headers, path).toHaveProperty('ETag');
        expect(responses[304]?.headers, path).toHaveProperty('ETag');
        expect(responses[304]?.content, path).toBeUndefined();
      }
    }
    expect(gets).toBe(9);
    const hours = doc.paths['/api/l2-gas-history']?.get?.parameters?.find((p) => p.name === 'hours');
    expect(hours?.schema).toMatchObject({ type: 'integer', enum: [1, 6, 24, 168] });
  });

  it('documents a body for every response that has one, the MCP transport errors included', async () => {
    const doc = (await (await createApp(createTestDeps()).request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, { responses }] of Object.entries(item)) {
        for (const [status, response] of Object.entries(responses)) {
          if (['202', '204', '304'].includes(status)) continue;
          expect(response.content, `${method} ${path} ${status}`).toBeDefined();
        }
      }
    }
    // The MCP transport's own errors are documented as JSON-RPC errors (mcp-bad-input checks the
    // served bodies against that schema).
    const mcp = doc.paths['/api/mcp']?.post?.responses ?? {};
    for (const status of ['400', '406', '415']) {
      expect(JSON.stringify(mcp[status]?.content)).toContain('#/components/schemas/JsonRpcError');
    }
  });

  it('still refuses the spellings of hours the document does not list', async () => {
    const app = createApp(createTestDeps());
    for (const hours of ['024', '24.0', '1e0', ' 24']) {
      const res = await app.request(`/api/l2-gas-history?network=base&hours=${encodeURIComponent(hours)}`);
      expect(res.status, hours).toBe(400);
    }
  });
});
