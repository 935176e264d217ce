/**
 * A local stand-in for TikTok's Events API `POST /open_api/v1.3/event/track/`, answering with the
 * documented shapes: HTTP 200 with `{ code, message, request_id, data }`; 40104 without a token,
 * 40105 for a wrong one; 40002 when any event of the call is malformed, failing the whole call
 * (nothing of it is kept, as TikTok is reported to do); and on request, 40100 (rate limit),
 * 5xxxx or an HTTP 5xx, or an answer held back until the test lets it go. It de-duplicates on
 * event + event_id as TikTok does, and counts what it received so a test can say "each exactly
 * once". Like Events Manager's diagnostics, it notes the purchases it took without what TikTok
 * asks of them (value, currency, content_type and contents with a content_id: docs/integrations.md).
 *
 * A plain fetch handler (`handle(Request)`) with no Worker-only APIs: the worker tests inject it,
 * and scripts/fakes/worker.ts serves it over HTTP to `npm start` and the benchmark.
 */

export interface ReceivedEvent {
  event: string;
  event_id: string;
  event_time: number;
  user: Record<string, unknown>;
  properties?: {
    value?: number;
    currency?: string;
    content_type?: string;
    contents?: { content_id?: string; content_name?: string; price?: number; quantity?: number }[];
  };
  page?: { url?: string };
  pixelCode: string;
  testEventCode: string | null;
}

/** An answer to give instead of the real one, once. */
export type EventsFakeFailure = { code: number; message: string } | { status: number; text: string };

export interface EventsFakeOptions {
  accessToken?: string;
  /** Pixel codes the token may send to; others answer 40001. */
  pixelCodes?: string[];
}

export const TIKTOK_EVENTS_FAKE_PATH = "/open_api/v1.3/event/track/";
const MAX_EVENTS = 1000;

let requestCounter = 0;

const json = (code: number, message: string) =>
  new Response(JSON.stringify({ code, message, request_id: `fake-events-${++requestCounter}`, data: {} }), {
    status: 200,
    headers: { "content-type": "application/json" },
  });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why one event is malformed, or null. The rules are the documented field types. */
function eventProblem(e: unknown, now: number): string | null {
  if (!isObject(e)) return "is not an object";
  if (typeof e.event !== "string" || !e.event) return "event: required";
  if (typeof e.event_id !== "string" || !e.event_id) return "event_id: required";
  if (typeof e.event_time !== "number" || !Number.isInteger(e.event_time) || e.event_time <= 0) return "event_time: must be unix seconds";
  if (e.event_time > now / 1000 + 600) return "event_time: in the future";
  if (!isObject(e.user)) return "user: required";
  const externalId = e.user.external_id;
  if (externalId !== undefined && (typeof externalId !== "string" || !/^[0-9a-f]{64}$/.test(externalId))) {
    return "user.external_id: must be a lower-case SHA-256 hex digest";
  }
  for (const key of ["ttclid", "ip", "user_agent"]) {
    if (e.user[key] !== undefined && typeof e.user[key] !== "string") return `user.${key}: must be a string`;
  }
  if (e.properties !== undefined) {
    if (!isObject(e.properties)) return "properties: must be an object";
    const { value, currency } = e.properties;
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < 0)) return "properties.value: must be a number";
    if (currency !== undefined && (typeof currency !== "string" || !/^[A-Z]{3}$/.test(currency))) return "properties.currency: must be an ISO 4217 code";
    const { content_type: contentType, contents } = e.properties;
    if (contentType !== undefined && contentType !== "product" && contentType !== "product_group") {
      return "properties.content_type: must be product or product_group";
    }
    if (contents !== undefined) {
      if (!Array.isArray(contents)) return "properties.contents: must be an array";
      for (const [i, c] of contents.entries()) {
        const at = `properties.contents[${i}]`;
        if (!isObject(c)) return `${at}: must be an object`;
        for (const key of ["content_id", "content_name", "content_category", "brand"]) {
          if (c[key] !== undefined && typeof c[key] !== "string") return `${at}.${key}: must be a string`;
        }
        if (c.price !== undefined && (typeof c.price !== "number" || !Number.isFinite(c.price) || c.price < 0)) return `${at}.price: must be a number`;
        if (c.quantity !== undefined && (typeof c.quantity !== "number" || !Number.isInteger(c.quantity) || c.quantity < 1)) {
          return `${at}.quantity: must be a whole number of at least 1`;
        }
      }
    }
  }
  return null;
}

/** Purchase events: Events Manager's diagnostics ask these for value, currency and what was bought. */
const PURCHASE_EVENTS = new Set(["CompletePayment", "PlaceAnOrder"]);

