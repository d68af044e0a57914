//! The IP ECN field of the real packets: read when a packet enters the modeled network (so the
//! modeled queues can mark an ECN-capable one), written back when it leaves marked CE.
//!
//! IPv4 keeps the field in the low two bits of the TOS byte, under the header checksum: the
//! checksum is updated incrementally (RFC 1624 Eqn. 3), as a router that marks does. IPv6
//! keeps it in the traffic class (bits 2-3 of byte 1's high nibble) and has no header checksum.
//! The TCP checksum does not cover either (its pseudo-header has the addresses, the protocol
//! and the length only), so nothing else changes.

use crate::net::packet::Ecn;

/// The IP ECN field of raw IP packet `ip` (Not-ECT if it is neither IPv4 nor IPv6, or too
/// short to say).
pub fn ip_ecn(ip: &[u8]) -> Ecn {
    match (ip.first().map(|b| b >> 4), ip.get(1)) {
        (Some(4), Some(&tos)) => Ecn::from_bits(tos),
        (Some(6), Some(&b)) => Ecn::from_bits(b >> 4),
        _ => Ecn::NotEct,
    }
}

/// RFC 1624 Eqn. 3: the header checksum `hc` after a 16-bit word of the header changed from
/// `old` to `new`, HC' = ~(~HC + ~m + m'), in one's-complement arithmetic.
pub fn checksum_update(hc: u16, old: u16, new: u16) -> u16 {
    let mut sum = (!hc) as u32 + (!old) as u32 + new as u32;
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

/// Sets the IP ECN field of raw IP packet `ip` to `ecn` (and an IPv4 header's checksum with
/// it). Returns whether the packet changed: false if it already carried `ecn`, or is neither
/// a whole IPv4 header nor an IPv6 one.
pub fn set_ip_ecn(ip: &mut [u8], ecn: Ecn) -> bool {
    match ip.first().map(|b| b >> 4) {
        Some(4) if ip.len() >= 20 => {
            if ip[1] & 0b11 == ecn.bits() {
                return false;
            }
            let old = u16::from_be_bytes([ip[0], ip[1]]);
            ip[1] = (ip[1] & !0b11) | ecn.bits();
            let new = u16::from_be_bytes([ip[0], ip[1]]);
            let hc = u16::from_be_bytes([ip[10], ip[11]]);
            ip[10..12].copy_from_slice(&checksum_update(hc, old, new).to_be_bytes());
            true
        }
        Some(6) if ip.len() >= 40 => {
            if (ip[1] >> 4) & 0b11 == ecn.bits() {
                return false;
            }
            ip[1] = (ip[1] & !0b0011_0000) | ecn.bits() << 4;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checksum of an IPv4 header computed whole (RFC 1071), for comparison.
    fn full_checksum(h: &[u8]) -> u16 {
        let mut sum: u32 = h
            .chunks_exact(2)
            .enumerate()
            .filter(|(i, _)| *i != 5)
            .map(|(_, c)| u16::from_be_bytes([c[0], c[1]]) as u32)
            .sum();
        while sum > 0xFFFF {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        !(sum as u16)
    }

    #[test]
    fn rfc_1624s_example_gives_0000_not_ffff() {
        // RFC 1624 Sec. 4: HC = 0xDD2F, m = 0x5555 -> m' = 0x3285: Eqn. 3 gives 0x0000 (the
        // header's sum is then 0xFFFF, a checksum a receiver verifies; Eqn. 2 gave 0xFFFF).
        assert_eq!(checksum_update(0xDD2F, 0x5555, 0x3285), 0x0000);
    }

    #[test]
    fn an_ect0_ipv4_packet_marked_ce_gets_the_bits_and_its_checksum() {
        // A TCP header's IPv4 packet: 10.0.0.1 -> 10.128.0.1, TOS 0x02 (ECT(0)), length 152,
        // id 7, DF, TTL 64; its checksum 0x25D6 (0x25D5 with TOS 0x03), as the simulator's
        // own frames have it (trace/pcap/frame.rs).
        let mut ip = vec![
            0x45, 0x02, 0, 152, 0, 7, 0x40, 0, 64, 6, 0x25, 0xD6, 10, 0, 0, 1, 10, 128, 0, 1,
        ];
        ip.extend_from_slice(&[0xAB; 8]);
        assert_eq!(full_checksum(&ip[..20]), 0x25D6);
        assert_eq!(ip_ecn(&ip), Ecn::Ect0);
        let before = ip.clone();
        assert!(set_ip_ecn(&mut ip, Ecn::Ce));
        assert_eq!(ip[1], 0x03);
        assert_eq!(&ip[10..12], &[0x25, 0xD5]);
        assert_eq!(full_checksum(&ip[..20]), 0x25D5);
        assert_eq!(ip_ecn(&ip), Ecn::Ce);
        // Nothing but the TOS byte and the checksum moved.
        let moved: Vec<usize> = (0..ip.len()).filter(|&i| ip[i] != before[i]).collect();
        assert_eq!(moved, vec![1, 11]);
        // Already CE: unchanged.
        assert!(!set_ip_ecn(&mut ip, Ecn::Ce));
    }

    #[test]
    fn the_dscp_is_kept_and_every_header_checks_after_any_rewrite() {
        // DSCP AF41 (0x88) with each codepoint, to each other codepoint: the incremental
        // update equals the full recomputation, and the DSCP bits stay.
        for from in 0..4u8 {
            for to in 0..4u8 {
                let mut ip = vec![
                    0x45,
                    0x88 | from,
                    0x05,
                    0xDC,
                    0x12,
                    0x34,
                    0x40,
                    0,
                    63,
                    6,
                    0,
                    0,
                    192,
                    168,
                    1,
                    2,
                    172,
                    16,
                    254,
                    1,
                ];
                let ck = full_checksum(&ip);
                ip[10..12].copy_from_slice(&ck.to_be_bytes());
                assert_eq!(set_ip_ecn(&mut ip, Ecn::from_bits(to)), from != to);
                assert_eq!(ip[1], 0x88 | to);
                assert_eq!(
                    u16::from_be_bytes([ip[10], ip[11]]),
                    full_checksum(&ip),
                    "{from} -> {to}"
                );
            }
        }
    }

    #[test]
    fn ipv6_has_the_field_in_its_traffic_class_and_no_checksum() {
        // Version 6, traffic class 0x0A (DSCP 2, ECT(0)), flow label 0x12345.
        let mut ip = vec![0u8; 40];
        ip[..4].copy_from_slice(&[0x60, 0xA1, 0x23, 0x45]);
        assert_eq!(ip_ecn(&ip), Ecn::Ect0);
        assert!(set_ip_ecn(&mut ip, Ecn::Ce));
        assert_eq!(&ip[..4], &[0x60, 0xB1, 0x23, 0x45]);
        assert_eq!(ip_ecn(&ip), Ecn::Ce);
        // Not IP, or cut short: left alone.
        let mut junk = vec![0x20, 0x02, 0, 0];
        assert_eq!(ip_ecn(&junk), Ecn::NotEct);
        assert!(!set_ip_ecn(&mut junk, Ecn::Ce));
        let mut short = vec![0x45, 0x02, 0, 40];
        assert!(!set_ip_ecn(&mut short, Ecn::Ce));
    }
}
