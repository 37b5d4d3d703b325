/**
 * Back-tests the forecaster and the send-or-wait decision on a CSV of hourly gwei values.
 *
 *   npx tsx scripts/backtest.ts --csv FILE [--time-column C] [--value-column C] [--predictions-out FILE.jsonl]
 *   npx tsx scripts/backtest.ts --csv FILE ... --spikes N --seeds FROM-TO
 *
 * Walks forward hour by hour, forecasting the next 24 hours from the data before each hour only;
 * the first 7 days are warm-up. Prints JSON: MAE and MAPE of the model, persistence and same hour
 * yesterday; the mean realized saving of following the decision and of a perfect-foresight
 * oracle; the share of wait decisions that ended dearer; for the whole scored span, the tuning
 * part (first two thirds) and the held-out last third. `definitions` in the output says exactly
 * what each figure means. With `--seeds FROM-TO` it runs once per seed of the injected spikes and
 * prints each figure's spread over the seeds, per part (`summariseSpikeSweep`).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { type OriginRecord, runBacktest } from '../lib/forecast/backtest';
import { summariseSpikeSweep } from '../lib/forecast/backtest-seeds';
import { injectSpikes } from '../lib/forecast/inject-spikes';
import { CsvError, readCsvSeries } from './lib/csv';

const USAGE =
  'usage: npx tsx scripts/backtest.ts --csv FILE [--time-column C] [--value-column C] [--spikes N [--seed S | --seeds FROM-TO]] [--eth-usd P] [--predictions-out FILE.jsonl]';

/** `z.coerce.number()` reads an empty flag value as 0; read it as no number instead. */
const flagNumber = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? Number.NaN : value), schema);

const ArgsSchema = z.object({
  csv: z.string({ error: '--csv FILE is required' }).min(1, '--csv FILE is required'),
  'time-column': z.string().min(1).optional(),
  'value-column': z.string().min(1).optional(),
  'predictions-out': z.string().min(1).optional(),
  spikes: flagNumber(
    z.coerce
      .number({ error: '--spikes must be a whole number' })
      .int('--spikes must be a whole number')
      .min(0, '--spikes must be 0 to 10000')
      .max(10_000, '--spikes must be 0 to 10000'),
  ).default(0),
  seed: flagNumber(
    z.coerce.number({ error: '--seed must be a whole number' }).int('--seed must be a whole number'),
  ).default(1),
  seeds: z
    .string()
    .regex(/^\d+-\d+$/, '--seeds must be FROM-TO, e.g. 1-20')
    .transform((range) => range.split('-').map(Number) as [number, number])
    .refine(
      ([from, to]) => from <= to && to - from < 1000,
      '--seeds must run from a seed to a later one, at most 1000',
    )
    .optional(),
  'eth-usd': flagNumber(
    z.coerce
      .number({ error: '--eth-usd must be a positive price' })
      .positive('--eth-usd must be a positive price'),
  ).optional(),
});

const DEFINITIONS = {
  origin:
    'Each whole hour after the 7-day warm-up whose value and next 24 hourly values exist. The origin value is the current reading; the forecaster sees only the hours before it.',
  maeGwei:
    'Mean absolute error in gwei of the average-tier forecast, pooled over all scored origins and all 24 lead times (1..24 hours ahead): MAE over the 24-hour horizon.',
  mapePct: 'Mean of |forecast - actual| / actual over the same origins and lead times, in percent.',
  persistence: 'Baseline forecasting the origin value for every lead time.',
  sameHourYesterday: 'Baseline forecasting, for the hour h, the value at h - 24 hours.',
  maeRatio:
    'Model MAE divided by the baseline MAE (targets: <= 0.65 vs persistence, <= 0.75 vs same hour yesterday).',
  meanSavingPct:
    'Mean over origins of 100 * (price at origin - price paid) / price at origin, where the price paid is the actual at nextBestAt for wait, the origin price for send_now.',
  oracle:
    'The same with perfect foresight: paying the cheapest actual of the origin and the next 24 hours (target: decision >= 40 % of oracle, and above the baseline).',
  baseline:
    'A plain hour-of-day profile: each UTC hour predicted at its median over the last 7 days; wait for the cheapest predicted hour of the next 24 when it is at least 10 % below the origin price.',
  waitDearerShare:
    'Share of wait decisions whose actual price at nextBestAt was above the origin price (target: <= 15 %).',
  waitSevereShare:
    'Share of wait decisions whose actual price at nextBestAt was above twice the origin price (target: <= 2 %).',
  totalSpendSavingPct:
    'One equal-gas transaction per origin: 100 * (1 - sum of prices paid / sum of origin prices); shareOfOracle against the oracle paying the cheapest hour each time.',
  calibration:
    'Forecast points grouped by stated confidence: statedMean against observed, the share whose actual landed within a factor 1.25 of the point (target: within 0.1 in every band of at least 30 points).',
  injectedSpikes:
    '--spikes N multiplies N random stretches of 1 to 6 hours by 20x to 100x (log-uniform), seeded by --seed: the stress test.',
  ethUsd:
    'With --eth-usd the decision also requires its expected saving on a 21,000-gas transfer to reach the USD floor, as the service does with a live price.',
  segments:
    'whole = every scored origin; tuning = origins whose 24-hour look-ahead ends before the last third; heldOut = origins in the last third of the hourly series (never used for tuning).',
};

