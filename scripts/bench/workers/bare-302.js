// The benchmark's baseline: a Worker that does nothing but answer 302. Deliberately not .mjs, so
// scripts/bench.mjs does not mistake it for a benchmark.
export default {
  fetch() {
    return new Response(null, { status: 302, headers: { Location: "https://lander.example/" } });
  },
};
