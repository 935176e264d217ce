import { badRequest } from "../lib/errors";

/** File signatures of what people upload by mistake, each with the advice that fixes it. */
const SIGNATURES: { bytes: number[]; what: string }[] = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: "an Excel workbook (.xlsx) or a ZIP archive" },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: "an old Excel workbook (.xls)" },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: "a PDF document" },
  { bytes: [0x1f, 0x8b], what: "a gzip archive" },
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: "a PNG image" },
  { bytes: [0xff, 0xd8, 0xff], what: "a JPEG image" },
];

const startsWith = (data: Uint8Array, prefix: number[]) => prefix.every((b, i) => data[i] === b);

const AS_CSV = "Download the transaction export again as CSV and upload that file.";

/**
 * The text of an uploaded statement. The export is UTF-8 (docs/integrations.md), possibly with a BOM,
 * which is dropped. Anything else is refused with a reason rather than parsed into garbage rows:
 * a workbook renamed .csv would otherwise turn into a screenful of bogus validation errors.
 */
export function decodeStatement(data: Uint8Array): string {
  if (data.length === 0) throw badRequest("The file is empty", [AS_CSV]);
  const known = SIGNATURES.find((s) => startsWith(data, s.bytes));
  if (known) throw badRequest("This file is not a CSV file", [`It is ${known.what} renamed to .csv.`, AS_CSV]);
  if (startsWith(data, [0xff, 0xfe]) || startsWith(data, [0xfe, 0xff])) {
    throw badRequest("This file is UTF-16 text, not UTF-8", ['Save the statement as "CSV UTF-8" and upload it again.']);
  }
  // Text files never contain NUL bytes; binary files nearly always do.
  if (data.indexOf(0) !== -1) throw badRequest("This file is not a CSV file", ["It contains binary data.", AS_CSV]);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    throw badRequest("This file is not UTF-8 text", ['Save the statement as "CSV UTF-8" and upload it again.', AS_CSV]);
  }
}
