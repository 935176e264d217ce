/**
 * Networks that host servers rather than people: a click from one of these is flagged as a bot
 * (crawlers, ad reviewers and scripts run in clouds; a person's phone does not). Shipped as a list
 * we keep by hand, large clouds and hosting companies only. Left out on purpose: networks whose
 * traffic is mostly people behind a relay or VPN (Cloudflare's WARP and Apple's Private Relay
 * egress, consumer VPNs), since flagging them would flag real buyers.
 */
export const DATACENTER_ASNS: ReadonlyMap<number, string> = new Map([
  [16509, "Amazon AWS"],
  [14618, "Amazon AWS"],
  [8987, "Amazon AWS"],
  [15169, "Google"],
  [396982, "Google Cloud"],
  [19527, "Google"],
  [8075, "Microsoft Azure"],
  [8068, "Microsoft"],
  [32934, "Meta"],
  [31898, "Oracle Cloud"],
  [14061, "DigitalOcean"],
  [16276, "OVH"],
  [24940, "Hetzner"],
  [213230, "Hetzner Cloud"],
  [63949, "Akamai Linode"],
  [20473, "Vultr"],
  [51167, "Contabo"],
  [12876, "Scaleway"],
  [60781, "Leaseweb"],
  [28753, "Leaseweb"],
  [45102, "Alibaba Cloud"],
  [37963, "Alibaba Cloud"],
  [132203, "Tencent Cloud"],
  [45090, "Tencent Cloud"],
  [396986, "ByteDance"],
  [138699, "ByteDance"],
  [134963, "ByteDance"],
  [36352, "ColoCrossing"],
  [55286, "Server Central"],
  [22612, "Namecheap hosting"],
  [46606, "Unified Layer"],
  [26496, "GoDaddy hosting"],
  [398101, "GoDaddy hosting"],
  [62567, "DigitalOcean"],
  [200651, "Flokinet"],
  [9370, "Sakura Internet"],
  [2635, "Automattic"],
]);
