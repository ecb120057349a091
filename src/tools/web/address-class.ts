import { BlockList, isIP } from "node:net";

/**
 * What an IP address is, for the URL policy (`url-policy.ts`):
 * - `metadata`: cloud metadata / credential endpoints and the whole IPv4 link-local range
 *   (169.254.0.0/16, where AWS, GCP, Azure, DigitalOcean and Oracle serve instance credentials),
 *   100.100.100.200 (Alibaba) and fd00:ec2::254 (AWS over IPv6). Never fetched, whatever the config.
 * - `private`: loopback, RFC 1918, CGNAT (100.64.0.0/10), unspecified, benchmarking, documentation,
 *   multicast and reserved space, IPv6 ULA (fc00::/7), link-local (fe80::/10), site-local, the
 *   reserved ::/8 block. Refused unless `web.allow_private_urls` is true.
 * - `public`: anything else.
 * - `invalid`: not an IP address at all (treated as refused by callers).
 *
 * An address that embeds an IPv4 address — IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated
 * (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) or
 * 6to4 (2002::/16) — is classified by the IPv4 address it reaches. Zone ids (`%eth0`) and
 * brackets are ignored. Never throws.
 */
export type AddressClass = "metadata" | "private" | "public" | "invalid";

/**
 * One BlockList per family and class: Node matches an IPv4 address against IPv6 rules through its
 * mapped form, so mixing families in one list would put all of IPv4 inside ::/8.
 */
interface Lists {
  metadata4: BlockList;
  metadata6: BlockList;
  private4: BlockList;
  private6: BlockList;
}
let lists: Lists | undefined;

function blockLists(): Lists {
  if (lists) return lists;
  const metadata4 = new BlockList();
  metadata4.addSubnet("169.254.0.0", 16, "ipv4");
  metadata4.addAddress("100.100.100.200", "ipv4");
  const metadata6 = new BlockList();
  metadata6.addAddress("fd00:ec2::254", "ipv6");
  const private4 = new BlockList();
  const v4: Array<[string, number]> = [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.88.99.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ];
  for (const [network, prefix] of v4) private4.addSubnet(network, prefix, "ipv4");
  const private6 = new BlockList();
  const v6: Array<[string, number]> = [
    ["::", 8],
    ["100::", 64],
    ["2001::", 23],
    ["2001:db8::", 32],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8],
  ];
  for (const [network, prefix] of v6) private6.addSubnet(network, prefix, "ipv6");
  lists = { metadata4, metadata6, private4, private6 };
  return lists;
}

export function classifyAddress(raw: string): AddressClass {
  const address = raw.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 0) return "invalid";
  if (family === 4) return classifyV4(address);
  const embedded = embeddedIpv4(address);
  if (embedded) {
    const reached = classifyV4(embedded);
    // IPv4-compatible and IPv4-translated forms are never a public route of their own.
    return reached === "public" && private6Only(address) ? "private" : reached;
  }
  const { metadata6, private6 } = blockLists();
  if (metadata6.check(address, "ipv6")) return "metadata";
  if (private6.check(address, "ipv6")) return "private";
  return "public";
}

/** `::a.b.c.d` or `::ffff:0:a.b.c.d`: deprecated or translator-only forms, not a public address. */
function private6Only(address: string): boolean {
  const groups = ipv6Groups(address);
  return !!groups && groups.slice(0, 4).every((group) => group === 0) && (groups[4] === 0 ? groups[5] === 0 : groups[4] === 0xffff && groups[5] === 0);
}

function classifyV4(address: string): AddressClass {
  const { metadata4, private4 } = blockLists();
  if (metadata4.check(address, "ipv4")) return "metadata";
  if (private4.check(address, "ipv4")) return "private";
  return "public";
}

/**
 * The IPv4 address an IPv6 address reaches: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated
 * (SIIT, `::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, not `::` or `::1`), NAT64 (the
 * well-known 64:ff9b::/96 and the local-use 64:ff9b:1::/48, IPv4 in the last 32 bits) or 6to4
 * (2002::/16).
 */
export function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  if (!groups) return undefined;
  const v4 = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  const zeros = (from: number, to: number): boolean => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!);
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6]!, groups[7]!);
  if (zeros(0, 6) && groups[6] !== 0) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad counts as two), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}
