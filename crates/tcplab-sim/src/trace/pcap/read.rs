//! Reading captures: libpcap (microsecond or nanosecond, either byte order) and pcapng
//! (section, interface and enhanced/simple packet blocks), with Ethernet (and 802.1Q/802.1ad
//! VLAN tags), Linux cooked capture v1 and v2, BSD loopback and raw IP link types, IPv4 and
//! IPv6, into the TCP header fields the analyzer needs. Streaming: one record in memory at a
//! time. What is skipped (not TCP, fragments, headers cut by the snap length) is counted, not
//! fatal; what makes the file unreadable is a [`CaptureError`].

use std::fmt;
use std::io::{self, Read};

/// Why a file cannot be read as a capture.
#[derive(Debug, Clone, PartialEq)]
pub enum CaptureError {
    /// The first bytes are no pcap or pcapng magic number.
    NotACapture {
        magic: [u8; 4],
    },
    /// A header or block that cannot be (a length past the end of its block, an unknown
    /// version, a record longer than any capture writes).
    Malformed {
        offset: u64,
        message: String,
    },
    /// A link type this reader does not decode.
    LinkType {
        linktype: u32,
    },
    /// The capture holds no TCP segment that could be decoded.
    NoTcp {
        records: u64,
        skipped: Skipped,
    },
    Io(String),
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaptureError::NotACapture { magic } => write!(
                f,
                "not a pcap or pcapng capture (first bytes {:02x} {:02x} {:02x} {:02x}; expected a libpcap magic \
                 a1b2c3d4 / a1b23c4d or a pcapng section header 0a0d0d0a)",
                magic[0], magic[1], magic[2], magic[3]
            ),
            CaptureError::Malformed { offset, message } => write!(f, "malformed capture at byte {offset}: {message}"),
            CaptureError::LinkType { linktype } => write!(
                f,
                "link type {linktype} is not supported (expected Ethernet 1, raw IP 101/228/229, Linux cooked 113/276 \
                 or BSD loopback 0)"
            ),
            CaptureError::NoTcp { records, skipped: s } => write!(
                f,
                "no TCP segments in the capture ({records} records: {} not IPv4/IPv6 TCP, {} IP fragments, {} with \
                 headers cut by the snap length, {} malformed, {} without timestamps)",
                s.not_tcp, s.fragments, s.cut_headers, s.malformed, s.untimed
            ),
            CaptureError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CaptureError {}

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
    /// TCP flags byte (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10).
    pub flags: u8,
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
}

/// What the reader skipped, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Records that are not IPv4/IPv6 TCP (ARP, UDP, ICMP, ...).
    pub not_tcp: u64,
    /// IP fragments after the first, or first fragments (their TCP header may be incomplete).
    pub fragments: u64,
    /// Records whose IP or TCP header the snap length cut.
    pub cut_headers: u64,
    /// Records with an impossible header (bad lengths).
    pub malformed: u64,
    /// pcapng simple packet blocks (they carry no timestamp).
    pub untimed: u64,
    /// TCP segments read whose options the snap length cut (not skipped).
    pub options_cut: u64,
}

/// A capture file being read, packet by packet.
pub struct Capture<R: Read> {
    r: R,
    offset: u64,
    format: Format,
    buf: Vec<u8>,
    /// pcapng interfaces: link type and ns per timestamp unit (or a power of 2 as a divisor).
    ifaces: Vec<(u32, TsRes)>,
    pub records: u64,
    pub skipped: Skipped,
    /// The file ended inside a record: the last one was dropped.
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug)]
enum TsRes {
    /// Nanoseconds per unit.
    Mul(u64),
    /// Units per second = 2^k.
    Pow2(u32),
}

#[derive(Clone, Copy, Debug)]
enum Format {
    Pcap { big: bool, ns: bool, linktype: u32 },
    Pcapng { big: bool },
}

const MAX_RECORD: u32 = 1 << 26;

