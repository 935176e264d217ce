import { createExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JOBS, JobTimeout, runScheduled, type Job } from "../src/jobs";
import { unconfiguredEnv } from "./performance-helpers";

const added: Job[] = [];
/** A job run alongside the real ones for one test. */
function withJob(job: Job) {
  JOBS.push(job);
  added.push(job);
}
afterEach(() => {
  for (const job of added.splice(0)) JOBS.splice(JOBS.indexOf(job), 1);
  vi.restoreAllMocks();
});

describe("the cron's jobs run each on its own", () => {
  it("a job that throws or never ends neither stops nor holds up the others; each is its own waitUntil", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const ran: string[] = [];
    withJob({
      name: "test-throws",
      async run() {
        throw new Error("boom (test)");
      },
    });
    withJob({
      name: "test-hangs",
      run: () => new Promise<void>(() => undefined),
    });
    withJob({
      name: "test-after",
      async run() {
        ran.push("after");
      },
    });
    const ctx = createExecutionContext();
    const waitUntil = vi.spyOn(ctx, "waitUntil");
    const started = Date.now();
    const results = await runScheduled(unconfiguredEnv(), Date.now(), ctx, 1_500);
    const byName = Object.fromEntries(JOBS.map((job, i) => [job.name, results[i]!]));
    expect(byName["test-throws"]).toMatchObject({ status: "rejected", reason: new Error("boom (test)") });
    expect(byName["test-hangs"]).toMatchObject({ status: "rejected" });
    expect((byName["test-hangs"] as PromiseRejectedResult).reason).toBeInstanceOf(JobTimeout);
    expect(byName["test-after"]).toMatchObject({ status: "fulfilled" });
    expect(ran).toEqual(["after"]);
    // The real jobs all finished (nothing to do on an unconfigured install), each on its own.
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(JOBS.length - 2);
    expect(waitUntil).toHaveBeenCalledTimes(JOBS.length);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(error).toHaveBeenCalledWith("scheduled job test-hangs failed", expect.any(JobTimeout));
  }, 60_000);
});
