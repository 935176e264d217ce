// `npm start`: build the web app, migrate the local D1, serve everything on http://localhost:$PORT.
// PORT (default 8787) and STATE_DIR (default .wrangler/state) let two copies run side by side.
// Every variable and secret the README documents, set in this command's environment, reaches the
// Worker over .dev.vars (scripts/lib/dev-env.mjs), e.g. NAMECHEAP_API_URL=http://127.0.0.1:9000/xml.response npm start.
import { buildWeb, startServer } from "./lib/server.mjs";

const port = Number(process.env.PORT ?? 8787);
const stateDir = process.env.STATE_DIR ?? ".wrangler/state";

buildWeb();
const server = await startServer({ port, stateDir, env: process.env });
console.log(`\nTrackyard is running on http://localhost:${port} (state in ${stateDir}). Ctrl+C stops it.\n`);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    await server.stop();
    process.exit(0);
  });
}
server.child.on("exit", (code) => process.exit(code ?? 0));
