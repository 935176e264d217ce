/**
 * A local stand-in for Slack's incoming webhooks (`POST /services/T…/B…/…` with a JSON body of
 * `text` and optional `blocks`), answering as Slack documents: 200 `ok`; 400 `invalid_payload`
 * without `text`; 404 `no_service` for a webhook it does not know, 410 `channel_is_archived`;
 * 403 `action_prohibited`; and on request the next calls answer a given status (404, 410, 429,
 * 500, ...) with Slack's words for it. It keeps what it received so a test can read it back.
 *
 * A plain fetch handler with no Worker-only APIs: the worker tests inject it, and
 * scripts/lib/fakes.mjs serves it over HTTP for `npm run fakes`.
 */

export interface SlackPost {
  path: string;
  text: string;
  blocks?: unknown[];
}

const SLACK_SAYS: Record<number, string> = {
  400: "invalid_payload",
  403: "action_prohibited",
  404: "no_service",
  410: "channel_is_archived",
  429: "rate_limited",
  500: "internal_error",
};

export interface SlackFake {
  handle(request: Request): Promise<Response>;
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** The next calls answer these statuses, one each, before answering normally again. */
  failNext(...statuses: number[]): void;
  /** Webhook paths that answer 404 (deleted) from now on. */
  revoke(path: string): void;
  received(): SlackPost[];
}

const text = (status: number, body: string) => new Response(body, { status, headers: { "content-type": "text/plain" } });

export function createSlackFake(): SlackFake {
  const posts: SlackPost[] = [];
  const failures: number[] = [];
  const revoked = new Set<string>();

  async function handle(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (request.method !== "POST" || !/^\/services\/[^/]+\/[^/]+\/[^/]+$/.test(pathname)) return text(404, "no_service");
    const failure = failures.shift();
    if (failure !== undefined) return text(failure, SLACK_SAYS[failure] ?? "error");
    if (revoked.has(pathname)) return text(404, "no_service");
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return text(400, "invalid_payload");
    }
    if (typeof body !== "object" || body === null || typeof (body as { text?: unknown }).text !== "string") return text(400, "no_text");
    const { text: message, blocks } = body as { text: string; blocks?: unknown[] };
    posts.push({ path: pathname, text: message, blocks });
    return text(200, "ok");
  }

  return {
    handle,
    fetch: (input, init) => handle(new Request(input, init)),
    failNext: (...statuses) => failures.push(...statuses),
    revoke: (path) => revoked.add(path),
    received: () => [...posts],
  };
}
