/**
 * HTTP over a SOCKS5 proxy from a Worker: `fetch()` cannot use a proxy, so the exchange is done by
 * hand on a TCP socket from `connect()`: the SOCKS5 handshake (RFC 1928, user/password from RFC
 * 1929), then `startTls()` to the target, then one HTTP/1.1 request and its response.
 *
 * EXPERIMENTAL (README, "Reaching Namecheap"): on Cloudflare's production edge `startTls()` sends no
 * SNI (workerd issue #6903), so a target that needs SNI fails there while local runs pass. The
 * HTTPS relay is the supported route.
 *
 * The socket is an interface here so the protocol can be tested against an in-memory peer.
 */

export interface TcpSocket {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  close(): Promise<void>;
  startTls(options?: { expectedServerHostname?: string }): TcpSocket;
}

export type ConnectFn = (address: { hostname: string; port: number }, options: { secureTransport: "starttls"; allowHalfOpen: boolean }) => TcpSocket;

export interface Socks5Proxy {
  host: string;
  port: number;
  username: string;
  password: string;
}

export interface PlainRequest {
  method: "GET" | "POST";
  url: URL;
  headers?: Record<string, string>;
  body?: string;
}

export interface PlainResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

export class Socks5Error extends Error {
  constructor(
    message: string,
    /** False once request bytes may have reached the target: the caller must not assume nothing happened. */
    readonly beforeRequest: boolean,
  ) {
    super(message);
    this.name = "Socks5Error";
  }
}

const REPLY_MEANINGS: Record<number, string> = {
  1: "general SOCKS server failure",
  2: "connection not allowed by its rules",
  3: "network unreachable",
  4: "host unreachable",
  5: "connection refused by the target",
  6: "TTL expired",
  7: "command not supported",
  8: "address type not supported",
};

