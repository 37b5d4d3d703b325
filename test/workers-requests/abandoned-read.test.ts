import { SELF } from 'cloudflare:test';
import { expect, it } from 'vitest';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Each SELF.fetch is a request of its own (the `workers` project's tests run in one request context,
// where this cannot show). workerd cancels a request's I/O once it has answered, unless kept alive.
it('answers /api/eth-price after a forecast request stopped waiting for the price read it started', async () => {
  expect((await SELF.fetch('https://gas.test/api/gas')).status).toBe(200);
  // Starts the ETH price read (every source takes 1.5 s), waits 250 ms for it, and answers without it.
  const predictions = await SELF.fetch('https://gas.test/api/gas-predictions?timeframe=6h');
  expect(predictions.status).toBe(200);
  await predictions.arrayBuffer();
  // Long enough for the read to have ended, had it run on (its deadline is 4 s).
  await sleep(5_000);
  // Until 2026-11-27 the abandoned read was cancelled with the request, and every later reader of
  // the isolate's price, dashboard and Layer 2 gas was handed it and waited forever.
  const answers = await Promise.race([
    Promise.all(
      ['/api/eth-price', '/api/dashboard', '/api/l2-gas'].map(async (path) => {
        const res = await SELF.fetch(`https://gas.test${path}`);
        await res.arrayBuffer();
        return res.status;
      }),
    ),
    sleep(15_000).then(() => 'no answer within 15 s'),
  ]);
  expect(answers).toEqual([200, 200, 200]);
});