impl<R: Read> Capture<R> {
    /// Reads the file header and checks the format.
    pub fn new(mut r: R) -> Result<Self, CaptureError> {
        let mut magic = [0u8; 4];
        let n = read_full(&mut r, &mut magic).map_err(|e| CaptureError::Io(e.to_string()))?;
        if n < 4 {
            return Err(CaptureError::NotACapture { magic });
        }
        let mut c = Capture {
            r,
            offset: 4,
            format: Format::Pcapng { big: false },
            buf: Vec::with_capacity(65_536),
            ifaces: Vec::new(),
            records: 0,
            skipped: Skipped::default(),
            truncated: false,
        };
        let le = u32::from_le_bytes(magic);
        let (big, ns) = match le {
            0xA1B2_C3D4 => (false, false),
            0xA1B2_3C4D => (false, true),
            0xD4C3_B2A1 => (true, false),
            0x4D3C_B2A1 => (true, true),
            0x0A0D_0D0A => {
                c.read_section_header()?;
                return Ok(c);
            }
            _ => return Err(CaptureError::NotACapture { magic }),
        };
        let mut h = [0u8; 20];
        if c.fill(&mut h)? < 20 {
            return Err(c.malformed("the file ends inside the 24-byte pcap header"));
        }
        let u16at = |i: usize| {
            if big {
                u16::from_be_bytes([h[i], h[i + 1]])
            } else {
                u16::from_le_bytes([h[i], h[i + 1]])
            }
        };
        let u32at = |i: usize| {
            let b = [h[i], h[i + 1], h[i + 2], h[i + 3]];
            if big {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        if u16at(0) != 2 {
            return Err(c.malformed(&format!("pcap version {}.{} (expected 2.4)", u16at(0), u16at(2))));
        }
        let linktype = u32at(16) & 0x0FFF_FFFF;
        check_linktype(linktype)?;
        c.format = Format::Pcap { big, ns, linktype };
        Ok(c)
    }

    fn malformed(&self, message: &str) -> CaptureError {
        CaptureError::Malformed {
            offset: self.offset,
            message: message.to_string(),
        }
    }

    /// Reads up to `b.len()` bytes; returns how many.
    fn fill(&mut self, b: &mut [u8]) -> Result<usize, CaptureError> {
        let n = read_full(&mut self.r, b).map_err(|e| CaptureError::Io(e.to_string()))?;
        self.offset += n as u64;
        Ok(n)
    }

    /// Reads `len` bytes into `self.buf`; false if the file ended first.
    fn fill_buf(&mut self, len: usize) -> Result<bool, CaptureError> {
        self.buf.resize(len, 0);
        let mut b = std::mem::take(&mut self.buf);
        let n = self.fill(&mut b)?;
        self.buf = b;
        Ok(n == len)
    }

    /// The rest of a pcapng section header block (its type already read).
    fn read_section_header(&mut self) -> Result<(), CaptureError> {
        let mut h = [0u8; 8];
        if self.fill(&mut h)? < 8 {
            return Err(self.malformed("the file ends inside the pcapng section header"));
        }
        let big = match u32::from_le_bytes([h[4], h[5], h[6], h[7]]) {
            0x1A2B_3C4D => false,
            0x4D3C_2B1A => true,
            _ => return Err(self.malformed("pcapng byte-order magic is not 1a2b3c4d")),
        };
        let len = if big {
            u32::from_be_bytes([h[0], h[1], h[2], h[3]])
        } else {
            u32::from_le_bytes([h[0], h[1], h[2], h[3]])
        };
        if !(28..=MAX_RECORD).contains(&len) || len % 4 != 0 {
            return Err(self.malformed(&format!("pcapng section header length {len}")));
        }
        if !self.fill_buf(len as usize - 12)? {
            return Err(self.malformed("the file ends inside the pcapng section header"));
        }
        self.format = Format::Pcapng { big };
        self.ifaces.clear();
        Ok(())
    }

    /// The next TCP segment, or None at the end of the file. Records that are not TCP, or
    /// cannot be decoded, are counted in `skipped`.
    pub fn next_tcp(&mut self) -> Result<Option<TcpPacket>, CaptureError> {
        loop {
            let Some((time_ns, linktype, caplen)) = self.next_record()? else {
                return Ok(None);
            };
            self.records += 1;
            let start = match self.format {
                Format::Pcapng { .. } => 20,
                Format::Pcap { .. } => 0,
            };
            let frame = &self.buf[start..start + caplen];
            match decode(frame, linktype) {
                Ok(mut p) => {
                    p.time_ns = time_ns;
                    self.skipped.options_cut += p.options_cut as u64;
                    return Ok(Some(p));
                }
                Err(Skip::NotTcp) => self.skipped.not_tcp += 1,
                Err(Skip::Fragment) => self.skipped.fragments += 1,
                Err(Skip::Cut) => self.skipped.cut_headers += 1,
                Err(Skip::Bad) => self.skipped.malformed += 1,
            }
        }
    }

    /// Reads the next packet record into `buf`: (time, link type, captured length).
    fn next_record(&mut self) -> Result<Option<(u64, u32, usize)>, CaptureError> {
        match self.format {
            Format::Pcap { big, ns, linktype } => {
                let mut h = [0u8; 16];
                let n = self.fill(&mut h)?;
                if n == 0 {
                    return Ok(None);
                }
                if n < 16 {
                    self.truncated = true;
                    return Ok(None);
                }
                let u = |i: usize| {
                    let b = [h[i], h[i + 1], h[i + 2], h[i + 3]];
                    if big {
                        u32::from_be_bytes(b)
                    } else {
                        u32::from_le_bytes(b)
                    }
                };
                let (sec, frac, caplen) = (u(0) as u64, u(4) as u64, u(8));
                if caplen > MAX_RECORD {
                    return Err(self.malformed(&format!(
                        "a record of {caplen} bytes (a capture writes at most {MAX_RECORD})"
                    )));
                }
                if !self.fill_buf(caplen as usize)? {
                    self.truncated = true;
                    return Ok(None);
                }
                let t = sec * 1_000_000_000 + if ns { frac } else { frac * 1000 };
                Ok(Some((t, linktype, caplen as usize)))
            }
            Format::Pcapng { big } => loop {
                let mut h = [0u8; 8];
                let n = self.fill(&mut h)?;
                if n == 0 {
                    return Ok(None);
                }
                if n < 8 {
                    self.truncated = true;
                    return Ok(None);
                }
                let u = |b: [u8; 4]| {
                    if big {
                        u32::from_be_bytes(b)
                    } else {
                        u32::from_le_bytes(b)
                    }
                };
                let kind = u([h[0], h[1], h[2], h[3]]);
                if kind == 0x0A0D_0D0A {
                    self.read_section_header()?;
                    continue;
                }
                let len = u([h[4], h[5], h[6], h[7]]);
                if !(12..=MAX_RECORD).contains(&len) || len % 4 != 0 {
                    return Err(self.malformed(&format!(
                        "pcapng block of length {len} (expected a multiple of 4, at least 12)"
                    )));
                }
                // The body and the trailing length; `buf` keeps the 8 header bytes' place free
                // so the packet data of an EPB starts at offset 20.
                let body = len as usize - 8;
                self.buf.resize(8 + body, 0);
                let mut b = std::mem::take(&mut self.buf);
                let got = self.fill(&mut b[8..])?;
                self.buf = b;
                if got < body {
                    self.truncated = true;
                    return Ok(None);
                }
                let rd = |b: &[u8], i: usize| u([b[i], b[i + 1], b[i + 2], b[i + 3]]);
                match kind {
                    1 => {
                        // Interface description: link type, reserved, snaplen, options.
                        if body < 12 {
                            return Err(self.malformed("pcapng interface block too short"));
                        }
                        let lt = if big {
                            u16::from_be_bytes([self.buf[8], self.buf[9]])
                        } else {
                            u16::from_le_bytes([self.buf[8], self.buf[9]])
                        } as u32;
                        let res = self.if_tsresol(big, &self.buf[16..8 + body - 4]);
                        self.ifaces.push((lt, res));
                    }
                    6 => {
                        if body < 24 {
                            return Err(self.malformed("pcapng enhanced packet block too short"));
                        }
                        let iface = rd(&self.buf, 8) as usize;
                        let ts = ((rd(&self.buf, 12) as u64) << 32) | rd(&self.buf, 16) as u64;
                        let caplen = rd(&self.buf, 20) as usize;
                        if 28 + caplen > 8 + body {
                            return Err(
                                self.malformed(&format!("packet of {caplen} bytes in a block of {len}"))
                            );
                        }
                        let Some(&(lt, res)) = self.ifaces.get(iface) else {
                            return Err(self.malformed(&format!(
                                "packet on interface {iface}, which no interface block declared"
                            )));
                        };
                        check_linktype(lt)?;
                        let t = match res {
                            TsRes::Mul(m) => ts.saturating_mul(m),
                            TsRes::Pow2(k) => ((ts as u128 * 1_000_000_000) >> k) as u64,
                        };
                        // Move the packet data to offset 20 (EPB: 8 header + 20 fields = 28).
                        self.buf.copy_within(28..28 + caplen, 20);
                        return Ok(Some((t, lt, caplen)));
                    }
                    3 => {
                        self.records += 1;
                        self.skipped.untimed += 1;
                    }
                    _ => {}
                }
            },
        }
    }

    /// The if_tsresol option of an interface block (default microseconds).
    fn if_tsresol(&self, big: bool, mut opts: &[u8]) -> TsRes {
        while opts.len() >= 4 {
            let code = if big {
                u16::from_be_bytes([opts[0], opts[1]])
            } else {
                u16::from_le_bytes([opts[0], opts[1]])
            };
            let len = if big {
                u16::from_be_bytes([opts[2], opts[3]])
            } else {
                u16::from_le_bytes([opts[2], opts[3]])
            } as usize;
            if code == 0 || opts.len() < 4 + len {
                break;
            }
            if code == 9 && len >= 1 {
                let v = opts[4];
                return if v & 0x80 != 0 {
                    TsRes::Pow2((v & 0x7F) as u32)
                } else if v <= 9 {
                    TsRes::Mul(10u64.pow(9 - v as u32))
                } else {
                    TsRes::Mul(1)
                };
            }
            opts = &opts[(4 + len).div_ceil(4) * 4..];
        }
        TsRes::Mul(1000)
    }
}

fn check_linktype(lt: u32) -> Result<(), CaptureError> {
    match lt {
        0 | 1 | 12 | 101 | 113 | 228 | 229 | 276 => Ok(()),
        _ => Err(CaptureError::LinkType { linktype: lt }),
    }
}

fn read_full(r: &mut impl Read, mut b: &mut [u8]) -> io::Result<usize> {
    let want = b.len();
    while !b.is_empty() {
        match r.read(b) {
            Ok(0) => break,
            Ok(n) => b = &mut b[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(want - b.len())
}

enum Skip {
    NotTcp,
    Fragment,
    Cut,
    Bad,
}

/// Decodes a frame of `linktype` down to its TCP header.
fn decode(f: &[u8], linktype: u32) -> Result<TcpPacket, Skip> {
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
    let mut p = p;
    p.options_cut = off_seen < off;
    p.sport = u16::from_be_bytes([tcp[0], tcp[1]]);
    p.dport = u16::from_be_bytes([tcp[2], tcp[3]]);
    p.seq = u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]);
    p.ack = u32::from_be_bytes([tcp[8], tcp[9], tcp[10], tcp[11]]);
    p.flags = tcp[13];
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
