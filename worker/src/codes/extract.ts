/**
 * Finds the verification code a person would type from a parsed email (postal-mime's decoded
 * subject, text and html), or null. Pure and synchronous: no I/O, linear-time scanning only,
 * because it runs on whatever anyone mails to the inbox.
 *
 * How it decides (README, "Verification codes", says the same for users):
 * 1. Normalise: NFKC (full-width digits and letters, NBSP and narrow NBSP become ASCII), zero-width
 *    characters removed, dashes unified; HTML is turned into text without <style>/<script> and
 *    without link targets; URLs, e-mail addresses, CSS values and forwarding-header Date lines
 *    (Gmail, Outlook, Apple Mail, postal-mime's own header block) are removed.
 * 2. Keyword-anchored: a candidate right after (or, as in "123456 is your code", right before) a
 *    code keyword in any of the supported languages wins; the closer, the better.
 * 3. Bare-code fallback: only when the mail clearly is a verification mail, a code standing alone
 *    on its own line.
 *
 * What a person types: grouping is display only, so "482 913", "482-913" and "4 8 2 9 1 3" give
 * "482913" and Slack's "KMJ-T04" gives "KMJT04" (its boxes take six characters); the `G-`/`FB-`
 * prefixes are dropped; letters keep their case.
 */
import { htmlToText, joinSplitCodes } from "./html-to-text";

export interface MailText {
  subject?: string | null;
  text?: string | null;
  html?: string | null;
}

/** Codes appear near the top; capping the input bounds the work on huge or hostile mail. */
const MAX_SUBJECT = 2_000;
const MAX_TEXT = 200_000;
const MAX_HTML = 600_000;
/** Anchors examined per source: a mail repeating "code" ten thousand times is not worth more. */
const MAX_ANCHORS = 60;
const AFTER_WINDOW = 220;
const BEFORE_WINDOW = 80;

const B = "(?<![\\p{L}\\p{N}])";
const E = "(?![\\p{L}\\p{N}])";
const alt = (parts: string[]) => parts.join("|");

/**
 * Phrases that name a verification code on their own ("explicit"): a qualifier and a code word.
 * "Generic" ones ("your code", "passcode") also name meeting passcodes, so invites ignore them.
 */
const EXPLICIT = alt([
  // en
  `${B}(?:verification|verify|security|confirmation|authentication|auth|authori[sz]ation|log-?in|sign-?in|sign in|activation|recovery|one[- ]time|single[- ]use|temporary|2fa|two[- ]factor|2[- ]step|mfa|otp|guard|launch|device|identity|login)\\s+(?:pass)?code${E}`,
  `${B}one[- ]time\\s+(?:pass(?:word|code)|pin)${E}`,
  `${B}steam\\s+guard${E}`,
  // es / pt
  `${B}c[oó]digo\\s+(?:de\\s+|do\\s+|da\\s+)?(?:verificaci[oó]n|verifica[cç][aã]o|seguridad|seguran[cç]a|acceso|acesso|confirmaci[oó]n|confirma[cç][aã]o|autenticaci[oó]n|autentica[cç][aã]o|activaci[oó]n|ativa[cç][aã]o|inicio de sesi[oó]n|login|un solo uso|uso [uú]nico)${E}`,
  `${B}(?:clave|contrase[nñ]a|senha)\\s+(?:de\\s+)?(?:verificaci[oó]n|seguridad|un solo uso|temporal|din[aá]mica|uso [uú]nico|tempor[aá]ria)${E}`,
  // fr
  `${B}code\\s+(?:de\\s+|d['’]\\s?)?(?:v[ée]rification|s[ée]curit[ée]|confirmation|connexion|validation|acc[eè]s|activation|authentification|usage unique)${E}`,
  `${B}code\\s+[àa]\\s+usage\\s+unique${E}`,
  `${B}mot de passe\\s+(?:[àa] usage unique|unique|temporaire)${E}`,
  // de
  `${B}(?:best[äa]e?tigungs|sicherheits|verifizierungs|verifikations|anmelde|einmal|zugangs|login|pr[üu]f|authentifizierungs|aktivierungs|freigabe)code${E}`,
  `${B}einmal(?:kennwort|passwort)${E}`,
  // it / nl / pl / tr / id / vi
  `${B}codice\\s+(?:di\\s+)?(?:verifica|sicurezza|conferma|accesso|autenticazione|monouso)${E}`,
  `${B}(?:verificatie|beveiligings|bevestigings|inlog|toegangs)code${E}`,
  `${B}kod\\s+(?:weryfikacyjny|bezpiecze[nń]stwa|potwierdzaj[aą]cy|potwierdzenia|dost[eę]pu|logowania|jednorazowy)${E}`,
  `${B}(?:do[gğ]rulama|g[üu]venlik|onay)\\s+kodu${E}`,
  `${B}kode\\s+(?:verifikasi|keamanan|otp|akses)${E}`,
  `${B}m[ãa]\\s+(?:x[áa]c\\s+(?:minh|th[ựu]c|nh[ậa]n)|b[ảa]o\\s+m[ậa]t|otp)${E}`,
  // ru
  `${B}код\\p{L}{0,3}\\s+(?:подтверждени\\p{L}|проверки|безопасности|для входа|доступа|верификации|авторизации|активации)`,
  `${B}(?:одноразов|проверочн)\\p{L}{0,3}\\s+(?:код|пароль)\\p{L}{0,2}`,
  // zh / ja / ko / ar / hi (no word boundaries in these scripts)
  "验证码|驗證碼|校验码|校驗碼|动态码|動態碼|确认码|確認碼|安全码|安全碼|动态密码|動態密碼|认证码|認證碼|登录码|登入碼|一次性密码",
  "認証コード|確認コード|検証コード|承認コード|認証番号|確認番号|ワンタイムパスワード|ワンタイムコード|ログインコード|セキュリティコード|認証用コード|確認用コード",
  "인증\\s?번호|인증\\s?코드|보안\\s?코드|확인\\s?코드|일회용\\s?(?:비밀번호|코드)|승인\\s?번호",
  "رمز التحقق|رمز التأكيد|كود التحقق|सत्यापन कोड",
]);

