/**
 * A subscriber's endpoint for the webhook tests: records every delivery (headers and body) and
 * answers 200, or what the test queues first (a status, a redirect, no answer at all).
 */
import { hangUntilAborted } from "./hang";

export type ReceiverAnswer = number | "redirect" | "hang";

export interface Received {
  path: string;
  headers: Headers;
  body: string;
  event: { id: string; type: string; created_at: string; data: Record<string, unknown> };
}

export function createReceiverFake() {
  const received: Received[] = [];
  const queued: ReceiverAnswer[] = [];
  let always: ReceiverAnswer | null = null;

  async function handle(request: Request): Promise<Response> {
    const body = await request.text();
    received.push({ path: new URL(request.url).pathname, headers: request.headers, body, event: JSON.parse(body) as Received["event"] });
    const answer = queued.shift() ?? always ?? 200;
    if (answer === "hang") return hangUntilAborted(request.signal);
    if (answer === "redirect") return new Response(null, { status: 302, headers: { location: "https://elsewhere.example.com/hook" } });
    return new Response(answer < 300 ? "ok" : "Internal Server Error", { status: answer });
  }

  return {
    handle,
    received: () => received,
    /** Answers in this order, then 200 (or `always`). */
    answerNext: (...answers: ReceiverAnswer[]) => void queued.push(...answers),
    answerAlways: (answer: ReceiverAnswer | null) => void (always = answer),
  };
}
export type ReceiverFake = ReturnType<typeof createReceiverFake>;
