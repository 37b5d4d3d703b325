import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app';
import { createTestDeps } from '../helpers/deps';

// A file of its own: the allowed values of a parameter are remembered by its name, and the probe route
// of http-conventions.test.ts declares a `range` of its own.
describe('the error examples of /openapi.json', () => {
  it('documents each 400 with the very body the app answers for its example URL', async () => {
    const app = createApp(createTestDeps());
    const doc = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        {
          get?: {
            responses: Record<string, { content?: Record<string, { example?: { instance: string } }> }>;
          };
        }
      >;
    };
    let compared = 0;
    for (const operation of Object.values(doc.paths)) {
      const example = operation.get?.responses['400']?.content?.['application/problem+json']?.example;
      if (!example) continue;
      const res = await app.request(example.instance);
      expect(res.status, example.instance).toBe(400);
      expect(await res.json(), example.instance).toEqual(example);
      compared += 1;
    }
    expect(compared).toBe(4);
  });
});
