import { insertCampaign } from "../src/db/queries/campaigns";
import { insertLander } from "../src/db/queries/landers";
import { insertOffer } from "../src/db/queries/offers";
import { db } from "./helpers";

/**
 * A live campaign sending visitors to https://lander.test/lp and on to https://offer.test/go,
 * whose offer link carries the click id and placement (`s2={clickId}&plc={placement}`).
 */
export async function campaignWithOffer(name = "Campaign") {
  const database = db();
  const lander = await insertLander(database, { name: `${name} lander`, url: "https://lander.test/lp" }).get();
  const offer = await insertOffer(database, { name: `${name} offer`, url: "https://offer.test/go", utmTemplate: "s2={clickId}&plc={placement}" }).get();
  const campaign = await insertCampaign(database, {
    name,
    landerId: lander.id,
    offerId: offer.id,
    domainId: null,
    bhToggle: true,
    mediaBuyer: null,
    sparkId: null,
  }).get();
  return campaign.id;
}
