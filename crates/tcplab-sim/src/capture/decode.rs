//! A captured frame decoded down to its TCP header: the link layers (Ethernet with 802.1Q /
//! 802.1ad VLAN tags, Linux cooked capture v1 and v2, BSD loopback, raw IP), IPv4 and IPv6
//! (with extension headers), and the TCP options the analyzer reads (MSS, window scale,
//! timestamps, SACK), with the ECN bits of both (the IP ECN field, ECE, CWR and AE). A frame
//! that is not TCP, or cannot be, says why ([`Skip`]).

use crate::net::packet::Ecn;

/// One TCP segment as captured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpPacket {
    /// Capture time, ns since the epoch of the capture's clock.
    pub time_ns: u64,
    /// Addresses (IPv4 in the first four bytes) and whether they are IPv6.
    pub src: [u8; 16],
    pub dst: [u8; 16],
    pub v6: bool,
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    /// TCP flags byte (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10, ECE 0x40, CWR 0x80).
    pub flags: u8,
    /// AccECN's AE bit (RFC 9768 Sec. 3.2.2: the low bit of TCP header byte 12, once NS).
    pub ae: bool,
    /// The IP ECN field (IPv4 TOS or IPv6 traffic class, low two bits; RFC 3168 Sec. 5).
    pub ecn: Ecn,
    pub window: u16,
    /// Payload bytes, from the IP length (not the captured length).
    pub payload: u32,
    /// IP packet length.
    pub ip_len: u32,
    /// Timestamps option (TSval, TSecr).
    pub ts: Option<(u32, u32)>,
    /// SACK blocks (left, right edges as on the wire).
    pub sack: [(u32, u32); 4],
    pub sack_n: u8,
    /// MSS option (SYN).
    pub mss: Option<u16>,
    /// Window scale option (SYN), at most 14 (RFC 7323 Sec. 2.3).
    pub wscale: Option<u8>,
    /// The snap length cut the TCP options (those after the cut are missing).
    pub options_cut: bool,
    /// The AccECN option (RFC 9768 Sec. 3.2.3), if the segment carried one.
    pub accecn: Option<AccEcnFields>,
}

/// An AccECN option as captured: how many of its fields were present (0 to 3, Table 5), its
/// order (kind 174: EE1B first; kind 172: EE0B first), and the 24-bit byte counters by
/// name (a field left out reads 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccEcnFields {
    pub fields: u8,
    pub order1: bool,
    pub ee0b: u32,
    pub eceb: u32,
    pub ee1b: u32,
}

impl AccEcnFields {
    /// ECEB, if the option carried it (the second field).
    pub fn eceb(&self) -> Option<u32> {
        (self.fields >= 2).then_some(self.eceb)
    }

    /// The option of kind 172 or 174 with value bytes `v` (length 2 + 3 per field); None for
    /// a length no field count gives.
    fn parse(kind: u8, v: &[u8]) -> Option<AccEcnFields> {
        if !v.len().is_multiple_of(3) || v.len() > 9 {
            return None;
        }
        let mut f = [0u32; 3];
        for (x, b) in f.iter_mut().zip(v.chunks_exact(3)) {
            *x = u32::from_be_bytes([0, b[0], b[1], b[2]]);
        }
        let order1 = kind == 174;
        let (first, third) = (f[0], f[2]);
        Some(AccEcnFields {
            fields: (v.len() / 3) as u8,
            order1,
            ee0b: if order1 { third } else { first },
            eceb: f[1],
            ee1b: if order1 { first } else { third },
        })
    }
}

impl TcpPacket {
    pub fn syn(&self) -> bool {
        self.flags & 0x02 != 0
    }
    pub fn has_ack(&self) -> bool {
        self.flags & 0x10 != 0
    }
    pub fn fin(&self) -> bool {
        self.flags & 0x01 != 0
    }
    pub fn rst(&self) -> bool {
        self.flags & 0x04 != 0
    }
    /// ECN-Echo (RFC 3168 Sec. 6.1).
    pub fn ece(&self) -> bool {
        self.flags & 0x40 != 0
    }
    /// Congestion Window Reduced (RFC 3168 Sec. 6.1).
    pub fn cwr(&self) -> bool {
        self.flags & 0x80 != 0
    }
}

/// Why a frame yields no TCP segment (counted in `read::Skipped`).
pub(super) enum Skip {
    NotTcp,
    Fragment,
    Cut,
    Bad,
}

