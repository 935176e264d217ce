import { defineConfig } from "drizzle-kit";

// drizzle-kit writes straight into wrangler's migrations folder: `wrangler d1 migrations apply`
// runs exactly what `npm run db:generate` produced.
export default defineConfig({
  dialect: "sqlite",
  schema: "./worker/src/db/schema.ts",
  out: "./migrations",
});