/** Parses and validates the command line; exits with usage on a mistake. */
function readArgs() {
  try {
    const { values } = parseArgs({
      options: {
        csv: { type: 'string' },
        'time-column': { type: 'string' },
        'value-column': { type: 'string' },
        'predictions-out': { type: 'string' },
        spikes: { type: 'string' },
        seed: { type: 'string' },
        seeds: { type: 'string' },
        'eth-usd': { type: 'string' },
      },
    });
    const parsed = ArgsSchema.safeParse(values);
    if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join('; '));
    if (parsed.data.seeds && (parsed.data.spikes === 0 || parsed.data['predictions-out']))
      throw new Error('--seeds needs --spikes N (N > 0) and takes no --predictions-out');
    return parsed.data;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

/** Opens the predictions file before the run, so a bad path fails at once and says so. */
async function openOutput(path: string): Promise<WriteStream> {
  const stream = createWriteStream(path);
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (error) {
    console.error(
      `cannot write --predictions-out ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
    process.exit(1);
  }
  return stream;
}

const args = readArgs();
let rows: Awaited<ReturnType<typeof readCsvSeries>>;
try {
  rows = await readCsvSeries(args.csv, {
    timeColumn: args['time-column'],
    valueColumn: args['value-column'],
  });
} catch (error) {
  const reason =
    error instanceof CsvError ? error.message : `cannot read ${args.csv}: ${(error as Error).message}`;
  console.error(reason);
  process.exit(1);
}

if (args.seeds) {
  const [from, to] = args.seeds;
  const reports = [];
  for (let seed = from; seed <= to; seed++) {
    reports.push(
      runBacktest(injectSpikes(rows, { count: args.spikes, seed }).rows, { ethUsd: args['eth-usd'] }),
    );
  }
  console.log(
    JSON.stringify(
      {
        csv: args.csv,
        valueColumn: args['value-column'] ?? '(second column)',
        spikes: args.spikes,
        seeds: `${from}-${to}`,
        ethUsd: args['eth-usd'] ?? null,
        ...summariseSpikeSweep(reports),
        definitions: {
          ...DEFINITIONS,
          sweep:
            'Each figure of one part over the seeds: mean, median, min, max; seeds* count the seeds on which the decision met that target.',
        },
      },
      null,
      2,
    ),
  );
  process.exit(0);
}

const injected = injectSpikes(rows, { count: args.spikes, seed: args.seed });
const out = args['predictions-out'] ? await openOutput(args['predictions-out']) : undefined;
const report = runBacktest(injected.rows, {
  ethUsd: args['eth-usd'],
  onOrigin: out ? (record: OriginRecord) => out.write(`${JSON.stringify(record)}\n`) : undefined,
});
if (out)
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );

console.log(
  JSON.stringify(
    {
      csv: args.csv,
      timeColumn: args['time-column'] ?? '(first column)',
      valueColumn: args['value-column'] ?? '(second column)',
      injectedSpikes: injected.spikes.map((spike) => ({
        ...spike,
        start: new Date(spike.start).toISOString(),
      })),
      ethUsd: args['eth-usd'] ?? null,
      ...report,
      definitions: DEFINITIONS,
    },
    null,
    2,
  ),
);
