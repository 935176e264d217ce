import { env, exports } from "cloudflare:workers";
import { hc, type ClientResponse } from "hono/client";
import { expect } from "vitest";
import type { AppType } from "../src/app";
import { hashPassword } from "../src/auth/password";
import { createSession, SESSION_COOKIE } from "../src/auth/session";
import { userPermissions, users, type Feature, type Role } from "../src/db/schema";
import { createDb } from "../src/middleware/database";
import { unwrittenMessages } from "../src/tracking/click-queue";
import { unsentEvents } from "../src/tracking/click-writer";

export const ORIGIN = "https://trackyard.test";
export const db = () => createDb(env.DB);

export interface CallOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  cookie?: string;
  headers?: Record<string, string>;
}

/** Calls the Worker's own fetch, as a same-origin browser would. */
export function call(path: string, { method, json, body, cookie, headers = {} }: CallOptions = {}) {
  const init: RequestInit = { method: method ?? (json !== undefined || body !== undefined ? "POST" : "GET"), headers: { ...headers } };
  const h = init.headers as Record<string, string>;
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    h["content-type"] ??= "application/json";
  } else if (body !== undefined) {
    init.body = body;
  }
  if (cookie) h.cookie = cookie;
  if (init.method !== "GET" && init.method !== "HEAD") h.origin ??= ORIGIN;
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, init));
}

/**
 * The API through its typed client (hono/client over the Worker's own fetch), as `user` when given:
 * paths, inputs and the answers' shapes come from the routes' types, so a changed response shape
 * fails to compile here. Non-GET calls carry our Origin, as the browser's do.
 */
export function client(user?: { cookie: string }) {
  return typedClient((request) => exports.default.fetch(request), user);
}

/** The typed client over `send` (the Worker's own fetch, or one with a test's bindings), as `user` when given. */
export function typedClient(send: (request: Request) => Promise<Response>, user?: { cookie: string }) {
  return hc<AppType>(ORIGIN, {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (user) request.headers.set("cookie", user.cookie);
      if (request.method !== "GET" && request.method !== "HEAD" && !request.headers.has("origin")) request.headers.set("origin", ORIGIN);
      return send(request);
    },
  }).api;
}

/** A typed client call's `param` for a route's `:id`. */
export const idParam = (id: number) => ({ param: { id: String(id) } });

/**
 * The body of a typed client's answer, once its status is the one expected: its type is the
 * route's own for that status, so a changed response shape fails to compile where it is used.
 */
export async function bodyOf<R extends ClientResponse<unknown, number, string>, S extends R["status"]>(
  res: R,
  status: S,
): Promise<Awaited<ReturnType<Extract<R, { status: S }>["json"]>>> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as Awaited<ReturnType<Extract<R, { status: S }>["json"]>>;
}

/** The `name=value` part of the session cookie a response set. */
export function sessionCookieFrom(res: Response): string | undefined {
  const header = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  return header?.split(";")[0];
}

let counter = 0;
export const uniqueName = (prefix = "user") => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

export interface TestUser {
  id: string;
  username: string;
  password: string;
  cookie: string;
}

/** A user created straight in D1 with a live session (fast: no sign-in round trip). */
export async function makeUser(role: Role = "user", features: Feature[] = [], password = "correct horse battery"): Promise<TestUser> {
  const database = db();
  const id = crypto.randomUUID();
  const username = uniqueName(role);
  await database.insert(users).values({ id, username, role, passwordHash: await hashPassword(password) });
  if (features.length) {
    await database.insert(userPermissions).values(features.map((feature) => ({ userId: id, feature })));
  }
  const token = await createSession(database, env.SESSION_SECRET, id, { ip: null, userAgent: null });
  return { id, username, password, cookie: `${SESSION_COOKIE}=${token}` };
}

export const makeAdmin = () => makeUser("admin");

/**
 * Re-authenticates a user's session (POST /api/account/reauth with their password, and `code`
 * where two-factor sign-in is on): an admin needs it within 5 minutes before changing another
 * user's password, role or second factor.
 */
export async function reauthenticate(user: TestUser, code?: string) {
  const res = await call("/api/account/reauth", { cookie: user.cookie, json: { password: user.password, code } });
  expect(res.status, await res.clone().text()).toBe(200);
}

/**
 * Waits until every click and exit answered so far is in D1. In the worker tests the Worker sends
 * and consumes in this one isolate, so both of its counts reaching zero says so: events not yet sent
 * to the queue (an open batch, or one being sent: tracking/click-writer.ts), and messages sent but
 * not yet written (tracking/click-queue.ts). Concurrent visitors join a batch another request opened,
 * so their own requests' end does not mean their batch went.
 */
export function clicksWritten(timeoutMs = 20_000) {
  // Callers at once share one wait: a burst of thousands of visitors must not each hold a timer
  // (workerd allows 10,000 at a time).
  return (writtenWait ??= waitUntilWritten(timeoutMs).finally(() => (writtenWait = null)));
}
let writtenWait: Promise<void> | null = null;

async function waitUntilWritten(timeoutMs: number) {
  const giveUpAt = Date.now() + timeoutMs;
  while (unsentEvents() > 0 || unwrittenMessages() > 0) {
    if (Date.now() > giveUpAt)
      throw new Error(`${unsentEvents()} clicks and exits not sent and ${unwrittenMessages()} click messages not written after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