/// Decodes a frame of `linktype` down to its TCP header.
pub(super) fn decode(f: &[u8], linktype: u32) -> Result<TcpPacket, Skip> {
    let (ethertype, ip) = match linktype {
        1 => {
            if f.len() < 14 {
                return Err(Skip::Cut);
            }
            let mut et = u16::from_be_bytes([f[12], f[13]]);
            let mut at = 14;
            while et == 0x8100 || et == 0x88A8 {
                if f.len() < at + 4 {
                    return Err(Skip::Cut);
                }
                et = u16::from_be_bytes([f[at + 2], f[at + 3]]);
                at += 4;
            }
            (et, &f[at..])
        }
        113 => {
            if f.len() < 16 {
                return Err(Skip::Cut);
            }
            (u16::from_be_bytes([f[14], f[15]]), &f[16..])
        }
        276 => {
            if f.len() < 20 {
                return Err(Skip::Cut);
            }
            (u16::from_be_bytes([f[0], f[1]]), &f[20..])
        }
        0 => {
            if f.len() < 4 {
                return Err(Skip::Cut);
            }
            // BSD loopback: the address family in host byte order (2: IPv4; 24, 28, 30: IPv6).
            let fam = u32::from_le_bytes([f[0], f[1], f[2], f[3]])
                .min(u32::from_be_bytes([f[0], f[1], f[2], f[3]]));
            (if fam == 2 { 0x0800 } else { 0x86DD }, &f[4..])
        }
        _ => {
            // Raw IP: the version nibble decides.
            match f.first().map(|b| b >> 4) {
                Some(4) => (0x0800, f),
                Some(6) => (0x86DD, f),
                Some(_) => return Err(Skip::NotTcp),
                None => return Err(Skip::Cut),
            }
        }
    };
    let mut p = TcpPacket::default();
    let (tcp, l4_len) = match ethertype {
        0x0800 => {
            if ip.len() < 20 {
                return Err(Skip::Cut);
            }
            if ip[0] >> 4 != 4 {
                return Err(Skip::Bad);
            }
            let ihl = (ip[0] & 0x0F) as usize * 4;
            let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
            if ihl < 20 {
                return Err(Skip::Bad);
            }
            if ip[9] != 6 {
                return Err(Skip::NotTcp);
            }
            let frag = u16::from_be_bytes([ip[6], ip[7]]);
            if frag & 0x3FFF != 0 {
                return Err(Skip::Fragment);
            }
            if ip.len() < ihl {
                return Err(Skip::Cut);
            }
            p.ecn = Ecn::from_bits(ip[1]);
            p.src[..4].copy_from_slice(&ip[12..16]);
            p.dst[..4].copy_from_slice(&ip[16..20]);
            // A total length of 0 (segmentation offload) or below the header: use the frame.
            let total = if total >= ihl {
                total
            } else {
                return Err(Skip::Bad);
            };
            p.ip_len = total as u32;
            (&ip[ihl..], total - ihl)
        }
        0x86DD => {
            if ip.len() < 40 {
                return Err(Skip::Cut);
            }
            if ip[0] >> 4 != 6 {
                return Err(Skip::Bad);
            }
            let plen = u16::from_be_bytes([ip[4], ip[5]]) as usize;
            p.v6 = true;
            // The traffic class straddles bytes 0 and 1; its low two bits are byte 1's 0x30.
            p.ecn = Ecn::from_bits(ip[1] >> 4);
            p.src.copy_from_slice(&ip[8..24]);
            p.dst.copy_from_slice(&ip[24..40]);
            p.ip_len = 40 + plen as u32;
            let mut next = ip[6];
            let mut at = 40;
            let mut left = plen;
            loop {
                match next {
                    6 => break,
                    0 | 43 | 60 => {
                        if ip.len() < at + 2 {
                            return Err(Skip::Cut);
                        }
                        let l = (ip[at + 1] as usize + 1) * 8;
                        next = ip[at];
                        at += l;
                        left = left.checked_sub(l).ok_or(Skip::Bad)?;
                    }
                    44 => return Err(Skip::Fragment),
                    _ => return Err(Skip::NotTcp),
                }
            }
            if ip.len() < at {
                return Err(Skip::Cut);
            }
            (&ip[at..], left)
        }
        _ => return Err(Skip::NotTcp),
    };
    if tcp.len() < 20 {
        return Err(Skip::Cut);
    }
    let off = (tcp[12] >> 4) as usize * 4;
    if off < 20 || off > l4_len {
        return Err(Skip::Bad);
    }
    // Options cut by the snap length: what was captured of them is read.
    let off_seen = off.min(tcp.len());
    p.options_cut = off_seen < off;
    p.sport = u16::from_be_bytes([tcp[0], tcp[1]]);
    p.dport = u16::from_be_bytes([tcp[2], tcp[3]]);
    p.seq = u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]);
    p.ack = u32::from_be_bytes([tcp[8], tcp[9], tcp[10], tcp[11]]);
    p.flags = tcp[13];
    p.ae = tcp[12] & 0x01 != 0;
    p.window = u16::from_be_bytes([tcp[14], tcp[15]]);
    p.payload = (l4_len - off) as u32;
    let mut o = &tcp[20..off_seen];
    while let Some(&kind) = o.first() {
        match kind {
            0 => break,
            1 => {
                o = &o[1..];
                continue;
            }
            _ => {}
        }
        let Some(&len) = o.get(1) else { break };
        let len = len as usize;
        if len < 2 || len > o.len() {
            break;
        }
        let v = &o[2..len];
        match (kind, len) {
            (2, 4) => p.mss = Some(u16::from_be_bytes([v[0], v[1]])),
            // RFC 7323 Sec. 2.3: a shift above 14 is used as 14 (a corrupt capture's 255
            // shifted a window out of its 64 bits).
            (3, 3) => p.wscale = Some(v[0].min(14)),
            (8, 10) => {
                p.ts = Some((
                    u32::from_be_bytes([v[0], v[1], v[2], v[3]]),
                    u32::from_be_bytes([v[4], v[5], v[6], v[7]]),
                ))
            }
            (172 | 174, _) => p.accecn = AccEcnFields::parse(kind, v),
            (5, _) => {
                for (i, b) in v.chunks_exact(8).take(4).enumerate() {
                    p.sack[i] = (
                        u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
                        u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
                    );
                    p.sack_n = i as u8 + 1;
                }
            }
            _ => {}
        }
        o = &o[len..];
    }
    Ok(p)
}
