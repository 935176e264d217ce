import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { verificationCodes } from "../src/db/schema";
import { MAX_MESSAGE_BYTES, MAX_SUBJECT_LENGTH } from "../src/email/handler";
import worker from "../src/index";
import { db } from "./helpers";

const INBOX = "codes@inbox.trackyard.test";

interface MailOptions {
  subject?: string;
  body?: string;
  messageId?: string | null;
  date?: string | null;
  from?: string | null;
  extraHeaders?: string[];
}

/** A plain-text message as a mail server would hand it over. */
function mail({ subject = "Your verification code", body = "Your verification code is 482913.", messageId, date, from, extraHeaders = [] }: MailOptions = {}) {
  const headers = [
    from === null ? null : `From: ${from ?? "Acme <no-reply@acme.example>"}`,
    `To: ${INBOX}`,
    `Subject: ${subject}`,
    date === null ? null : `Date: ${date ?? new Date().toUTCString()}`,
    messageId === null ? null : `Message-ID: ${messageId ?? `<${crypto.randomUUID()}@acme.example>`}`,
    "MIME-Version: 1.0",
    ...extraHeaders,
  ].filter((h): h is string => h !== null);
  if (!extraHeaders.some((h) => /^content-type:/i.test(h))) headers.push('Content-Type: text/plain; charset="utf-8"');
  return `${headers.join("\r\n")}\r\n\r\n${body.replace(/\r?\n/g, "\r\n")}\r\n`;
}

interface FakeOptions {
  to?: string;
  from?: string;
  rawSize?: number;
}

/** A ForwardableEmailMessage as Email Routing builds it, with spies on what the handler may call. */
function fakeMessage(raw: string | Uint8Array, { to = INBOX, from = "bounces@acme.example", rawSize }: FakeOptions = {}) {
  const bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
  const headers = new Headers();
  const headerBlock = new TextDecoder().decode(bytes.subarray(0, 64 * 1024)).split(/\r?\n\r?\n/)[0] ?? "";
  for (const line of headerBlock.split(/\r?\n/)) {
    const m = /^([\w-]+):\s*(.*)$/.exec(line);
    if (m) headers.append(m[1]!, m[2]!);
  }
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Handed over in 64 KiB chunks, like a network stream.
      if (pulled >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(pulled, pulled + 64 * 1024));
      pulled += 64 * 1024;
    },
  });
  const message = {
    from,
    to,
    headers,
    raw: stream,
    rawSize: rawSize ?? bytes.byteLength,
    setReject: vi.fn<(reason: string) => void>(),
    forward: vi.fn(async () => ({ messageId: "unused" })),
    reply: vi.fn(async () => ({ messageId: "unused" })),
  };
  return message satisfies ForwardableEmailMessage;
}

const withRecipients = (value: string) => ({ ...env, CODES_RECIPIENTS: value });

/** Delivered to a Worker whose CODES_RECIPIENTS lists the test inbox, unless `bindings` say otherwise. */
async function deliver(message: ForwardableEmailMessage, bindings: typeof env = withRecipients(INBOX)) {
  const ctx = createExecutionContext();
  await worker.email(message, bindings, ctx);
  await waitOnExecutionContext(ctx);
}

const storedWithId = (messageId: string) => db().select().from(verificationCodes).where(eq(verificationCodes.messageId, messageId));
const countCodes = async () => (await db().select({ id: verificationCodes.id }).from(verificationCodes)).length;

let logs: string[];
beforeEach(() => {
  logs = [];
  for (const method of ["log", "error", "warn", "info"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logs.push(args.map(String).join(" "));
    });
  }
});
afterEach(() => vi.restoreAllMocks());

