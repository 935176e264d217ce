// A small SOCKS5 proxy (RFC 1928, user/password per RFC 1929, CONNECT only) for trying the
// experimental SOCKS5 route locally: NAMECHEAP_PROXY=socks5://user:pass@127.0.0.1:<port>. It
// connects only to this machine (the local fakes), so it can never relay anything elsewhere.
import { connect, createServer } from "node:net";

const isLocal = (host) => host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Resolves { port, server, state } once listening; `state.connections` counts CONNECTs relayed. */
export function startSocks5Server({ port = 0, username = "fake", password = "fake" } = {}) {
  const state = { connections: 0, refused: 0 };
  const server = createServer((client) => {
    let buffer = Buffer.alloc(0);
    let step = "greeting";
    const fail = (reply) => {
      state.refused++;
      client.end(reply);
    };
    const onData = (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (step === "greeting") {
          if (buffer.length < 2 || buffer.length < 2 + buffer[1]) return;
          const methods = [...buffer.subarray(2, 2 + buffer[1])];
          buffer = buffer.subarray(2 + buffer[1]);
          if (buffer.length === 0 && !methods.includes(2)) return fail(Buffer.from([5, 0xff]));
          client.write(Buffer.from([5, 2]));
          step = "auth";
        } else if (step === "auth") {
          if (buffer.length < 2) return;
          const ulen = buffer[1];
          if (buffer.length < 3 + ulen || buffer.length < 3 + ulen + buffer[2 + ulen]) return;
          const plen = buffer[2 + ulen];
          const user = buffer.subarray(2, 2 + ulen).toString();
          const pass = buffer.subarray(3 + ulen, 3 + ulen + plen).toString();
          buffer = buffer.subarray(3 + ulen + plen);
          if (user !== username || pass !== password) return fail(Buffer.from([1, 1]));
          client.write(Buffer.from([1, 0]));
          step = "connect";
        } else if (step === "connect") {
          if (buffer.length < 5) return;
          const type = buffer[3];
          const addrLen = type === 1 ? 4 : type === 3 ? 1 + buffer[4] : type === 4 ? 16 : -1;
          if (addrLen < 0) return fail(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
          if (buffer.length < 4 + addrLen + 2) return;
          const host = type === 1 ? [...buffer.subarray(4, 8)].join(".") : type === 3 ? buffer.subarray(5, 5 + buffer[4]).toString() : "::1";
          const targetPort = buffer.readUInt16BE(4 + addrLen);
          const rest = buffer.subarray(4 + addrLen + 2);
          client.off("data", onData);
          if (buffer[1] !== 1) return fail(Buffer.from([5, 7, 0, 1, 0, 0, 0, 0, 0, 0]));
          if (!isLocal(host)) return fail(Buffer.from([5, 2, 0, 1, 0, 0, 0, 0, 0, 0]));
          const upstream = connect(targetPort, host === "localhost" ? "127.0.0.1" : host, () => {
            state.connections++;
            // A reply with a domain-name bound address: the client must read its length byte.
            const bound = Buffer.from("fake-socks.local");
            client.write(Buffer.concat([Buffer.from([5, 0, 0, 3, bound.length]), bound, Buffer.from([0x04, 0x38])]));
            if (rest.length) upstream.write(rest);
            client.pipe(upstream).pipe(client);
          });
          upstream.on("error", () => fail(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
          return;
        }
      }
    };
    client.on("data", onData);
    client.on("error", () => {});
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve({ port: server.address().port, server, state }));
  });
}
