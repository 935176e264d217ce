import { describe, expect, it } from "vitest";
import { COUNTRIES } from "./countries";
import {
  addPath,
  formatShare,
  hasOwnPlace,
  movePath,
  newCondition,
  newVariant,
  percentages,
  problemsFromServer,
  problemsOf,
  toDraft,
  toPut,
  validate,
  type DraftPath,
  type SavedPath,
} from "./editor";

const saved = (over: Partial<SavedPath> & { id: number | null; name: string }): SavedPath => ({
  isDefault: false,
  conditions: [{ field: "country", op: "is", values: ["DE"] }],
  landers: [{ landerId: 1, weight: 100, paused: false, pinned: false }],
  offers: [{ offerId: 7, weight: 100, paused: false, pinned: false }],
  directToOffer: false,
  stickyDays: null,
  optimisation: { mode: "off", windowDays: 7, floorPercent: 5, minVisits: 200 },
  ...over,
});

/** A rule path for Germany, one for phones, then the default path: what a one-lander campaign grows into. */
const three = () =>
  toDraft([
    saved({ id: 1, name: "Germany" }),
    saved({ id: 2, name: "Phones", conditions: [{ field: "deviceType", op: "is", values: ["mobile"] }] }),
    saved({ id: 3, name: "Default", isDefault: true, conditions: [] }),
  ]);

const names = (paths: DraftPath[]) => paths.map((p) => p.name);

describe("percentages", () => {
  it("shows weights as shares summing to exactly 100, to one decimal", () => {
    const v = (weight: string, paused = false) => ({ weight, paused });
    expect(percentages([v("1"), v("1")])).toEqual([50, 50]);
    expect(percentages([v("1"), v("1"), v("1")])).toEqual([33.4, 33.3, 33.3]);
    expect(percentages([v("70"), v("20"), v("10")])).toEqual([70, 20, 10]);
    const odd = percentages([v("3"), v("5"), v("11"), v("2")]);
    expect(odd.reduce((a, b) => a! + b!, 0)).toBeCloseTo(100, 10);
  });

  it("gives a paused variant or one at 0 nothing, and the rest the whole", () => {
    expect(
      percentages([
        { weight: "50", paused: true },
        { weight: "50", paused: false },
      ]),
    ).toEqual([0, 100]);
    expect(
      percentages([
        { weight: "0", paused: false },
        { weight: "30", paused: false },
      ]),
    ).toEqual([0, 100]);
  });

  it("shows no shares while the weights sum to 0 or one is being typed", () => {
    expect(
      percentages([
        { weight: "0", paused: false },
        { weight: "5", paused: true },
      ]),
    ).toEqual([null, null]);
    expect(
      percentages([
        { weight: "", paused: false },
        { weight: "5", paused: false },
      ]),
    ).toEqual([null, null]);
    expect(percentages([{ weight: "2.5", paused: false }])).toEqual([null]);
    expect(formatShare(null)).toBe("—");
    expect(formatShare(33.3)).toBe("33.3%");
    expect(formatShare(50)).toBe("50%");
  });
});

describe("reordering", () => {
  it("moves a rule path up or down, and never below the default path, which stays last", () => {
    const paths = three();
    expect(names(movePath(paths, 1, -1))).toEqual(["Phones", "Germany", "Default"]);
    expect(names(movePath(paths, 0, 1))).toEqual(["Phones", "Germany", "Default"]);
    expect(names(movePath(paths, 1, 1))).toEqual(["Germany", "Phones", "Default"]);
    expect(names(movePath(paths, 0, -1))).toEqual(["Germany", "Phones", "Default"]);
    expect(names(movePath(paths, 2, -1))).toEqual(["Germany", "Phones", "Default"]);
  });

  it("adds a new rule path just above the default one, and the PUT keeps that order", () => {
    const paths = addPath(three(), "Weekend");
    expect(names(paths)).toEqual(["Germany", "Phones", "Weekend", "Default"]);
    expect(toPut(paths).paths.map((p) => [p.name, p.isDefault, p.id])).toEqual([
      ["Germany", false, 1],
      ["Phones", false, 2],
      ["Weekend", false, undefined],
      ["Default", true, 3],
    ]);
  });
});

describe("toPut", () => {
  it("sends numbers as numbers, typed values split by commas, no conditions on the default path, and no landers straight to offer", () => {
    const [germany, phones, fallback] = three();
    germany!.landers = [newVariant(1, "60"), newVariant(2, "40")];
    germany!.sticky = true;
    germany!.stickyDays = "14";
    phones!.conditions = [
      { ...newCondition("os"), text: "iOS, Android ,", op: "isNot" },
      { ...newCondition("param"), param: "utm_source", text: "tt" },
    ];
    phones!.directToOffer = true;
    fallback!.conditions = [newCondition()];
    const put = toPut([germany!, phones!, fallback!]).paths;
    expect(put[0]!.landers).toEqual([
      { landerId: 1, weight: 60, paused: false, pinned: false },
      { landerId: 2, weight: 40, paused: false, pinned: false },
    ]);
    expect(put[0]!.stickyDays).toBe(14);
    expect(put[1]!.conditions).toEqual([
      { field: "os", op: "isNot", values: ["iOS", "Android"] },
      { field: "param", param: "utm_source", op: "is", values: ["tt"] },
    ]);
    expect(put[1]!.landers).toEqual([]);
    expect(put[2]!.conditions).toEqual([]);
    expect(validate([germany!, phones!, fallback!])).toEqual({});
  });
});

