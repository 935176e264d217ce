// Runs `wrangler dev`'s workerd with V8 flags (benchmarks only). Miniflare hands workerd its config
// as a binary Cap'n Proto message on stdin and has no option for the config's `v8Flags` field, but
// it starts the binary named by MINIFLARE_WORKERD_PATH: `workerdWithV8Flags` writes a wrapper there
// that puts the flags into the message and then becomes workerd itself (exec, so that miniflare's
// signals and the process name stay workerd's). Run as a script, this file is the wrapper's filter:
// the message on stdin, the same message with the flags (its arguments) on stdout.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const WORD = 8;
/** The pointer's index of `v8Flags` in workerd's `Config` struct (workerd.capnp: `v8Flags @2`). */
const V8_FLAGS_POINTER = 2;

/**
 * `message` (a single- or multi-segment Cap'n Proto message, stream framing) with its root struct's
 * pointer `V8_FLAGS_POINTER` set to a List(Text) of `flags`, held in a segment added at the end and
 * reached through a far pointer, so nothing in the existing segments moves.
 */
export function withV8Flags(message, flags) {
  const count = message.readUInt32LE(0) + 1;
  const sizes = Array.from({ length: count }, (_, i) => message.readUInt32LE(4 + 4 * i));
  const tableBytes = (n) => Math.ceil((4 + 4 * n) / WORD) * WORD;
  const body = message.subarray(tableBytes(count));
  const root = body.readBigUInt64LE(0);
  if ((root & 3n) !== 0n) throw new Error("the config's root is not a struct");
  const offset = Number(BigInt.asIntN(30, (root >> 2n) & 0x3fffffffn));
  const dataWords = Number((root >> 32n) & 0xffffn);
  const pointerCount = Number((root >> 48n) & 0xffffn);
  if (pointerCount <= V8_FLAGS_POINTER) throw new Error("the config's root struct has no v8Flags pointer");
  const slot = (1 + offset + dataWords + V8_FLAGS_POINTER) * WORD;
  if (body.readBigUInt64LE(slot) !== 0n) throw new Error("the config already sets v8Flags");

  // The new segment: a landing pad (a list pointer to the list right after it), the list of text
  // pointers, then each text, NUL-terminated and padded to a word.
  const texts = flags.map((f) => Buffer.from(`${f}\0`));
  const textWords = texts.map((t) => Math.ceil(t.length / WORD));
  const words = 1 + flags.length + textWords.reduce((a, b) => a + b, 0);
  const segment = Buffer.alloc(words * WORD);
  const listPointer = (offsetWords, elementSize, elements) => BigInt(offsetWords << 2) | 1n | (BigInt(elementSize) << 32n) | (BigInt(elements) << 35n);
  segment.writeBigUInt64LE(listPointer(0, 6, flags.length), 0);
  let at = 1 + flags.length;
  texts.forEach((text, i) => {
    const pointerAt = 1 + i;
    segment.writeBigUInt64LE(listPointer(at - (pointerAt + 1), 2, text.length), pointerAt * WORD);
    text.copy(segment, at * WORD);
    at += textWords[i];
  });

  const patched = Buffer.from(body);
  // A far pointer: kind 2, the landing pad at word 0 of the new segment (index `count`).
  patched.writeBigUInt64LE(2n | (BigInt(count) << 32n), slot);
  const table = Buffer.alloc(tableBytes(count + 1));
  table.writeUInt32LE(count, 0);
  [...sizes, words].forEach((size, i) => table.writeUInt32LE(size, 4 + 4 * i));
  return Buffer.concat([table, patched, segment]);
}

/**
 * Writes an executable wrapper into `dir` that runs `workerd` (the real binary's path) with V8
 * `flags`, its stdout also appended to `logFile` (V8's traces go to stdout, line-buffered here so
 * that they arrive as they happen). Returns its path, for MINIFLARE_WORKERD_PATH.
 */
export function workerdWithV8Flags({ dir, workerd, flags, logFile }) {
  const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  const filter = [process.execPath, fileURLToPath(import.meta.url), ...flags].map(q).join(" ");
  const wrapper = path.join(dir, "workerd-with-v8-flags.sh");
  writeFileSync(wrapper, `#!/bin/bash\nexec stdbuf -oL ${q(workerd)} "$@" < <(${filter}) > >(tee -a ${q(logFile)})\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(withV8Flags(readFileSync(0), process.argv.slice(2)));
}
