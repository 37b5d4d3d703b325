import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` diffs drizzle/schema.ts against drizzle/migrations/meta and writes the
// next SQL migration; it needs no database. Migrations are applied by `npm run db:migrate`
// (scripts/db-migrate.ts) and by the Node host at start-up.
export default defineConfig({
  dialect: 'postgresql',
  schema: './drizzle/schema.ts',
  out: './drizzle/migrations',
  strict: true,
  verbose: true,
});