describe("email(): recipients", () => {
  it("stores the code of a message for a listed recipient, whatever the address's case", async () => {
    const messageId = `<${crypto.randomUUID()}@accounts.google.com>`;
    const message = fakeMessage(
      mail({
        messageId,
        date: new Date(Date.now() - 60_000).toUTCString(),
        from: "Google <no-reply@accounts.google.com>",
        subject: "G-731904 is your Google verification code",
        body: "G-731904 is your Google verification code.",
      }),
      { to: "Codes@Inbox.Trackyard.TEST", from: "ads.team+caf_=codes=inbox.trackyard.test@gmail.com" },
    );
    const before = Date.now();
    await deliver(message, withRecipients(` other@inbox.trackyard.test , ${INBOX} `));
    expect(message.setReject).not.toHaveBeenCalled();
    const [row] = await storedWithId(messageId);
    expect(row).toMatchObject({
      code: "731904",
      subject: "G-731904 is your Google verification code",
      // The From header names the service; the envelope is the forwarding mailbox.
      sender: "no-reply@accounts.google.com",
      messageId,
    });
    expect(row!.extractedAt).toBeGreaterThanOrEqual(before);
    expect(row!.receivedAt).toBeLessThan(row!.extractedAt);
    // The Date header, a minute before arrival, is the received time.
    expect(row!.receivedAt).toBeGreaterThan(before - 120_000);
  });

  it("rejects a recipient that is not listed, without reading the message", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const message = fakeMessage(mail({ messageId }), { to: "sales@inbox.trackyard.test" });
    await deliver(message, withRecipients(INBOX));
    expect(message.setReject).toHaveBeenCalledOnce();
    expect(message.setReject.mock.calls[0]![0]).toMatch(/^Recipient not accepted/);
    expect(message.raw.locked).toBe(false);
    expect(await storedWithId(messageId)).toHaveLength(0);
  });

  it("accepts every recipient when CODES_RECIPIENTS is *, as in local development", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const message = fakeMessage(mail({ messageId }), { to: "anything@localhost" });
    await deliver(message, withRecipients(" * "));
    expect(message.setReject).not.toHaveBeenCalled();
    expect(await storedWithId(messageId)).toHaveLength(1);
  });

  it("rejects every message when CODES_RECIPIENTS is empty (the deployed default), saying what to set", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const message = fakeMessage(mail({ messageId }));
    await deliver(message, withRecipients("  "));
    expect(message.setReject).toHaveBeenCalledOnce();
    expect(await storedWithId(messageId)).toHaveLength(0);
    expect(logs.join("\n")).toContain("CODES_RECIPIENTS is empty: set it to the inbox addresses");
  });
});

describe("email(): senders", () => {
  const withSenders = (value: string | undefined) => ({ ...withRecipients(INBOX), CODES_SENDERS: value });
  const unsetLines = () => logs.filter((l) => l.includes("CODES_SENDERS is not set, so mail from any sender is accepted"));

  it("takes mail from any sender while CODES_SENDERS is unset (a deployed Worker's default), and logs it with every message", async () => {
    for (const [i, value] of [undefined, "", " , "].entries()) {
      const messageId = `<${crypto.randomUUID()}@acme.example>`;
      const message = fakeMessage(mail({ messageId }), { from: `stranger${i}@elsewhere.example` });
      await deliver(message, withSenders(value));
      expect(message.setReject, String(value)).not.toHaveBeenCalled();
      expect(await storedWithId(messageId), String(value)).toHaveLength(1);
      expect(unsetLines(), String(value)).toHaveLength(i + 1);
    }
    expect(unsetLines()[0]).toContain("set it to the forwarding mailboxes (comma-separated, or @domain for a whole domain), or to * to accept any sender");
  });

  it("takes mail from any sender without a word when CODES_SENDERS is *, as npm start writes it locally", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const message = fakeMessage(mail({ messageId }), { from: "stranger@elsewhere.example" });
    await deliver(message, withSenders(" * "));
    expect(message.setReject).not.toHaveBeenCalled();
    expect(await storedWithId(messageId)).toHaveLength(1);
    expect(unsetLines()).toEqual([]);
  });

  it("says nothing about senders when CODES_SENDERS lists the forwarding mailboxes", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const message = fakeMessage(mail({ messageId }), { from: "ads.team@gmail.example" });
    await deliver(message, withSenders("ads.team@gmail.example"));
    expect(await storedWithId(messageId)).toHaveLength(1);
    expect(unsetLines()).toEqual([]);
  });
});

