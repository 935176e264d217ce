import { ApiError, badRequest } from "../lib/errors";
import { MAX_STATEMENT_BYTES } from "../schemas/transactions";

/** File signatures of what people upload by mistake, each with the advice that fixes it. */
const SIGNATURES: { bytes: number[]; what: string }[] = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: "an Excel workbook (.xlsx) or a ZIP archive" },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: "an old Excel workbook (.xls)" },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: "a PDF document" },
  { bytes: [0x1f, 0x8b], what: "a gzip archive" },
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: "a PNG image" },
  { bytes: [0xff, 0xd8, 0xff], what: "a JPEG image" },
];
/** Enough of the start of a file to compare with every signature. */
const HEAD_BYTES = 4;

const startsWith = (data: Uint8Array, prefix: number[]) => prefix.every((b, i) => data[i] === b);

const AS_CSV = "Download the transaction export again as CSV and upload that file.";
const AS_UTF8 = 'Save the statement as "CSV UTF-8" and upload it again.';

export const tooLarge = () => new ApiError(413, "The file is larger than 10 MB", ["Upload the statement in parts (for example one month at a time)."]);

/**
 * The text of an uploaded statement, decoded piece by piece as it arrives (`write`, then `end`).
 * The export is UTF-8 (docs/integrations.md), possibly with a BOM, which is dropped. Anything else
 * is refused with a reason rather than parsed into garbage rows: a workbook renamed .csv would
 * otherwise turn into a screenful of bogus validation errors.
 *
 * The refusals keep the order they have for a file read whole: over 10 MB (413, as soon as the
 * file passes it) first, then empty, a known signature, UTF-16, any NUL byte, and only then
 * text that is not UTF-8. Once the file is known to be refused no more text is given out, but the
 * rest must still be written, so that a reason further up that order can still win.
 */
export class StatementDecoder {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  private head: Uint8Array | undefined = new Uint8Array(0);
  private size = 0;
  private refusal: ApiError | undefined;
  private binary = false;
  private notUtf8 = false;

  constructor(private readonly maxBytes = MAX_STATEMENT_BYTES) {}

  /** The text of `bytes` ("" while the first bytes are gathered, or once the file is refused). */
  write(bytes: Uint8Array): string {
    this.size += bytes.length;
    if (this.size > this.maxBytes) throw tooLarge();
    if (this.head) {
      // The first few bytes decide the signature checks: gathered when they arrive split.
      const head: Uint8Array = new Uint8Array(this.head.length + bytes.length);
      head.set(this.head);
      head.set(bytes, this.head.length);
      if (head.length < HEAD_BYTES) {
        this.head = head;
        return "";
      }
      this.head = undefined;
      this.checkHead(head);
      return this.decode(head, true);
    }
    return this.decode(bytes, true);
  }

  /** The last of the text; throws the file's refusal, if any. */
  end(): string {
    if (this.head) {
      const head = this.head;
      this.head = undefined;
      if (head.length === 0) throw badRequest("The file is empty", [AS_CSV]);
      this.checkHead(head);
      const text = this.decode(head, true);
      return text + this.finish();
    }
    return this.finish();
  }

  private finish() {
    const text = this.decode(new Uint8Array(0), false);
    if (this.refusal) throw this.refusal;
    if (this.binary) throw badRequest("This file is not a CSV file", ["It contains binary data.", AS_CSV]);
    if (this.notUtf8) throw badRequest("This file is not UTF-8 text", [AS_UTF8, AS_CSV]);
    return text;
  }

  private checkHead(head: Uint8Array) {
    const known = SIGNATURES.find((s) => startsWith(head, s.bytes));
    if (known) this.refusal = badRequest("This file is not a CSV file", [`It is ${known.what} renamed to .csv.`, AS_CSV]);
    else if (startsWith(head, [0xff, 0xfe]) || startsWith(head, [0xfe, 0xff])) {
      this.refusal = badRequest("This file is UTF-16 text, not UTF-8", [AS_UTF8]);
    }
  }

  private decode(bytes: Uint8Array, stream: boolean) {
    // Text files never contain NUL bytes; binary files nearly always do.
    if (bytes.indexOf(0) !== -1) this.binary = true;
    if (this.refusal || this.binary || this.notUtf8) return "";
    try {
      return this.decoder.decode(bytes, { stream });
    } catch {
      this.notUtf8 = true;
      return "";
    }
  }
}

/** The text of a statement held whole (StatementDecoder over one piece); refuses as it does. */
export function decodeStatement(data: Uint8Array, maxBytes = MAX_STATEMENT_BYTES): string {
  const decoder = new StatementDecoder(maxBytes);
  const text = decoder.write(data);
  return text + decoder.end();
}
