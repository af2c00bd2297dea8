import { describe, expect, it } from "vitest";
import { Admission, type AdmissionLimits, addressKey } from "../../server/admission.ts";
import { DEFAULT_LIMITS } from "../../server/config.ts";

/** An admission over a room table the test fills by hand (the server derives it from its live rooms). */
function admission(overrides: Partial<AdmissionLimits> = {}): { a: Admission; lines: object[]; rooms: { player: number; admin: number } } {
  const lines: object[] = [];
  const rooms = { player: 0, admin: 0 };
  const a = new Admission({ ...DEFAULT_LIMITS, ...overrides }, { info: (obj) => lines.push(obj) }, () => rooms);
  return { a, lines, rooms };
}

describe("admission per client address", () => {
  it("keys IPv4 (also IPv4-mapped IPv6) as is and IPv6 by its /64", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
  });

  it("rate-limits room creations per address with a burst, and refills with time", () => {
    const { a } = admission({ roomCreationsPerMinute: 10 });
    const now = 1_000_000;
    const verdicts = Array.from({ length: 5 }, () => a.chargeCreation("198.51.100.1", now).ok);
    // Burst: a fifth of 10, at least 3.
    expect(verdicts).toEqual([true, true, true, false, false]);
    expect(a.chargeCreation("198.51.100.2", now).ok).toBe(true);
    expect(a.chargeCreation("198.51.100.1", now + 6_000).ok).toBe(true);
  });

  it("caps unused seats per address and per room; a connected or expired seat is given back", () => {
    const { a } = admission({ pendingSeatsPerAddress: 4, seatReservationsPerMinute: 1000, seatReservationSeconds: 8 });
    const now = 5_000_000;
    const ip = "198.51.100.9";
    for (const [i, room] of ["r1", "r1"].entries()) {
      expect(a.reserveSeat(ip, now, room).ok).toBe(true);
      a.seatReserved(ip, `s${i}`, room, now);
    }
    // Half of the per-address cap in one room: the 4-seat room cannot be locked by one address.
    const third = a.reserveSeat(ip, now, "r1");
    expect(third.ok).toBe(false);
    expect(third.ok ? "" : third.message).toMatch(/in this room \(at most 2\)/);
    expect(a.reserveSeat(ip, now, "r2").ok).toBe(true);
    a.seatReserved(ip, "s2", "r2", now);
    a.seatReserved(ip, "s3", "r3", now);
    expect(a.reserveSeat(ip, now).ok).toBe(false);
    a.seatUsed("s0");
    expect(a.reserveSeat(ip, now, "r1").ok).toBe(true);
    // Every unused seat expires after SEAT_RESERVATION_SECONDS.
    expect(a.reserveSeat(ip, now + 8_001, "r1").ok).toBe(true);
  });

  it("keeps player rooms out of the admin reserve of MAX_ROOMS", () => {
    const { a, rooms } = admission({ adminRoomReserve: 2, roomCreationsPerMinute: 1000 });
    for (let i = 0; i < 4; i++) {
      expect(a.createPlayerRoom(`198.51.100.${i}`, 6).ok).toBe(true);
      rooms.player++;
    }
    expect(a.createPlayerRoom("198.51.100.50", 6)).toMatchObject({ ok: false, status: 503 });
    expect(a.createAdminRoom(6).ok).toBe(true);
    rooms.admin += 2;
    expect(a.createAdminRoom(6)).toMatchObject({ ok: false, status: 503 });
  });

  it("logs refusals at most once per address per interval and a few lines per second overall, however many addresses refuse", () => {
    const { a, lines } = admission({ roomCreationsPerMinute: 1, refusalLogSeconds: 60 });
    let now = 9_000_000;
    // 60000 distinct IPv6 /64s each spend their burst and get refused, 1000 per simulated second.
    for (let i = 0; i < 60_000; i++) {
      if (i % 1000 === 0) now += 1000;
      const ip = addressKey(`2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`);
      for (let k = 0; k < 4; k++) a.chargeCreation(ip, now);
    }
    expect(a.refusedTotal.get("create-rate")).toBe(60_000);
    // 60 simulated seconds at 5 lines a second at most.
    expect(lines.length).toBeLessThanOrEqual(60 * 5);
    expect(lines.length).toBeGreaterThan(0);
    // The same address again within the interval: counted, not logged.
    const before = lines.length;
    for (let k = 0; k < 10; k++) a.chargeCreation("198.51.100.77", now + 2000);
    for (let k = 0; k < 10; k++) a.chargeCreation("198.51.100.77", now + 3000);
    expect(lines.length - before).toBe(1);
  });
});
