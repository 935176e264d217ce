/**
 * Events no subscription takes are not put on the webhooks queue: a pull's conversions at the
 * target are hundreds of thousands. In a file of its own, so no other test's subscription is in
 * its database. See docs/webhooks.md "How delivery works".
 */
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { recordPostback } from "../src/db/queries/cake";
import { cakeConversions, webhookSubscriptions } from "../src/db/schema";
import { emitConversionsCreated, emitSentToTikTok, type SentConversion } from "../src/webhooks/emit";
import { bodyOf, client, db, makeAdmin, uniqueName } from "./helpers";

/** A queue binding that keeps what it is given. */
function recordingQueue() {
  const sent: unknown[] = [];
  const queue = {
    sendBatch: vi.fn(async (messages: Iterable<MessageSendRequest>) => {
      for (const m of messages) sent.push(m.body);
    }),
    send: vi.fn(async (body: unknown) => {
      sent.push(body);
    }),
  } as unknown as Queue;
  return { env: { WEBHOOKS_QUEUE: queue }, sent };
}

/** A conversion in the ledger as a postback records it, not yet emitted. */
async function conversion(now: number) {
  const conversionId = uniqueName("cv-");
  expect(
    await recordPostback(db(), { conversionId, date: "2026-11-25", offerId: 11, subid1: "mb1", subid2: "", subid3: "", revenueCents: 1250, receivedAt: now }),
  ).toBe("counted");
  return conversionId;
}

const webhookAtOf = async (conversionId: string) =>
  (await db().select({ at: cakeConversions.webhookAt }).from(cakeConversions).where(eq(cakeConversions.conversionId, conversionId)))[0]?.at;

const sentToTikTok = (id: number, conversionId: string): SentConversion => ({
  id,
  conversionId,
  event: "CompletePayment",
  valueCents: 1250,
  currency: "USD",
  eventAt: Date.now(),
  offerId: 11,
  offerName: "Offer",
});

describe("events no subscription takes", () => {
  it("puts nothing on the queue, claims the conversion all the same, and emits once a subscription takes the event", async () => {
    expect(await db().select().from(webhookSubscriptions)).toEqual([]);
    const before = await conversion(1_000);
    const { env, sent } = recordingQueue();
    await emitConversionsCreated(db(), env, [before], 2_000);
    await emitSentToTikTok(db(), env, [sentToTikTok(1, before)], 2_000);
    expect(sent).toEqual([]);
    // Claimed: a subscription made later does not receive it when a re-pull sees it again.
    expect(await webhookAtOf(before)).toBe(2_000);

    const admin = await makeAdmin();
    await bodyOf(await client(admin).webhooks.$post({ json: { url: "https://hooks.receiver.test/a", events: ["conversion.created"] } }), 201);
    const after = await conversion(3_000);
    await emitConversionsCreated(db(), env, [before, after], 4_000);
    expect(sent).toEqual([
      expect.objectContaining({
        kind: "event",
        event: expect.objectContaining({ type: "conversion.created", data: expect.objectContaining({ conversion_id: after }) }),
      }),
    ]);
    expect(await webhookAtOf(after)).toBe(4_000);
    // Still no one takes conversion.sent_to_tiktok.
    await emitSentToTikTok(db(), env, [sentToTikTok(2, after)], 4_000);
    expect(sent).toHaveLength(1);

    // A switched-off subscription takes nothing.
    await db().update(webhookSubscriptions).set({ disabledAt: 5_000 });
    const off = await conversion(5_000);
    await emitConversionsCreated(db(), env, [off], 6_000);
    expect(sent).toHaveLength(1);
    expect(await webhookAtOf(off)).toBe(6_000);
  });
});