/** Reads exact byte counts from a stream, keeping what it read past them. */
class ByteReader {
  private buffer = new Uint8Array(0);
  private done = false;
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    const { value, done } = await this.reader.read();
    if (done) {
      this.done = true;
      return false;
    }
    const next = new Uint8Array(this.buffer.length + value.length);
    next.set(this.buffer);
    next.set(value, this.buffer.length);
    this.buffer = next;
    return true;
  }

  async exactly(n: number, what: string): Promise<Uint8Array> {
    while (this.buffer.length < n) {
      if (!(await this.fill())) throw new Error(`the connection closed while reading ${what}`);
    }
    const out = this.buffer.slice(0, n);
    this.buffer = this.buffer.slice(n);
    return out;
  }

  /** Everything up to and including `delimiter`, or null at the end of the stream. */
  async through(delimiter: Uint8Array, limit: number): Promise<Uint8Array | null> {
    for (;;) {
      const at = indexOf(this.buffer, delimiter);
      if (at >= 0) return this.exactly(at + delimiter.length, "a line");
      if (this.buffer.length > limit) throw new Error("the response headers are too long");
      if (!(await this.fill())) return null;
    }
  }

  async rest(limit: number): Promise<Uint8Array> {
    while (await this.fill()) {
      if (this.buffer.length > limit) throw new Error("the response is too long");
    }
    const out = this.buffer;
    this.buffer = new Uint8Array(0);
    return out;
  }

  get pending() {
    return this.buffer.length;
  }

  release() {
    this.reader.releaseLock();
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const encoder = new TextEncoder();
const CRLF = encoder.encode("\r\n");
const HEADERS_END = encoder.encode("\r\n\r\n");
const MAX_RESPONSE = 4_000_000;

async function write(socket: TcpSocket, bytes: Uint8Array) {
  const writer = socket.writable.getWriter();
  try {
    await writer.write(bytes);
  } finally {
    writer.releaseLock();
  }
}

const ipv4Bytes = (host: string) => (/^\d+\.\d+\.\d+\.\d+$/.test(host) ? host.split(".").map(Number) : null);

/** RFC 1928 / 1929: greet, authenticate, CONNECT; reads the whole variable-length reply. */
async function handshake(socket: TcpSocket, proxy: Socks5Proxy, target: { host: string; port: number }) {
  const reader = new ByteReader(socket.readable.getReader());
  try {
    const withPassword = proxy.username !== "" || proxy.password !== "";
    await write(socket, withPassword ? Uint8Array.of(5, 2, 0, 2) : Uint8Array.of(5, 1, 0));
    const [version, method] = await reader.exactly(2, "the proxy's greeting");
    if (version !== 5) throw new Error("it did not answer as a SOCKS5 proxy");
    if (method === 0xff) throw new Error("it accepts none of our authentication methods (user/password or none)");
    if (method === 2) {
      const user = encoder.encode(proxy.username);
      const pass = encoder.encode(proxy.password);
      if (user.length > 255 || pass.length > 255) throw new Error("the proxy username or password is longer than 255 bytes");
      await write(socket, Uint8Array.of(1, user.length, ...user, pass.length, ...pass));
      const [, status] = await reader.exactly(2, "the authentication answer");
      if (status !== 0) throw new Error("it refused the username or password in NAMECHEAP_PROXY");
    } else if (method !== 0) {
      throw new Error(`it chose an authentication method we do not speak (${method})`);
    }
    const ip = ipv4Bytes(target.host);
    const host = encoder.encode(target.host);
    const address = ip ? Uint8Array.of(1, ...ip) : Uint8Array.of(3, host.length, ...host);
    await write(socket, Uint8Array.of(5, 1, 0, ...address, target.port >> 8, target.port & 0xff));
    const [, reply, , addressType] = await reader.exactly(4, "the CONNECT reply");
    if (reply !== 0) throw new Error(`it could not reach ${target.host}:${target.port}: ${REPLY_MEANINGS[reply!] ?? `error ${reply}`}`);
    // The bound address has a variable length: read all of it, so no reply byte is left for TLS.
    const addressLength = addressType === 1 ? 4 : addressType === 4 ? 16 : addressType === 3 ? (await reader.exactly(1, "the bound address"))[0]! : -1;
    if (addressLength < 0) throw new Error(`its CONNECT reply has an unknown address type (${addressType})`);
    await reader.exactly(addressLength + 2, "the bound address");
    if (reader.pending) throw new Error("it sent data before the connection was ready");
  } finally {
    reader.release();
  }
}

function requestBytes(request: PlainRequest): Uint8Array {
  const { url } = request;
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, "Connection: close", "Accept-Encoding: identity"];
  for (const [k, v] of Object.entries(request.headers ?? {})) lines.push(`${k}: ${v}`);
  const body = request.body === undefined ? new Uint8Array(0) : encoder.encode(request.body);
  if (request.body !== undefined) lines.push(`Content-Length: ${body.length}`);
  const head = encoder.encode(`${lines.join("\r\n")}\r\n\r\n`);
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

/** Reads one HTTP/1.1 response: Content-Length, chunked, or up to the close. */
export async function readHttpResponse(readable: ReadableStream<Uint8Array>): Promise<PlainResponse> {
  const reader = new ByteReader(readable.getReader());
  const decoder = new TextDecoder();
  try {
    const head = await reader.through(HEADERS_END, 64_000);
    if (!head) throw new Error("the connection closed before a response arrived");
    const [statusLine = "", ...headerLines] = decoder.decode(head).split("\r\n");
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!status) throw new Error("the answer is not HTTP");
    const headers = new Map<string, string>();
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    let body: Uint8Array;
    if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
      const parts: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const sizeLine = await reader.through(CRLF, 1024);
        if (!sizeLine) throw new Error("the connection closed inside a chunked body");
        const size = parseInt(decoder.decode(sizeLine), 16);
        if (!Number.isFinite(size)) throw new Error("a chunk size is malformed");
        if (size === 0) break;
        total += size;
        if (total > MAX_RESPONSE) throw new Error("the response is too long");
        parts.push(await reader.exactly(size, "a chunk"));
        await reader.exactly(2, "a chunk's end");
      }
      body = new Uint8Array(total);
      let at = 0;
      for (const p of parts) {
        body.set(p, at);
        at += p.length;
      }
    } else if (headers.has("content-length")) {
      const length = Number(headers.get("content-length"));
      if (!Number.isInteger(length) || length < 0 || length > MAX_RESPONSE) throw new Error("the Content-Length is unusable");
      body = await reader.exactly(length, "the body");
    } else {
      body = await reader.rest(MAX_RESPONSE);
    }
    return { status: Number(status[1]), headers, body: decoder.decode(body) };
  } finally {
    reader.release();
  }
}

/**
 * Sends one HTTP request to `request.url` through the SOCKS5 proxy. https targets get TLS through
 * `startTls` (checking the target's name); plain http is used only as given (the caller allows it
 * for loopback stand-ins alone). Aborting `signal` closes the socket.
 */
export async function socks5Request(connect: ConnectFn, proxy: Socks5Proxy, request: PlainRequest, signal?: AbortSignal): Promise<PlainResponse> {
  const secure = request.url.protocol === "https:";
  const target = { host: request.url.hostname.replace(/^\[|\]$/g, ""), port: Number(request.url.port || (secure ? 443 : 80)) };
  let socket: TcpSocket;
  try {
    socket = connect({ hostname: proxy.host, port: proxy.port }, { secureTransport: "starttls", allowHalfOpen: false });
  } catch (err) {
    throw new Socks5Error(`Could not connect to the SOCKS5 proxy at ${proxy.host}:${proxy.port}: ${err instanceof Error ? err.message : String(err)}`, true);
  }
  let sent = false;
  // After startTls the plain socket is spent: closing means closing the TLS one.
  let active = socket;
  const onAbort = () => void active.close().catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    try {
      await handshake(socket, proxy, target);
    } catch (err) {
      throw new Socks5Error(`The SOCKS5 proxy at ${proxy.host}:${proxy.port} failed: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    if (secure) active = socket.startTls({ expectedServerHostname: target.host });
    sent = true;
    await write(active, requestBytes(request));
    return await readHttpResponse(active.readable);
  } catch (err) {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
    if (err instanceof Socks5Error) throw err;
    throw new Socks5Error(`The exchange with ${target.host} through the SOCKS5 proxy failed: ${err instanceof Error ? err.message : String(err)}`, !sent);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await active.close().catch(() => {});
  }
}
