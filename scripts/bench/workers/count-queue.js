// Trackyard's Worker with its clicks queue counted, for scripts/bench/clicks-queue.mjs: every
// message the producer sends (and the clicks in it) and every batch its consumer writes, with the
// consumer's time; GET /__bench/queue answers the tally so far. With BENCH_MESSAGE_PER_CLICK=1 each
// click goes to the queue as its own message, by its own send (one queue operation per click, as a
// producer without the isolate's micro-batch would make). Only the bench runs this entry (wrangler
// dev with it as the script); the deployed Worker is worker/src/index.ts, which never counts.
// Deliberately not .mjs, so scripts/bench.mjs does not mistake it for a benchmark.
import worker from "../../../worker/src/index.ts";

// wrangler.toml's [[workflows]] names this class: the entry must export it.
export { CakePullWorkflow, ClickArchiveWorkflow, ClickMoveWorkflow } from "../../../worker/src/index.ts";

const tally = { requests: 0, sends: 0, messages: 0, clicks: 0, deliveries: 0, delivered: 0, consumerMs: 0, lastWrittenAt: 0 };

function counted(queue, perClick) {
  const sendOne = async (body, options) => {
    tally.sends++;
    tally.messages++;
    tally.clicks += body.kind === "clicks" ? body.clicks.length : 0;
    await queue.send(body, options);
  };
  return {
    send: sendOne,
    async sendBatch(messages, options) {
      if (perClick) {
        for (const { body } of messages) {
          if (body.kind !== "clicks") await sendOne(body, options);
          else {
            for (const click of body.clicks) await sendOne({ kind: "clicks", clicks: [click] }, options);
            if (body.exits?.length) await sendOne({ kind: "clicks", clicks: [], exits: body.exits }, options);
          }
        }
        return;
      }
      tally.sends++;
      tally.messages += messages.length;
      for (const { body } of messages) tally.clicks += body.kind === "clicks" ? body.clicks.length : 0;
      await queue.sendBatch(messages, options);
    },
  };
}

export default {
  ...worker,
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__bench/queue") return Response.json(tally);
    tally.requests++;
    return worker.fetch(request, { ...env, CLICKS_QUEUE: counted(env.CLICKS_QUEUE, env.BENCH_MESSAGE_PER_CLICK === "1") }, ctx);
  },
  async queue(batch, env, ctx) {
    const started = Date.now();
    await worker.queue(batch, env, ctx);
    if (batch.queue === "trackyard-clicks") {
      tally.deliveries++;
      tally.delivered += batch.messages.length;
      tally.consumerMs += Date.now() - started;
      tally.lastWrittenAt = Date.now();
    }
  },
};
