// The Worker's local settings for `npm start` and `npm run dev`: `.dev.vars`, overridden by the
// variables and secrets the README documents when they are set in the command's own environment,
// e.g. `NAMECHEAP_API_URL=http://127.0.0.1:9000/xml.response npm start`.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Every variable and secret the README documents, in one list: what `npm start` and `npm run dev`
 * forward from their environment to the Worker. A new setting is added here and in the README.
 */
export const DOCUMENTED_ENV = [
  // Sessions
  "SESSION_SECRET",
  "TWO_FACTOR_KEY",
  "SETUP_TOKEN",
  // The hosts the app answers on
  "APP_HOSTS",
  // Verification codes
  "CODES_RECIPIENTS",
  "CODES_SENDERS",
  "CODES_RETENTION_HOURS",
  // Performance data sources: CAKE, TikTok, the postback, the sync schedule
  "CAKE_BASE_URL",
  "CAKE_API_KEY",
  "CAKE_AFFILIATE_ID",
  "TIKTOK_ACCESS_TOKEN",
  "TIKTOK_ADVERTISER_IDS",
  "TIKTOK_BASE_URL",
  "POSTBACK_TOKEN",
  "SYNC_RECENT_DAYS",
  "SYNC_DAILY_DAYS",
  "CAKE_PULL_STEP_ROWS",
  // Conversions sent to TikTok's Events API
  "TIKTOK_EVENTS_ACCESS_TOKEN",
  "TIKTOK_EVENTS_RETRY_SECONDS",
  // Domain automation: Namecheap, the route to it, Cloudflare
  "NAMECHEAP_API_USER",
  "NAMECHEAP_API_KEY",
  "NAMECHEAP_USERNAME",
  "NAMECHEAP_CLIENT_IP",
  "NAMECHEAP_PROXY",
  "NAMECHEAP_RELAY_KEY",
  "NAMECHEAP_API_URL",
  "CLOUDFLARE_API_TOKEN",
  "CLOUDFLARE_ACCOUNT_ID",
  "CLOUDFLARE_API_URL",
  "WORKER_NAME",
  // Click store: retention of raw clicks, and the shard-day objects new days' clicks go to
  "CLICKS_RETENTION_DAYS",
  "CLICK_SHARDS_PER_DAY",
  // Alerts and channels: email's sender and verified destinations, Slack and Telegram (the fakes)
  "ALERT_EMAIL_FROM",
  "ALERT_EMAIL_TO",
  "SLACK_BASE_URL",
  "TELEGRAM_BASE_URL",
];

/** The documented names set in `env`. An empty value is forwarded too: it clears a setting. */
export function forwardedEnv(env = process.env) {
  const out = {};
  for (const name of DOCUMENTED_ENV) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/** `.dev.vars` / `.env` lines: NAME=value, optionally quoted; # comments and blank lines skipped. */
export function parseEnvFile(text) {
  const out = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2];
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, "\n");
    } else {
      value = value.replace(/\s+#.*$/, "");
    }
    out[m[1]] = value;
  }
  return out;
}

/**
 * NAME=value lines wrangler reads back as written. `expands`: the file is read as an env file,
 * where wrangler expands `$NAME` (dotenv-expand), so a literal `$` is written `\$`.
 */
export function serializeEnvFile(values, { expands = false } = {}) {
  return Object.entries(values)
    .map(([name, value]) => {
      let v = String(value);
      if (v.includes("\n") && v.includes('"')) throw new Error(`${name}: a value with both line breaks and double quotes cannot be written to an env file`);
      if (expands) v = v.replace(/\$/g, "\\$");
      if (v.includes("\n")) return `${name}="${v.replace(/\n/g, "\\n")}"`;
      if (/^[^\s"'#`]*$/.test(v)) return `${name}=${v}`;
      return v.includes("'") ? `${name}="${v}"` : `${name}='${v}'`;
    })
    .join("\n")
    .concat("\n");
}

/**
 * What the Worker gets locally: `.dev.vars` (ROOT), then the documented names from `env`, then
 * `overrides` (the browser tests' fakes), later ones winning.
 */
export function workerVars(root, { env = process.env, overrides = {} } = {}) {
  const file = path.join(root, ".dev.vars");
  const base = existsSync(file) ? parseEnvFile(readFileSync(file, "utf8")) : {};
  return { ...base, ...forwardedEnv(env), ...overrides };
}

/** Writes `values` to `file`, readable by this user only (it holds secrets). */
export function writeSecretFile(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
