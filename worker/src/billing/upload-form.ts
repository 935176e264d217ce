import { badRequest } from "../lib/errors";

/** One file of a multipart/form-data body: its name and its bytes as they arrive. */
export interface FormFile {
  name: string;
  content: AsyncIterable<Uint8Array>;
}

/** Longest header block of one part (a few lines of a few hundred bytes in practice). */
const MAX_PART_HEADERS = 16 * 1024;
const CRLF = new Uint8Array([13, 10]);
const DASH = 0x2d;
const HEADERS_END = new Uint8Array([13, 10, 13, 10]);
const ascii = new TextEncoder();

const malformed = () =>
  badRequest("The upload is not a valid multipart form", ['Upload the statement from the Billing screen, or send it as the form field "file".']);

/** A request body read forward, with the bytes not consumed yet kept in one buffer. */
class BodyBuffer {
  buffer: Uint8Array = new Uint8Array(0);
  position = 0;
  private ended = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads the next piece of the body into the buffer; false at its end. */
  async more(): Promise<boolean> {
    if (this.ended) return false;
    const { done, value } = await this.reader.read();
    if (done) {
      this.ended = true;
      return false;
    }
    const rest = this.buffer.subarray(this.position);
    if (rest.length === 0) this.buffer = value;
    else {
      const joined = new Uint8Array(rest.length + value.length);
      joined.set(rest);
      joined.set(value, rest.length);
      this.buffer = joined;
    }
    this.position = 0;
    return true;
  }

  /** Where `pattern` next starts in the buffer, or -1. */
  find(pattern: Uint8Array, from = this.position) {
    const { buffer } = this;
    const last = buffer.length - pattern.length;
    for (let i = buffer.indexOf(pattern[0]!, from); i !== -1 && i <= last; i = buffer.indexOf(pattern[0]!, i + 1)) {
      let j = 1;
      while (j < pattern.length && buffer[i + j] === pattern[j]) j++;
      if (j === pattern.length) return i;
    }
    return -1;
  }

  /** Reads until `pattern` is in the buffer (at most `limit` bytes ahead); its position. */
  async seek(pattern: Uint8Array, limit = Infinity) {
    for (;;) {
      const at = this.find(pattern);
      if (at !== -1) return at;
      if (this.buffer.length - this.position > limit || !(await this.more())) throw malformed();
    }
  }

  /** Reads past the next `pattern`. */
  async skipTo(pattern: Uint8Array) {
    for (;;) {
      const at = this.find(pattern);
      if (at !== -1) {
        this.position = at + pattern.length;
        return;
      }
      // All but a possible start of the pattern is passed over.
      this.position = Math.max(this.position, this.buffer.length - pattern.length + 1);
      if (!(await this.more())) throw malformed();
    }
  }

  /** The bytes up to `pattern`, piece by piece as they arrive; the pattern itself is consumed. */
  async *until(pattern: Uint8Array): AsyncGenerator<Uint8Array> {
    for (;;) {
      const at = this.find(pattern);
      if (at !== -1) {
        if (at > this.position) yield this.buffer.subarray(this.position, at);
        this.position = at + pattern.length;
        return;
      }
      const safe = this.buffer.length - pattern.length + 1;
      if (safe > this.position) {
        const piece = this.buffer.subarray(this.position, safe);
        this.position = safe;
        yield piece;
      }
      if (!(await this.more())) throw malformed();
    }
  }
}

/** A header parameter (`name="file"`, `filename=a.csv`), unquoted. */
function parameter(header: string, name: string) {
  const pattern = new RegExp(`;\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i");
  const match = pattern.exec(header);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, "$1") : match[2]!.trim();
}

/**
 * The file in form field `field` of a multipart/form-data request, read as a stream: the parts
 * before it are passed over and its bytes are handed on as they arrive, so the upload is never
 * held whole (Request.formData() would read all of it first). Undefined when the form has no
 * such file; a 400 when the body is not the multipart form its Content-Type says.
 */
export async function readFormFile(request: Request, field: string): Promise<FormFile | undefined> {
  const boundary = parameter(`;${request.headers.get("content-type") ?? ""}`, "boundary");
  if (!boundary || !request.body) throw malformed();
  const body = new BodyBuffer(request.body.getReader());
  const delimiter = ascii.encode(`\r\n--${boundary}`);
  // The first delimiter has no line break before it unless a preamble does.
  const first = delimiter.subarray(2);
  body.position = (await body.seek(first)) + first.length;
  for (;;) {
    // After a delimiter: "--" closes the form, a line break opens the next part.
    while (body.buffer.length - body.position < 2) if (!(await body.more())) throw malformed();
    if (body.buffer[body.position] === DASH && body.buffer[body.position + 1] === DASH) return undefined;
    // The delimiter's line ends the header block too when a part has no headers.
    body.position = await body.seek(CRLF);
    const end = await body.seek(HEADERS_END, MAX_PART_HEADERS);
    const headers = new TextDecoder().decode(body.buffer.subarray(body.position + CRLF.length, Math.max(end, body.position + CRLF.length)));
    body.position = end + HEADERS_END.length;
    const disposition = /^content-disposition:(.*)$/im.exec(headers)?.[1] ?? "";
    const name = parameter(disposition, "name");
    const filename = parameter(disposition, "filename");
    if (name === field && filename !== undefined) return { name: filename, content: body.until(delimiter) };
    await body.skipTo(delimiter);
  }
}