const GENERIC = alt([
  `${B}(?:passcode|otp|access\\s+code)${E}`,
  `${B}(?:your|the|this|that|following)\\s+(?:[\\p{L}\\p{N}'’-]{1,30}\\s+){0,2}code${E}`,
  `${B}(?:tu|su|el|este|seu|sua|o|esse)\\s+c[oó]digo${E}`,
  `${B}(?:votre|ton|le|ce)\\s+code${E}`,
  `${B}(?:dein|deinen|ihr|ihren|der|diesen|den)\\s+code${E}`,
  `${B}(?:il tuo|il|questo)\\s+codice${E}`,
  `${B}(?:je|jouw|uw|de)\\s+code${E}`,
  `${B}(?:ваш|твой|этот)\\s+код${E}`,
]);

/** A bare code word: an anchor only in a mail that is clearly about verification. */
const WEAK = `${B}(?:code|codes|c[oó]digo|codice|kod|kode|kodu|код\\p{L}{0,2}|pin)${E}|コード|코드|码|碼`;

/** Code words that are never verification codes; an anchor touching one of these is dropped. */
const NOT_A_CODE = new RegExp(
  alt([
    `${B}(?:promo(?:tional)?|discount|coupon|voucher|gift(?:\\s+card)?|referral|invite|invitation|postal|zip|post|area|country|qr|bar|source|error|status|tracking|booking|offer|reward|redeem|redemption|dress|tax|product|item|colou?r|sale|bonus|reference|order|shipping|html)[\\s-]*codes?${E}`,
    `${B}recovery\\s+codes${E}`,
    `${B}(?:coupon|voucher|barcode|zipcode|postcode)s?${E}`,
    `${B}c[oó]digos?\\s+(?:postal|promocional|de\\s+(?:descuento|desconto|barras|seguimiento|rastreio|rastreamento|referido|regalo|pedido|indicaç[aã]o)|del\\s+pedido|do\\s+pedido)${E}`,
    `${B}(?:cup[oó]n|cupom)${E}`,
    `${B}codes?\\s+(?:postal|promo(?:tionnel)?|de\\s+(?:r[ée]duction|parrainage|suivi)|cadeau|avantage)${E}`,
    `${B}code[\\s-]barres?${E}`,
    `${B}(?:gutschein|rabatt|aktions|empfehlungs|promo)[\\p{L}-]*code\\p{L}*`,
    `${B}postleitzahl${E}`,
    `${B}codice\\s+(?:sconto|promozionale|postale|fiscale|a\\s+barre)${E}`,
    `${B}промокод\\p{L}*|${B}почтов\\p{L}*\\s+индекс|${B}штрих-?код\\p{L}*|${B}код\\p{L}{0,2}\\s+купона`,
    "优惠码|優惠碼|邀请码|邀請碼|兑换码|兌換碼|推荐码|推薦碼|邮编|邮政编码|郵遞區號|取件码|促销码|折扣码|券码|礼品码|二维码|条形码",
    "クーポンコード|プロモーションコード|郵便番号|招待コード|割引コード|ギフトコード|QRコード|バーコード",
    "쿠폰\\s?(?:코드|번호)|프로모션\\s?코드|할인\\s?코드|우편\\s?번호|추천\\s?코드|초대\\s?코드|기프트\\s?코드|QR\\s?코드",
  ]),
  "giu",
);