describe("email(): the same message twice", () => {
  it("stores a message once when it is delivered again with the same Message-ID", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    await deliver(fakeMessage(mail({ messageId })));
    await deliver(fakeMessage(mail({ messageId })));
    expect(await storedWithId(messageId)).toHaveLength(1);
    expect(logs).toContain("codes: duplicate message (same Message-ID), already stored");
  });

  it("stores it once when many deliveries of it arrive at the same time", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    await Promise.all(Array.from({ length: 25 }, () => deliver(fakeMessage(mail({ messageId })))));
    expect(await storedWithId(messageId)).toHaveLength(1);
  });

  it("still stores a message without a Message-ID (and cannot tell its copies apart)", async () => {
    const before = await countCodes();
    const body = "Your verification code is 915340.";
    await deliver(fakeMessage(mail({ messageId: null, body })));
    await deliver(fakeMessage(mail({ messageId: null, body })));
    const rows = await db().select().from(verificationCodes).where(eq(verificationCodes.code, "915340"));
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.messageId === null)).toBe(true);
    expect(await countCodes()).toBe(before + 2);
  });

  it("keeps an overlong Message-ID exact by storing its hash", async () => {
    const messageId = `<${"x".repeat(400)}@acme.example>`;
    await deliver(fakeMessage(mail({ messageId, body: "Your verification code is 603318." })));
    await deliver(fakeMessage(mail({ messageId, body: "Your verification code is 603318." })));
    const rows = await db().select().from(verificationCodes).where(eq(verificationCodes.code, "603318"));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.messageId).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("email(): hostile and broken messages", () => {
  it("refuses a 30 MB message from its declared size, before reading it", async () => {
    const message = fakeMessage(mail(), { rawSize: 30 * 1024 * 1024 });
    await deliver(message);
    expect(message.setReject).toHaveBeenCalledOnce();
    expect(message.setReject.mock.calls[0]![0]).toMatch(/^Message too large/);
    expect(message.raw.locked).toBe(false);
  });

  it("refuses a message whose stream runs past the limit even if its declared size is small", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const huge = mail({ messageId, body: `Your verification code is 482913.\n${"A".repeat(MAX_MESSAGE_BYTES)}` });
    const message = fakeMessage(huge, { rawSize: 1_000 });
    await deliver(message);
    expect(message.setReject).toHaveBeenCalledOnce();
    expect(await storedWithId(messageId)).toHaveLength(0);
  });

  it.each([
    ["empty input", ""],
    ["binary noise", String.fromCharCode(...Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
    ["headers only, no body", "From: a@b.example\r\nSubject: hello"],
    [
      "a multipart whose boundary never closes and whose parts lie about their encoding",
      'From: x@y.example\r\nMessage-ID: <m1@y.example>\r\nContent-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain; charset=x-unknown\r\nContent-Transfer-Encoding: base64\r\n\r\n@@@###!!!\r\n--b\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>=ZZ=\r\n',
    ],
    [
      "multiparts nested deeper than the parser allows",
      `From: x@y.example\r\nMessage-ID: <deep@y.example>\r\n${Array.from({ length: 80 }, (_, i) => `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n`).join("")}Content-Type: text/plain\r\n\r\nYour verification code is 482913\r\n`,
    ],
    ["a header block of 600 KB", `From: x@y.example\r\nX-Junk: ${"a".repeat(600 * 1024)}\r\nSubject: code\r\n\r\nYour verification code is 482913\r\n`],
  ])("never throws on %s", async (_, raw) => {
    const message = fakeMessage(raw);
    await expect(deliver(message)).resolves.toBeUndefined();
    expect(message.setReject).not.toHaveBeenCalled();
  });

  it("reads the code next to a zip attachment, and stores nothing for a zip alone", async () => {
    const zip = btoa(String.fromCharCode(0x50, 0x4b, 0x03, 0x04, ...Array.from({ length: 300 }, (_, i) => (i * 31) % 256)));
    const withZip = (text: string, messageId: string) =>
      mail({
        messageId,
        subject: "Export ready",
        extraHeaders: ['Content-Type: multipart/mixed; boundary="z"'],
        body: `--z\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--z\r\nContent-Type: application/zip; name="export.zip"\r\nContent-Disposition: attachment; filename="export.zip"\r\nContent-Transfer-Encoding: base64\r\n\r\n${zip}\r\n--z--`,
      });
    const withCode = `<${crypto.randomUUID()}@acme.example>`;
    const zipOnly = `<${crypto.randomUUID()}@acme.example>`;
    await deliver(fakeMessage(withZip("Your login code is 937104.", withCode)));
    await deliver(fakeMessage(withZip("The archive you asked for is attached.", zipOnly)));
    expect((await storedWithId(withCode))[0]?.code).toBe("937104");
    expect(await storedWithId(zipOnly)).toHaveLength(0);
  });

  it("finds the code of a message forwarded as an attachment", async () => {
    const messageId = `<${crypto.randomUUID()}@northwind.example>`;
    const inner = mail({ subject: "[GitHub] Please verify your device", body: "Verification code: 215608", from: "GitHub <noreply@github.com>" });
    const outer = mail({
      messageId,
      subject: "Fwd: [GitHub] Please verify your device",
      extraHeaders: ['Content-Type: multipart/mixed; boundary="f"'],
      body: `--f\r\nContent-Type: text/plain\r\n\r\nForwarding this one.\r\n--f\r\nContent-Type: message/rfc822\r\nContent-Disposition: attachment; filename="github.eml"\r\n\r\n${inner}\r\n--f--`,
    });
    await deliver(fakeMessage(outer));
    expect((await storedWithId(messageId))[0]?.code).toBe("215608");
  });
});

describe("email(): what is stored and logged", () => {
  it("stores nothing for a message without a code and logs one line without its content", async () => {
    const messageId = `<${crypto.randomUUID()}@shop.example>`;
    // Senders chosen (any), so the inbox has nothing to say about its settings: the one line is the message's.
    const bindings = { ...withRecipients(INBOX), CODES_SENDERS: "*" };
    await deliver(
      fakeMessage(mail({ messageId, subject: "Your order 4829137 has shipped", body: "Tracking number 1Z999AA10123456784. Total $124.99." })),
      bindings,
    );
    expect(await storedWithId(messageId)).toHaveLength(0);
    expect(logs).toEqual(["codes: message without a verification code, not stored"]);
  });

  it("never logs a code, a subject or an address", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    await deliver(fakeMessage(mail({ messageId, subject: "Secret subject 771204", body: "Your verification code is 771204." })));
    expect((await storedWithId(messageId))[0]?.code).toBe("771204");
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) expect(line).not.toMatch(/771204|Secret subject|acme\.example/);
  });

  it("cuts a long subject and falls back to the envelope sender without a From header", async () => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const subject = `Your verification code is 550917 ${"and more words ".repeat(40)}`;
    await deliver(fakeMessage(mail({ messageId, subject, from: null }), { from: "envelope@relay.example" }));
    const [row] = await storedWithId(messageId);
    expect(row!.code).toBe("550917");
    expect(Array.from(row!.subject)).toHaveLength(MAX_SUBJECT_LENGTH);
    expect(row!.subject.endsWith("…")).toBe(true);
    expect(row!.sender).toBe("envelope@relay.example");
  });

  it.each([
    ["no Date header", null],
    ["an unreadable Date", "sometime last week"],
    ["a Date far in the past", "Mon, 01 Jan 2001 00:00:00 +0000"],
    ["a Date in the future", new Date(Date.now() + 3 * 60 * 60 * 1000).toUTCString()],
  ])("takes the arrival time as the received time for %s", async (_, date) => {
    const messageId = `<${crypto.randomUUID()}@acme.example>`;
    const before = Date.now();
    await deliver(fakeMessage(mail({ messageId, date })));
    const [row] = await storedWithId(messageId);
    expect(row!.receivedAt).toBeGreaterThanOrEqual(before);
    expect(row!.receivedAt).toBeLessThanOrEqual(row!.extractedAt);
  });
});