describe("validation messages", () => {
  it("says what is wrong beside the field of the path it is in", () => {
    const [germany, phones, fallback] = three();
    germany!.name = " ";
    germany!.landers = [newVariant(1, "0"), newVariant(2, "0")];
    germany!.conditions = [newCondition("country")];
    phones!.landers = [newVariant(null, "abc")];
    phones!.conditions = [{ ...newCondition("param"), text: "tt" }];
    fallback!.landers = [];
    fallback!.sticky = true;
    fallback!.stickyDays = "0";
    fallback!.optimisation = { mode: "cr", windowDays: "0", floorPercent: "60", minVisits: "x" };
    const problems = validate([germany!, phones!, fallback!]);
    expect(problemsOf(problems, germany!.key)).toEqual({
      name: "Path name is required",
      landers: 'Path " ": every lander is paused or at 0%, so nobody could be sent to one',
      "conditions.0.values": "Give at least one value",
    });
    expect(problemsOf(problems, phones!.key)).toMatchObject({
      "landers.0.landerId": "Choose a lander",
      "landers.0.weight": "Weight must be a whole number from 0",
      "conditions.0.param": "Name the query parameter",
    });
    expect(problemsOf(problems, fallback!.key)).toEqual({
      landers: 'Path "Default" needs a lander, or to send visitors straight to the offer',
      stickyDays: "Sticky days: a whole number from 1 to 90",
      "optimisation.windowDays": "A whole number of days from 1 to 90",
      "optimisation.floorPercent": "A percentage from 0 to 50",
      "optimisation.minVisits": "A whole number of visits from 0 to 1,000,000",
    });
  });

  it("refuses a rule path without conditions, straight to offer without offers, a lander twice and an unknown country code", () => {
    const [germany, phones, fallback] = three();
    germany!.conditions = [];
    phones!.directToOffer = true;
    phones!.offers = [];
    fallback!.landers = [newVariant(1), newVariant(1)];
    const typed = { ...newCondition("country"), values: ["UK"] };
    const problems = validate([germany!, { ...phones!, conditions: [typed] }, fallback!]);
    expect(problems[`${phones!.key}/conditions.0.values`]).toBe('Unknown country code "UK" (use ISO 3166-1 alpha-2, e.g. US, GB, DE)');
    // The API's own sentences (worker/src/schemas/paths.ts), before any call.
    expect(problems[`${germany!.key}/conditions`]).toBe('Path "Germany" needs at least one condition (only the default path has none)');
    expect(problems[`${phones!.key}/offers`]).toBe('Path "Phones" sends visitors straight to the offer: give it an offer');
    expect(problems[`${fallback!.key}/landers`]).toBe('Path "Default" lists lander 1 twice');
  });

  it("places the server's refusal by the path it names, as sent, even after the paths moved", () => {
    const paths = three();
    const problems = problemsFromServer(
      paths,
      ["paths.1.landers.0.landerId: Lander 9 no longer exists", 'Path "Germany": offer 7 does not exist (deleted?)', "paths: At most 25 paths"],
      "Some paths cannot be saved",
    );
    const moved = movePath(paths, 1, -1);
    expect(problemsOf(problems, moved[0]!.key)).toEqual({ "landers.0.landerId": "Lander 9 no longer exists" });
    expect(problemsOf(problems, moved[1]!.key)).toEqual({ "": "offer 7 does not exist (deleted?)" });
    expect(problems.paths).toBe("At most 25 paths");
    expect(problemsFromServer(paths, [], "Campaign has changed")).toEqual({ paths: "Campaign has changed" });
  });

  it("shows at the path's top a problem whose field is not on screen, so none goes unseen", () => {
    const [germany, , fallback] = three();
    expect(hasOwnPlace("landers.0.weight", germany!)).toBe(true);
    expect(hasOwnPlace("offers.1.offerId", germany!)).toBe(false);
    expect(hasOwnPlace("conditions.0.values", germany!)).toBe(true);
    expect(hasOwnPlace("conditions", fallback!)).toBe(false);
    expect(hasOwnPlace("landers", { ...germany!, directToOffer: true })).toBe(false);
    expect(hasOwnPlace("isDefault", germany!)).toBe(false);
    expect(hasOwnPlace("", germany!)).toBe(false);
  });
});

describe("countries", () => {
  it("offers the codes the API accepts by name, and no withdrawn codes", () => {
    const codes = COUNTRIES.map((c) => c.code);
    expect(codes).toEqual(expect.arrayContaining(["DE", "PH", "US", "GB", "XK"]));
    expect(codes).not.toEqual(expect.arrayContaining(["UK"]));
    expect(codes.some((c) => ["UK", "EU", "YU", "SU"].includes(c))).toBe(false);
    expect(COUNTRIES.find((c) => c.code === "DE")?.label).toBe("Germany (DE)");
    expect(COUNTRIES.at(-1)).toEqual({ code: "T1", label: "Tor network (T1)" });
  });
});
