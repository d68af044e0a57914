//! Reading captures: libpcap (microsecond or nanosecond, either byte order) and pcapng
//! (section, interface and enhanced/simple packet blocks), with Ethernet (and 802.1Q/802.1ad
//! VLAN tags), Linux cooked capture v1 and v2, BSD loopback and raw IP link types, IPv4 and
//! IPv6, into the TCP header fields the analyzer needs (decoded in `decode.rs`). Streaming: one record in memory at a
//! time. What is skipped (not TCP, fragments, headers cut by the snap length) is counted, not
//! fatal; what makes the file unreadable is a [`CaptureError`].

pub use super::decode::TcpPacket;
use super::decode::{decode, Skip};
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
