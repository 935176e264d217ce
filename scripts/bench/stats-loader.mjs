/* global sessionStorage, document -- these run inside the page (page.evaluate, waitForFunction). */
// Benchmark: the Stats screen's time from navigation to its first figures, with the route loader
// prefetching the report (the screen's code and its data requested together) against without it
// (the code first, then the data: the waterfall the loader removes), in the same run.
//
// Each round opens a fresh tab on /codes (so the Stats screen's code is not cached in the page),
// clicks Dashboard in the sidebar, and times until the Our traffic strip shows its figures.
// Rounds alternate loader on / off (the off switch: sessionStorage "trackyard.prefetch" = "off",
// read by web/src/app/router.tsx). Run on loopback, and again with 100 ms added to every request
// (Chromium's network emulation), as a browser far from the Worker sees it.
//
//   BENCH=stats-loader npm run bench                       # about 2 minutes
//   BENCH=stats-loader BENCH_ROUNDS=40 npm run bench        # more rounds
import { signedInBench } from "../lib/bench-browser.mjs";
import { median, pct } from "../lib/percentiles.mjs";
import { buildWeb } from "../lib/server.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);

buildWeb();
const { ctx, setup, close } = await signedInBench("stats-loader");
try {
  await setup.close();

  const results = {};
  for (const latency of [0, 100]) {
    const times = { on: [], off: [] };
    for (let i = 0; i < ROUNDS * 2; i++) {
      const mode = i % 2 === 0 ? "on" : "off";
      const page = await ctx.newPage();
      const cdp = await ctx.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
      if (latency) await cdp.send("Network.emulateNetworkConditions", { offline: false, latency, downloadThroughput: -1, uploadThroughput: -1 });
      await page.goto("/codes");
      await page.getByRole("navigation", { name: "Main" }).waitFor();
      await page.evaluate((m) => (m === "off" ? sessionStorage.setItem("trackyard.prefetch", "off") : sessionStorage.removeItem("trackyard.prefetch")), mode);
      const start = await page.evaluate(() => performance.now());
      await page.getByRole("link", { name: "Dashboard" }).click();
      await page.waitForFunction(() => {
        const strip = document.querySelector('[aria-label="Our traffic"]');
        const dd = strip?.querySelector("dd");
        return dd && /\d/.test(dd.textContent ?? "");
      });
      const end = await page.evaluate(() => performance.now());
      times[mode].push(end - start);
      await page.close();
    }
    results[latency] = times;
    const on = median(times.on);
    const off = median(times.off);
    console.log(
      `${latency ? `+${latency} ms a request` : "loopback"}: with the loader p50 ${on.toFixed(0)} ms (p90 ${pct(times.on, 90).toFixed(0)}), without ${off.toFixed(0)} ms (p90 ${pct(times.off, 90).toFixed(0)}); with / without ${(on / off).toFixed(2)}x over ${ROUNDS} rounds each`,
    );
  }
  const better = median(results[100].on) < median(results[100].off);
  console.log(better ? "PASS: the loader brings the first figures sooner" : "FAIL: the loader did not bring the first figures sooner");
  process.exitCode = better ? 0 : 1;
} finally {
  await close();
}
