/**
 * A local stand-in for the Telegram Bot API's `POST /bot<token>/sendMessage` with a JSON body of
 * `chat_id`, `text` and optional `parse_mode`, answering in the Bot API's shape `{ ok, result }` or
 * `{ ok: false, error_code, description, parameters? }`: 401 for a token it does not know, 400
 * "chat not found" for a chat the bot is not in, and on request the next calls answer 403 ("bot
 * was blocked by the user" / "bot was kicked"), 429 with `parameters.retry_after`, or a 5xx.
 *
 * A plain fetch handler with no Worker-only APIs: the worker tests inject it, and
 * scripts/lib/fakes.mjs serves it over HTTP for `npm run fakes`.
 */

export interface TelegramMessage {
  token: string;
  chat_id: string;
  text: string;
  parse_mode?: string;
}

/** One answer to give instead of the real one: a status and, for 429, the seconds to wait. */
export interface TelegramFailure {
  status: number;
  retryAfter?: number;
}

export interface TelegramFake {
  handle(request: Request): Promise<Response>;
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  failNext(...failures: TelegramFailure[]): void;
  received(): TelegramMessage[];
}

export interface TelegramFakeOptions {
  /** Tokens the fake knows; any other answers 401. Empty: any token of the right shape. */
  tokens?: string[];
  /** Chats the bot is in; any other answers 400 "chat not found". Empty: every chat. */
  chats?: string[];
}

const DESCRIPTIONS: Record<number, string> = {
  400: "Bad Request: chat not found",
  401: "Unauthorized",
  403: "Forbidden: bot was blocked by the user",
  429: "Too Many Requests: retry after",
  500: "Internal Server Error",
  502: "Bad Gateway",
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const refusal = (status: number, retryAfter?: number) =>
  json(status, {
    ok: false,
    error_code: status,
    description: status === 429 ? `${DESCRIPTIONS[429]} ${retryAfter ?? 1}` : (DESCRIPTIONS[status] ?? "Error"),
    ...(status === 429 ? { parameters: { retry_after: retryAfter ?? 1 } } : {}),
  });

export function createTelegramFake({ tokens = [], chats = [] }: TelegramFakeOptions = {}): TelegramFake {
  const messages: TelegramMessage[] = [];
  const failures: TelegramFailure[] = [];
  let nextId = 1;

  async function handle(request: Request): Promise<Response> {
    const match = /^\/bot([^/]+)\/sendMessage$/.exec(new URL(request.url).pathname);
    if (!match || request.method !== "POST") return json(404, { ok: false, error_code: 404, description: "Not Found" });
    const token = decodeURIComponent(match[1]!);
    if (!/^\d+:[\w-]+$/.test(token) || (tokens.length && !tokens.includes(token))) return refusal(401);
    const failure = failures.shift();
    if (failure) return refusal(failure.status, failure.retryAfter);
    let body: Partial<TelegramMessage>;
    try {
      body = (await request.json()) as Partial<TelegramMessage>;
    } catch {
      return json(400, { ok: false, error_code: 400, description: "Bad Request: message text is empty" });
    }
    const chatId = String(body.chat_id ?? "");
    if (!chatId || (chats.length && !chats.includes(chatId))) return refusal(400);
    if (typeof body.text !== "string" || !body.text) return json(400, { ok: false, error_code: 400, description: "Bad Request: message text is empty" });
    messages.push({ token, chat_id: chatId, text: body.text, ...(body.parse_mode ? { parse_mode: body.parse_mode } : {}) });
    return json(200, { ok: true, result: { message_id: nextId++, chat: { id: chatId }, date: Math.floor(Date.now() / 1000), text: body.text } });
  }

  return {
    handle,
    fetch: (input, init) => handle(new Request(input, init)),
    failNext: (...f) => failures.push(...f),
    received: () => [...messages],
  };
}