/** What Events Manager's diagnostics would flag in an event it took (not a refusal: the event counts). */
function diagnosticsOf(e: ReceivedEvent): string[] {
  if (!PURCHASE_EVENTS.has(e.event)) return [];
  const p = e.properties ?? {};
  const issues: string[] = [];
  if (p.value === undefined) issues.push("missing value");
  if (p.currency === undefined) issues.push("missing currency");
  if (p.content_type === undefined) issues.push("missing content_type");
  if (!p.contents?.length) issues.push("missing contents");
  else if (p.contents.some((c) => !c.content_id)) issues.push("missing content_id");
  return issues;
}

export function createTikTokEventsFake(options: EventsFakeOptions = {}) {
  const state = {
    accessToken: options.accessToken ?? "events-test-token",
    pixelCodes: options.pixelCodes ? new Set(options.pixelCodes) : null,
    failures: [] as EventsFakeFailure[],
    /** Set by `holdNext`: the next call waits for it before it is answered. */
    hold: null as (() => Promise<void>) | null,
    /** Per event taken, what Events Manager's diagnostics would flag. */
    diagnostics: [] as { event: string; event_id: string; issues: string[] }[],
    /** Unique events by event + event_id, in arrival order. */
    events: new Map<string, ReceivedEvent>(),
    /** Events that repeated one already received (TikTok drops these). */
    duplicates: 0,
    /** Every call: how many events it carried and how it was answered. */
    calls: [] as { events: number; code: number | null; status: number }[],
  };

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== TIKTOK_EVENTS_FAKE_PATH || request.method !== "POST") {
      return new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } });
    }
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return answer(0, 40002, "Invalid JSON body");
    }
    const data = isObject(body) && Array.isArray(body.data) ? body.data : null;
    const count = data?.length ?? 0;
    if (state.hold) {
      const hold = state.hold;
      state.hold = null;
      await hold();
    }
    const failure = state.failures.shift();
    if (failure) {
      if ("code" in failure) return answer(count, failure.code, failure.message);
      state.calls.push({ events: count, code: null, status: failure.status });
      return new Response(failure.text, { status: failure.status });
    }
    const token = request.headers.get("Access-Token");
    if (!token) return answer(count, 40104, "Access token is null");
    if (token !== state.accessToken) return answer(count, 40105, "Access token is incorrect or has been revoked");
    if (!isObject(body) || body.event_source !== "web" || typeof body.event_source_id !== "string" || !body.event_source_id) {
      return answer(count, 40002, "event_source and event_source_id are required");
    }
    if (state.pixelCodes && !state.pixelCodes.has(body.event_source_id)) {
      return answer(count, 40001, `No permission to operate pixel ${body.event_source_id}`);
    }
    if (!data || data.length === 0) return answer(count, 40002, "data: required");
    if (data.length > MAX_EVENTS) return answer(count, 40002, `data: at most ${MAX_EVENTS} events`);
    const now = Date.now();
    for (const [i, e] of data.entries()) {
      const problem = eventProblem(e, now);
      // One malformed event fails the whole call: nothing of it is kept.
      if (problem) return answer(count, 40002, `data[${i}].${problem}`);
    }
    const testEventCode = typeof body.test_event_code === "string" ? body.test_event_code : null;
    for (const e of data as ReceivedEvent[]) {
      const key = `${e.event}\u0000${e.event_id}`;
      if (state.events.has(key)) state.duplicates++;
      else {
        state.events.set(key, { ...e, pixelCode: body.event_source_id, testEventCode });
        const issues = diagnosticsOf(e);
        if (issues.length) state.diagnostics.push({ event: e.event, event_id: e.event_id, issues });
      }
    }
    return answer(count, 0, "OK");
  }

  /** TikTok's answer, noted in `calls`. */
  function answer(events: number, code: number, message: string) {
    state.calls.push({ events, code, status: 200 });
    return json(code, message);
  }

  return {
    state,
    handle,
    fetch: (input: Request | string | URL, init?: RequestInit) => handle(new Request(input, init)),
    /** The next calls answer these, one each, before any check. */
    failNext: (...failures: EventsFakeFailure[]) => state.failures.push(...failures),
    /**
     * The next call waits, once it has arrived (`arrived` settles), until `release` is called;
     * it is then answered as any other (a `failNext` queued meanwhile included).
     */
    holdNext() {
      let release!: () => void;
      let arrived!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const reached = new Promise<void>((r) => (arrived = r));
      state.hold = () => (arrived(), gate);
      return { arrived: reached, release };
    },
    received: () => [...state.events.values()],
  };
}

export type TikTokEventsFake = ReturnType<typeof createTikTokEventsFake>;
