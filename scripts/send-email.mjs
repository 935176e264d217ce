// `npm run send-email -- path/to/file.eml [--to addr] [--from addr] [--port 8787] [--host 127.0.0.1]`
// Delivers a raw message to the local Worker's email() handler (wrangler dev's
// /cdn-cgi/handler/email), the way Email Routing would deliver it in production.
// Local wrangler refuses a message without a Message-ID or a From header, so the script adds
// the missing ones (a fresh Message-ID each run, so sending the same file twice stores it twice;
// keep the file's own Message-ID to see the duplicate being ignored).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { URLSearchParams } from "node:url";
import { parseArgs } from "node:util";

const USAGE = "Usage: npm run send-email -- path/to/file.eml [--to addr] [--from addr] [--port 8787] [--host 127.0.0.1]";

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      to: { type: "string" },
      from: { type: "string" },
      port: { type: "string", default: process.env.PORT ?? "8787" },
      host: { type: "string", default: "127.0.0.1" },
      help: { type: "boolean", short: "h" },
    },
  });
} catch (err) {
  console.error(`${err.message}\n${USAGE}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help || positionals.length !== 1) {
  console.error(USAGE);
  process.exit(values.help ? 0 : 2);
}

let raw;
try {
  raw = readFileSync(positionals[0]);
} catch (err) {
  console.error(`Cannot read ${positionals[0]}: ${err.message}`);
  process.exit(1);
}

// Headers end at the first empty line; only they are looked at (latin1 keeps the bytes as they are).
const text = raw.toString("latin1");
const headerEnd = text.search(/\r?\n\r?\n/);
const headerBlock = headerEnd < 0 ? text : text.slice(0, headerEnd);
const newline = headerBlock.includes("\r\n") ? "\r\n" : "\n";
const header = (name) => new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(headerBlock)?.[1];
const addressIn = (value) => (value ? (/<([^<>\s]+@[^<>\s]+)>/.exec(value)?.[1] ?? /[^\s<>,;"]+@[^\s<>,;"]+/.exec(value)?.[0]) : undefined);

const added = [];
const fromHeader = addressIn(header("From"));
const from = values.from ?? fromHeader ?? "sender@localhost";
const to = values.to ?? addressIn(header("To")) ?? "codes@localhost";
if (!header("Message-ID")) added.push(`Message-ID: <${randomUUID()}@send-email.trackyard.local>`);
if (!fromHeader) added.push(`From: <${from}>`);
const body = added.length ? Buffer.concat([Buffer.from(added.join(newline) + newline, "latin1"), raw]) : raw;

const url = `http://${values.host}:${values.port}/cdn-cgi/handler/email?${new URLSearchParams({ from, to })}`;
let res;
try {
  res = await fetch(url, { method: "POST", body });
} catch (err) {
  console.error(`Could not reach ${url}: ${err.cause?.code ?? err.message}. Is \`npm start\` running on port ${values.port}?`);
  process.exit(1);
}
const answer = (await res.text()).trim();
for (const line of added) console.log(`added ${line}`);
console.log(`${res.status} ${answer}`);
if (!res.ok) process.exit(1);
console.log(`Delivered to ${to} from ${from}. A code, if the message has one, is on /codes now.`);