const EXPLICIT_RE = new RegExp(EXPLICIT, "giu");
const GENERIC_RE = new RegExp(GENERIC, "giu");
const WEAK_RE = new RegExp(WEAK, "giu");

/** Words that say the mail is about signing in or verifying, in the supported languages. */
const VERIFICATION_CONTEXT = new RegExp(
  alt([
    `${B}(?:verif\\p{L}*|v[ée]rif\\p{L}*|sign(?:ing)?[- ]?(?:in|up)|log(?:ging)?[- ]?in|two[- ]factor|2[- ]step|2fa|authenticat\\p{L}*|one[- ]time|otp|passcode|confirm\\s+your|identity|connexion|bestätig\\p{L}*|anmeld\\p{L}*|подтвержд\\p{L}*|вход\\p{L}*|accedi|accesso|inicio de sesi[oó]n|iniciar sesi[oó]n)`,
    "验证|驗證|登录|登入|認証|確認|인증|로그인",
  ]),
  "iu",
);

/** Meeting invitations carry passcodes for the meeting; only explicit code phrases count there. */
const MEETING =
  /(?<![\p{L}\p{N}])(?:meeting\s+id|join\s+(?:zoom\s+)?meeting|webinar\s+id|join\s+with\s+google\s+meet|teams\s+meeting|conference\s+id|dial-in|id\s+de\s+reuni[oó]n|besprechungs-?id|会议号|ミーティング\s?ID|회의\s?ID)/iu;

/** Lines a forwarding client adds that carry dates and times, never codes. */
const FORWARD_DATE_LINE =
  /^[ \t]*(?:date|sent|datum|gesendet|fecha|enviado|envoy[ée]|data|дата|отправлено|日期|发送时间|發送時間|发件时间|日付|送信日時|날짜|보낸\s?날짜)[ \t]*[:：].*$/gimu;
const FORWARD_ADDRESS_LINE = /^[ \t]*(?:from|to|cc|bcc|de|para|à|a|von|an|от|кому|发件人|收件人|差出人|宛先|보낸\s?사람|받는\s?사람)[ \t]*[:：].*$/gimu;
const QUOTE_INTRO_LINE = /^.{0,300}(?:wrote|a écrit|schrieb|escribió|escreveu|ha scritto|написал\p{L}*|寫道|写道|のメッセージ|작성)[ \t]*[:：]?[ \t]*$/gimu;

/** Labels after which a number is an identifier, an address part or a greeting, not a code. */
const ID_LABELS = new Set([
  "order",
  "orders",
  "invoice",
  "ticket",
  "case",
  "ref",
  "reference",
  "account",
  "acct",
  "customer",
  "member",
  "id",
  "tracking",
  "shipment",
  "flight",
  "room",
  "booking",
  "reservation",
  "transaction",
  "receipt",
  "no",
  "nr",
  "n°",
  "number",
  "num",
  "pedido",
  "orden",
  "factura",
  "commande",
  "facture",
  "bestellung",
  "rechnung",
  "bestellnummer",
  "заказ",
  "заказа",
  "счет",
  "счёт",
  "meeting",
  "webinar",
  "phone",
  "tel",
  "telephone",
  "fax",
  "call",
  "sms",
  "whatsapp",
  "mobile",
  "suite",
  "ste",
  "apt",
  "unit",
  "box",
  "po",
  "street",
  "st",
  "floor",
  "zip",
  "postal",
  "isbn",
  "sku",
  "item",
  "model",
  "version",
  "v",
  "build",
  "serial",
  "imei",
  "iban",
  "swift",
  "routing",
  "hi",
  "hello",
  "dear",
  "hey",
  "hola",
  "olá",
  "ola",
  "bonjour",
  "hallo",
  "привет",
  "здравствуйте",
  "user",
  "username",
  "usuario",
  "utilisateur",
  "benutzer",
  "ending",
  "nº",
  "ip",
  "rma",
  "extension",
  "ext",
  "policy",
  "claim",
  "loan",
  "parcel",
  "package",
  "awb",
  "container",
  "seat",
  "gate",
  "train",
  "bus",
  "route",
  "page",
  "chapter",
  "vol",
  "issue",
  "episode",
  "level",
  "cvv",
  "cvc",
]);
/** CJK labels (no spaces before the number). */
const CJK_ID_LABELS = [
  "订单号",
  "单号",
  "訂單號",
  "注文番号",
  "電話",
  "电话",
  "手机",
  "手機",
  "주문번호",
  "전화",
  "会员号",
  "账号",
  "帳號",
  "お問い合わせ番号",
  "追跡番号",
  "运单号",
];

