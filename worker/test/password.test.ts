import { describe, expect, it } from "vitest";
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../src/auth/password";

describe("password hashing", () => {
  it("uses 100,000 PBKDF2 iterations, the most the production runtime allows", () => {
    // Local workerd accepts more; production refuses above this, so the constant is pinned.
    expect(PBKDF2_ITERATIONS).toBe(100_000);
  });

  it("stores a self-describing hash with a random salt", async () => {
    const a = await hashPassword("hunter22hunter22");
    const b = await hashPassword("hunter22hunter22");
    expect(a).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse");
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct hors", hash)).toBe(false);
    expect(await verifyPassword("correct horse", "garbage")).toBe(false);
    expect(await verifyPassword("correct horse", "pbkdf2-sha256$999999999$AA==$AA==")).toBe(false);
  });
});
