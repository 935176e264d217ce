import { mkdirSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// The assets binding needs its folder to exist even before the first web build.
mkdirSync(path.resolve("dist/client"), { recursive: true });

/**
 * The worker and web projects' time for one test or hook, instead of Vitest's 5 s. Their tests
 * take well under a second on an idle machine, but CI is 2 cores that the browser lane's Chromium
 * and `wrangler dev` share, often with other work: at a load average of 16 the slowest of them
 * took 7 s (a Stats screen test), and tests making a hundred requests went past 5 s. 30 s leaves
 * that machine four times the room, and a test that hangs still fails in half a minute. Tests that
 * do much more (hundreds of requests, files of megabytes) set a time sized to their work.
 */
const LOADED_MACHINE_TIMEOUT = 30_000;

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations(path.resolve("migrations")),
                SESSION_SECRET: "test-secret-that-is-long-enough-for-hs256-signing",
                TWO_FACTOR_KEY: "test-two-factor-key-that-is-long-enough-for-hkdf",
                // The deployed default (wrangler.toml), whatever a local .dev.vars says: the inbox fails closed.
                CODES_RECIPIENTS: "",
                CODES_SENDERS: "",
                // The tests' app origin (worker/test/helpers.ts ORIGIN), listed as a custom app domain
                // would be; every other host in the tests is a tracking domain.
                APP_HOSTS: "trackyard.test",
                // The Events API as the tests' fake answers it (worker/test/tiktok-events-*.test.ts
                // route this host to it). Sending also needs a pixel code, which only those tests set.
                TIKTOK_EVENTS_ACCESS_TOKEN: "events-test-token",
                TIKTOK_BASE_URL: "https://tiktok.test",
                TIKTOK_EVENTS_RETRY_SECONDS: "0",
                // Alert channels (worker/test/alert-*.test.ts answer these hosts with the Slack and
                // Telegram fakes) and email's sender and verified destinations.
                SLACK_BASE_URL: "https://slack.test",
                TELEGRAM_BASE_URL: "https://telegram.test",
                ALERT_EMAIL_FROM: "alerts@trackyard.test",
                ALERT_EMAIL_TO: "ops@trackyard.test,owner@trackyard.test",
                // Webhook retries at once (worker/test/webhooks.test.ts answers its receivers' hosts with a fake).
                WEBHOOK_RETRY_SECONDS: "0",
              },
              // Queue deliveries after 50 ms instead of wrangler.toml's seconds.
              queueConsumers: {
                "trackyard-tiktok-events": { maxBatchTimeout: 0.05 },
                "trackyard-tiktok-events-dlq": { maxBatchTimeout: 0.05 },
                // Each entry replaces wrangler.toml's consumer whole: its retries and dead-letter queue are repeated.
                "trackyard-clicks": { maxBatchTimeout: 0.05, maxBatchSize: 100, maxRetries: 10, deadLetterQueue: "trackyard-clicks-dlq" },
                "trackyard-clicks-dlq": { maxBatchTimeout: 0.05, maxRetries: 24 },
                "trackyard-webhooks": { maxBatchTimeout: 0.05, maxBatchSize: 10, maxRetries: 10 },
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["worker/test/**/*.test.ts"],
          // Each file in a workerd of its own (Vitest's default). Sharing one per Vitest worker
          // (`isolate: false`) saved about 4 s a file, but in two of five fresh-clone runs a click
          // message sent in one file was never delivered to its consumer, and that file and the next
          // ones in the same workerd waited for it until they failed (README "The two commands").
          // The setup file migrates each file's empty D1.
          setupFiles: ["worker/test/apply-migrations.ts"],
          testTimeout: LOADED_MACHINE_TIMEOUT,
          hookTimeout: LOADED_MACHINE_TIMEOUT,
        },
      },
      {
        plugins: [react()],
        resolve: { alias: { "@": path.resolve("web/src") } },
        test: {
          name: "web",
          include: ["web/src/**/*.test.{ts,tsx}"],
          environment: "happy-dom",
          setupFiles: ["web/src/test/setup.ts"],
          // The files of one Vitest worker share one module graph and one happy-dom, not one each:
          // importing React, the router and the screens again was most of every file's time. The
          // setup file clears what a file leaves behind (the DOM, storage, the URL, cookies).
          isolate: false,
          testTimeout: LOADED_MACHINE_TIMEOUT,
          hookTimeout: LOADED_MACHINE_TIMEOUT,
        },
      },
      {
        test: {
          name: "browser",
          include: ["e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["e2e/global-setup.ts"],
          // A browser test is a journey of dozens of screens through Chromium and `wrangler dev`:
          // 10 to 40 s on an idle machine, and three to five times that at a load average of 20
          // to 25 on the 2-core CI machine, where 60 s failed seven of them. A file's hooks start
          // its own `wrangler dev` and Chromium (and the first makes the migrated database), which
          // took over 120 s there. Journeys longer than most set their own time.
          testTimeout: 180_000,
          hookTimeout: 300_000,
          // expect.poll's default is 1 s: on a loaded CI machine a redirect after the session
          // check took longer, and the first-run test failed on a screen that was still coming.
          expect: { poll: { timeout: 30_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