const FILLER = new Set([
  "is",
  "are",
  "was",
  "be",
  "es",
  "est",
  "ist",
  "é",
  "lautet",
  "sind",
  "this",
  "the",
  "your",
  "code",
  "here",
  "below",
  "following",
  "follows",
  "as",
  "use",
  "enter",
  "please",
  "votre",
  "ton",
  "le",
  "la",
  "el",
  "tu",
  "su",
  "seu",
  "sua",
  "o",
  "a",
  "de",
  "do",
  "da",
  "del",
  "du",
  "di",
  "il",
  "ваш",
  "твой",
  "vous",
  "voici",
  "here's",
  "heres",
  "it's",
  "it",
  "its",
  "our",
  "new",
  "requested",
  "verification",
  "security",
  "one",
  "time",
  "one-time",
  "otp",
  "código",
  "codigo",
  "passcode",
  "será",
  "sera",
  "nächste",
  "für",
  "for",
  "you",
  "yours",
  "kod",
  "код",
  "为",
  "為",
  "是",
  "は",
  "です",
  "입니다",
  "는",
  "은",
  "이",
  "가",
  "의",
  "及",
  "以下",
  "如下",
  "下記",
  "다음",
  "과",
  "와",
]);

/** A number next to these is money, a size, a duration or a date part. */
const AFTER_UNIT =
  /^\s{0,2}(?:usd|eur|gbp|jpy|cny|rub|brl|mxn|inr|krw|cad|aud|chf|руб\p{L}*|₽|円|元|원|yen|dollars?|euros?|reais|pesos?|kb|mb|gb|ms|mins?|minutes?|minutos?|hours?|hrs?|horas?|days?|días|dias|seconds?|segundos?|secs?|km|kg|lbs?|points?|pts|items?|年|月|日|년|월|일|г\.?|год\p{L}*|分|秒|時間|시간|분)(?![\p{L}])/iu;
const STREET =
  /^\s+(?:[A-Z][a-z]+\.?\s+){0,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Parkway|Pkwy|Way|Drive|Dr|Lane|Ln|Suite|Ste|Floor|Fl|Place|Pl|Court|Ct|Highway|Hwy|Plaza|Square|Sq|Terrace|Circle|Cir)\b/;
const PROMO_CONTEXT =
  /(?<![\p{L}\p{N}])(?:\d{1,3}\s?%|off|discount|save|sale|checkout|coupon|promo\p{L}*|deal|descuento|desconto|r[ée]duction|rabatt|sconto|скидк\p{L}*|折扣|优惠|할인|割引)(?![\p{L}\p{N}])/iu;

type AnchorKind = "explicit" | "generic" | "weak";

interface Anchor {
  start: number;
  end: number;
  kind: AnchorKind;
}

interface Candidate {
  value: string;
  start: number;
  end: number;
  digits: boolean;
  lettersOnly: boolean;
  yearLike: boolean;
}

interface Scored {
  value: string;
  score: number;
}

/** Returns the code a person would type, or null when the mail does not carry one. */
export function extractCode(mail: MailText): string | null {
  const subject = normalise((mail.subject ?? "").slice(0, MAX_SUBJECT)).replace(/\n/g, " ");
  const sources = [stripNoise(subject)];
  if (mail.text) sources.push(cleanBody(normalise(mail.text.slice(0, MAX_TEXT))));
  if (mail.html) sources.push(cleanBody(normalise(htmlToText(mail.html.slice(0, MAX_HTML)))));

  const anchorsBySource = sources.map(findAnchors);
  const hasExplicit = anchorsBySource.some((list) => list.some((a) => a.kind === "explicit"));
  const meeting = sources.some((s) => MEETING.test(s));
  const verificationMail = hasExplicit || (!meeting && sources.some((s) => VERIFICATION_CONTEXT.test(s)));

  let best: Scored | null = null;
  for (const [i, text] of sources.entries()) {
    for (const anchor of anchorsBySource[i]!) {
      if (meeting && anchor.kind !== "explicit") continue;
      if (anchor.kind === "weak" && !verificationMail) continue;
      // Strictly better only: on a tie the earlier source (subject, text, html) and position win.
      for (const found of scoreAround(text, anchor)) if (!best || found.score > best.score) best = found;
    }
  }
  if (best) return best.value;

  // The bare-code fallback: a mail that names a verification code but shows it apart from the words.
  if (!hasExplicit || meeting) return null;
  for (const text of sources) {
    const lone = loneCode(text);
    if (lone) return lone;
  }
  return null;
}

