// Serves a fetch handler (`(Request) => Promise<Response>`, like the fakes in worker/test/fakes/)
// over HTTP on 127.0.0.1, for a Worker under wrangler dev to call.
import { createServer } from "node:http";

/** Resolves { url, server } once listening; port 0 picks a free one. */
export function serveFetch(handle, port = 0) {
  const server = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      // The caller hanging up aborts the handler's request, as a fetch caller's timeout would.
      const aborted = new AbortController();
      res.on("close", () => aborted.abort(new Error("the caller closed the connection")));
      const response = await handle(
        new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined, signal: aborted.signal }),
      );
      const out = {};
      response.headers.forEach((value, key) => (out[key] = value));
      res.writeHead(response.status, out);
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      if (!res.headersSent && !res.destroyed) res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}`, server }));
  });
}
