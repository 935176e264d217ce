// `npm start`: build the web app, migrate the local D1, serve everything on http://localhost:$PORT.
// PORT (default 8787) and STATE_DIR (default .wrangler/state) let two copies run side by side.
import { buildWeb, startServer } from "./lib/server.mjs";

const port = Number(process.env.PORT ?? 8787);
const stateDir = process.env.STATE_DIR ?? ".wrangler/state";

buildWeb();
const server = await startServer({ port, stateDir });
console.log(`\nTrackyard is running on http://localhost:${port} (state in ${stateDir}). Ctrl+C stops it.\n`);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    await server.stop();
    process.exit(0);
  });
}
server.child.on("exit", (code) => process.exit(code ?? 0));