const CJK_PUNCTUATION: Record<string, string> = { "，": ",", "、": ",", "。": ".", "：": ":", "；": ";" };

function normalise(raw: string): string {
  return (
    raw
      .replace(/\r\n?/g, "\n")
      // CJK punctuation ends a number: "１２３４５６，5分钟" must not read as "123456,5".
      .replace(/[，、。：；]/g, (p) => `${CJK_PUNCTUATION[p]} `)
      .normalize("NFKC")
      // Invisible characters senders put inside codes to stop copy-paste tricks (and soft hyphens).
      .replace(/[\u200b-\u200d\u2060\ufeff\u00ad\u180e]|\u034f/g, "")
      .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
      .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
      .replace(/[\u0966-\u096f]/g, (d) => String(d.charCodeAt(0) - 0x0966))
      .replace(/[\u2010-\u2015\u2212\ufe58\ufe63]/g, "-")
      .replace(/[\t\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g, " ")
  );
}

/** Quote markers go; forwarding headers that carry dates, times and addresses go. */
function cleanBody(text: string): string {
  const unquoted = text
    .replace(/^(?:[ \t]*>)+[ \t]?/gm, "")
    .replace(FORWARD_DATE_LINE, "")
    .replace(FORWARD_ADDRESS_LINE, "")
    .replace(QUOTE_INTRO_LINE, "");
  return joinSplitCodes(stripNoise(unquoted));
}

/** Removes what looks like a code but never is one: links, addresses, CSS. */
function stripNoise(text: string): string {
  return (
    text
      .replace(/\b(?:https?|ftp):\/\/[^\s<>"'()[\]{}]+/gi, " ")
      .replace(/\bwww\.[^\s<>"'()[\]{}]+/gi, " ")
      .replace(/\bmailto:[^\s<>"'()]+/gi, " ")
      // The lookbehinds let these start only where a run of their characters starts: linear time.
      .replace(/(?<![a-z0-9.-])[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,6}\.[a-z]{2,12}\/[^\s<>"'()]*/gi, " ")
      .replace(/(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/g, " ")
      .replace(/\{[^{}]{0,4000}\}/g, " ")
      .replace(/#[0-9a-f]{3,8}(?![\p{L}\p{N}])/giu, " ")
      .replace(/(?<![\p{L}\p{N}])\d{1,5}(?:\.\d{1,4})?(?:px|pt|em|rem|vh|vw|dpi)(?![\p{L}\p{N}])/giu, " ")
  );
}

function matchSpans(re: RegExp, text: string, limit: number): [number, number][] {
  const spans: [number, number][] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m && spans.length < limit; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    else spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

const overlaps = (spans: [number, number][], start: number, end: number) => spans.some(([s, e]) => s < end && start < e);

/**
 * Anchors in reading order. Each kind is its own pass so "your Google verification code" counts
 * as the explicit phrase it contains; a generic or weak anchor inside a stronger one is dropped,
 * and so is any anchor touching a not-a-code phrase ("promo code", "código postal").
 */
function findAnchors(text: string): Anchor[] {
  const blocked = matchSpans(NOT_A_CODE, text, 2_000);
  const explicit = matchSpans(EXPLICIT_RE, text, MAX_ANCHORS).filter(([s, e]) => !overlaps(blocked, s, e));
  const generic = matchSpans(GENERIC_RE, text, MAX_ANCHORS).filter(([s, e]) => !overlaps(blocked, s, e) && !overlaps(explicit, s, e));
  const weak = matchSpans(WEAK_RE, text, MAX_ANCHORS).filter(([s, e]) => !overlaps(blocked, s, e) && !overlaps(explicit, s, e) && !overlaps(generic, s, e));
  const tag =
    (kind: AnchorKind) =>
    ([start, end]: [number, number]): Anchor => ({ start, end, kind });
  return [...explicit.map(tag("explicit")), ...generic.map(tag("generic")), ...weak.map(tag("weak"))].sort((a, b) => a.start - b.start);
}

const STRENGTH: Record<AnchorKind, number> = { explicit: 100, generic: 90, weak: 70 };

/** Candidates near one anchor with their scores: the closer and the fewer words between, the better. */
function scoreAround(text: string, anchor: Anchor): Scored[] {
  const found: Scored[] = [];
  const base = STRENGTH[anchor.kind];
  const maxWords = anchor.kind === "weak" ? 3 : 12;

  // After the anchor: the first plausible candidate.
  const afterEnd = Math.min(text.length, anchor.end + AFTER_WINDOW);
  for (const cand of candidatesIn(text, anchor.end, afterEnd)) {
    const gap = measureGap(text.slice(anchor.end, cand.start));
    if (gap.words > maxWords || gap.lines > 4) break;
    const tight = gap.words === 0 && gap.lines <= 2;
    if (!acceptable(cand, tight, anchor.kind)) continue;
    if (promoted(text, cand)) continue;
    found.push({ value: cand.value, score: base - 4 * gap.words - 3 * gap.lines + (tight ? 8 : 0) + (cand.digits ? 2 : 0) });
    break;
  }

  // Before the anchor on the same line ("482913 is your code").
  const lineStart = text.lastIndexOf("\n", anchor.start - 1) + 1;
  const beforeStart = Math.max(lineStart, anchor.start - BEFORE_WINDOW);
  let nearest: Scored | null = null;
  for (const cand of candidatesIn(text, beforeStart, anchor.start)) {
    if (cand.end > anchor.start) break;
    const gap = measureGap(text.slice(cand.end, anchor.start));
    if (gap.words > (anchor.kind === "weak" ? 2 : 6)) continue;
    const tight = gap.words === 0;
    if (!acceptable(cand, tight, anchor.kind) || promoted(text, cand)) continue;
    nearest = { value: cand.value, score: base - 6 - 4 * gap.words + (tight ? 4 : 0) + (cand.digits ? 2 : 0) };
  }
  if (nearest) found.push(nearest);

  // A code shown alone on one of the three lines above a non-weak anchor ("482913\nis your code").
  if (anchor.kind !== "weak") {
    let end = lineStart - 1;
    let seen = 0;
    for (let steps = 0; steps < 8 && end > 0 && seen < 3; steps++) {
      const start = text.lastIndexOf("\n", end - 1) + 1;
      const lineEnd = end;
      end = start - 1;
      if (text.slice(start, lineEnd).trim() === "") continue;
      seen++;
      const lone = loneCandidate(text, start, lineEnd);
      if (lone) {
        found.push({ value: lone.value, score: base - 14 - 3 * (seen - 1) + (lone.digits ? 2 : 0) });
        break;
      }
    }
  }
  return found;
}

function acceptable(cand: Candidate, tight: boolean, kind: AnchorKind) {
  if (cand.yearLike && !tight) return false;
  if (cand.lettersOnly && !(tight && kind !== "weak")) return false;
  return true;
}

function promoted(text: string, cand: Candidate) {
  const lineStart = text.lastIndexOf("\n", cand.start - 1) + 1;
  const nl = text.indexOf("\n", cand.end);
  const line = text.slice(Math.max(lineStart, cand.start - 80), Math.min(nl < 0 ? text.length : nl, cand.end + 80));
  return PROMO_CONTEXT.test(line);
}

function measureGap(gap: string) {
  const lines = gap.split("\n").length - 1;
  let words = 0;
  for (const w of gap.toLowerCase().match(/[\p{L}\p{N}'’]+/gu) ?? []) if (!FILLER.has(w)) words++;
  return { words, lines };
}

/** A whole line that is one plausible code and nothing else. */
function loneCandidate(text: string, start: number, end: number): Candidate | null {
  const line = text.slice(start, end);
  const lead = line.length - line.trimStart().length;
  const body = line.trim().replace(/^[[(【「«"'“]+|[\])】」»"'”.:]+$/g, "");
  if (!body) return null;
  const offset = start + lead + line.trim().indexOf(body);
  for (const cand of candidatesIn(text, offset, offset + body.length)) {
    if (cand.start !== offset || cand.end !== offset + body.length) return null;
    if (cand.yearLike || cand.lettersOnly) return null;
    return cand;
  }
  return null;
}

function loneCode(text: string): string | null {
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    const cand = loneCandidate(text, start, end);
    if (cand && !promoted(text, cand)) return cand.value;
    if (nl < 0) break;
    start = nl + 1;
  }
  return null;
}

const PREFIXED = /[A-Z]{1,2}-(\d{4,8})(?![A-Za-z0-9])/y;
const WORD_RUN = /[A-Za-z0-9]{1,12}(?:-[A-Za-z0-9]{1,12})?/y;

/** Plausible candidates starting inside [from, to), in order. */
function* candidatesIn(text: string, from: number, to: number): Generator<Candidate> {
  let i = from;
  // Start on a token boundary: a window may begin inside a word.
  if (i > 0 && isAlnum(text.charCodeAt(i - 1))) while (i < to && isAlnum(text.charCodeAt(i))) i++;
  while (i < to) {
    if (!isAlnum(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const { candidate, next } = readCandidate(text, i);
    if (candidate) yield candidate;
    i = Math.max(next, i + 1);
    while (i < text.length && isAlnum(text.charCodeAt(i))) i++;
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAlnum = (c: number) => isDigit(c) || isLetter(c);

/** Reads the candidate starting at `start` (a token start); `next` is where scanning resumes. */
function readCandidate(text: string, start: number): { candidate: Candidate | null; next: number } {
  PREFIXED.lastIndex = start;
  const prefixed = PREFIXED.exec(text);
  if (prefixed) {
    const end = start + prefixed[0].length;
    const digits = prefixed[1]!;
    const ok = !numberContinues(text, end) && !badBefore(text, start, digits);
    return { candidate: ok ? { value: digits, start, end, digits: true, lettersOnly: false, yearLike: false } : null, next: end };
  }
  if (isDigit(text.charCodeAt(start))) {
    const run = readDigitRun(text, start);
    if (run) return { candidate: digitCandidate(text, start, run), next: run.end };
  }
  WORD_RUN.lastIndex = start;
  const word = WORD_RUN.exec(text)!;
  const end = start + word[0].length;
  if (isAlnum(text.charCodeAt(end))) return { candidate: null, next: skipWord(text, end) };
  return { candidate: wordCandidate(text, start, end, word[0]), next: end };
}

interface DigitRun {
  groups: string[];
  seps: string[];
  end: number;
}

/**
 * Digit groups joined by single spaces or dashes ("482 913", "415-555-0132"), read whole so a
 * phone number is never mistaken for the code in its tail. A group running into letters ends
 * the run before it; null when the first group does ("2FA", "48px": words, read as such).
 */
function readDigitRun(text: string, start: number): DigitRun | null {
  const groups: string[] = [];
  const seps: string[] = [];
  let i = start;
  let end = start;
  while (groups.length < 8) {
    let j = i;
    while (isDigit(text.charCodeAt(j))) j++;
    if (isLetter(text.charCodeAt(j))) {
      if (!groups.length) return null;
      seps.pop();
      break;
    }
    groups.push(text.slice(i, j));
    end = j;
    const sep = text[j];
    if ((sep === " " || sep === "-") && isDigit(text.charCodeAt(j + 1))) {
      seps.push(sep);
      i = j + 1;
    } else {
      break;
    }
  }
  if (seps.length >= groups.length) seps.length = groups.length - 1;
  return { groups, seps, end };
}

function skipWord(text: string, from: number) {
  let i = from;
  while (i < text.length && (isAlnum(text.charCodeAt(i)) || text[i] === "-")) i++;
  return i;
}

function digitCandidate(text: string, start: number, { groups, seps, end }: DigitRun): Candidate | null {
  const joined = groups.join("");
  let value: string | null = null;
  let valueEnd = end;
  if (groups.length === 1) {
    value = joined;
  } else if (groups.every((g) => g.length === 1) && seps.every((s) => s === " ")) {
    value = joined; // "4 8 2 9 1 3"
  } else if (groups.every((g) => g.length >= 2 && g.length <= 4) && new Set(seps).size === 1 && !dateShaped(groups, seps[0]!)) {
    value = joined; // "482 913", "48-29-13"
  }
  if (value === null || value.length < 4 || value.length > 8) {
    // "482913 10 minutes": the first group stands alone when a space separates it.
    const first = groups[0]!;
    if (groups.length < 2 || seps[0] !== " " || first.length < 4 || first.length > 8) return null;
    value = first;
    valueEnd = start + first.length;
  } else if (numberContinues(text, end)) {
    return null;
  }
  if (badBefore(text, start, value) || badAfter(text, valueEnd, value)) return null;
  const yearLike = /^(?:19|20)\d\d$/.test(value) || isCompactDate(value);
  return { value, start, end: valueEnd, digits: true, lettersOnly: false, yearLike };
}

function wordCandidate(text: string, start: number, end: number, word: string): Candidate | null {
  const parts = word.split("-");
  const value = parts.join("");
  if (value.length < 4 || value.length > 8) return null;
  if (parts.length === 2 && parts.some((p) => p.length < 2 || p.length > 5)) return null;
  const hasDigit = /\d/.test(value);
  const hasLetter = /[A-Za-z]/.test(value);
  if (!hasLetter) return null; // digits with a dash are read as a digit run
  if (/[A-Z]/.test(value) && /[a-z]/.test(value)) return null; // "iPhone15", "macOS14": words, not codes
  if (/[A-Za-z]{5,}/.test(word) && hasDigit) return null; // "SPRING20", "gamer49": a word and a number
  if (/^\d+[a-z]{1,4}$/i.test(value)) return null; // "48px", "10min", "1080p"
  if (/^[a-z]{1,4}\d{1,2}$/.test(value)) return null; // "utf8", "win11"
  if (!hasDigit && (!/^[A-Z]{5,8}$/.test(value) || COMMON_UPPER.has(value))) return null;
  if (numberContinues(text, end) || badBefore(text, start, value)) return null;
  return { value, start, end, digits: false, lettersOnly: !hasDigit, yearLike: false };
}

/** Upper-case words that show up in mail next to "code" and are not codes. */
const COMMON_UPPER = new Set([
  "ABOVE",
  "BELOW",
  "EMAIL",
  "VERIFY",
  "SECURITY",
  "ACCOUNT",
  "NOTICE",
  "HELLO",
  "LOGIN",
  "ENTER",
  "EXPIRES",
  "VALID",
  "NEVER",
  "SHARE",
  "CONFIRM",
  "STEAM",
  "GOOGLE",
  "APPLE",
  "AMAZON",
  "PAYPAL",
  "SLACK",
  "GITHUB",
  "DISCORD",
  "TIKTOK",
  "UBER",
  "CODES",
  "TODAY",
  "URGENT",
  "IMPORTANT",
  "ACTION",
  "REQUIRED",
  "PLEASE",
  "THANKS",
  "SIGNIN",
  "TOKEN",
  "CLICK",
  "BUTTON",
  "HERE",
]);

function dateShaped(groups: string[], sep: string) {
  const lens = groups.map((g) => g.length).join(",");
  if (sep === "-" && (lens === "4,2,2" || lens === "2,2,4")) return true;
  return false;
}

function isCompactDate(v: string) {
  if (v.length !== 8) return false;
  const ymd = /^(?:19|20)\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/.test(v);
  const dmy = /^(0[1-9]|[12]\d|3[01])(0[1-9]|1[0-2])(?:19|20)\d\d$/.test(v);
  const mdy = /^(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?:19|20)\d\d$/.test(v);
  return ymd || dmy || mdy;
}

/** "1,299.00", "10:14", "192.168.0.1", "3/4": the number goes on past what was read. */
function numberContinues(text: string, end: number) {
  const c = text[end];
  return (c === "." || c === "," || c === ":" || c === "/") && isDigit(text.charCodeAt(end + 1));
}

function badBefore(text: string, start: number, value: string): boolean {
  const before = text.slice(Math.max(0, start - 40), start);
  const prev = before[before.length - 1];
  if (prev !== undefined && (prev === "." || prev === "," || prev === ":" || prev === "/") && isDigit(before.charCodeAt(before.length - 2))) {
    return true; // the tail of a decimal, time, date or IP
  }
  if (/[#№]\s*$/.test(before)) return !/@[\w.-]+\s+#$/.test(before); // "@example.com #123456" is a code
  if (/(?:[$€£¥₹₽₩¢]|R\$|US\$|USD|EUR|GBP|CAD|AUD)\s?$/.test(before)) return true;
  if (/(?:\+|\(\d{1,4}\)\s?)$/.test(before)) return true;
  if (/[•*·xX●]{2,}[\s-]*$/.test(before)) return true; // "•••• 4242", "xxxx-4242"
  if (/(?:©|\(c\)|copyright)\s*$/i.test(before)) return true;
  if (
    /(?:ending|ends|end|last\s+(?:4|four)(?:\s+digits)?|terminad[ao]|termina|terminant|termin\p{L}*|endet|endend|final|оканчивающ\p{L}*)\s*(?:in|en|par|auf|mit|на|with|em)?\s*[:#]?\s*$/iu.test(
      before,
    )
  )
    return true;
  if (/(?:末尾|尾号|尾號|끝자리)\s*[:：]?\s*$/u.test(before)) return true;
  if (/^\d{5}$/.test(value) && /(?:^|[\s,])[A-Z]{2}\s+$/.test(before)) return true; // "CA 94043"
  // The word just before, on the same line: "Order: 4829137", "Hi jdoe2049", "订单号：123456".
  const label = /([\p{L}°º]+)\.?[ \t]*[:#.\-–]?[ \t]*$/u.exec(before);
  if (label) {
    const word = label[1]!.toLowerCase();
    if (ID_LABELS.has(word)) return true;
    if (CJK_ID_LABELS.some((l) => word.endsWith(l))) return true;
  }
  return false;
}

function badAfter(text: string, end: number, value: string): boolean {
  const after = text.slice(end, end + 40);
  if (/^\s?%/.test(after)) return true;
  if (AFTER_UNIT.test(after)) return true;
  if (STREET.test(after)) return true;
  if (/^\s?(?:[-–]\s?)?\d{1,2}:\d\d/.test(after) && value.length <= 4) return true;
  return false;
}
