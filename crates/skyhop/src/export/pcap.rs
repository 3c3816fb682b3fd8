//! pcap export of a packet log: one classic libpcap file per link direction
//! (nanosecond timestamps, magic `0xa1b23c4d`; LINKTYPE_RAW: each record is
//! an IPv4 packet), written with the standard library only.
//!
//! A record is a packet the direction accepted for transmission (a packet
//! refused by the full queue is not on the wire; one the channel corrupts
//! is), stamped with the simulation time at which it entered the link.
//! Only headers are captured: IPv4 (20 B) and TCP (20 B + options); the
//! record's original length is the packet's wire size in skyhop, or the
//! reconstructed headers' size when larger (SACK options are padded with two
//! NOPs to a multiple of four bytes, which skyhop's wire size does not count).
//!
//! Addresses and ports: node number `i` (nodes in name order, from 0) is
//! `10.<i / 256>.<i % 256>.1`. A flow's leg is one TCP connection from its
//! sender's node to its receiver's node, sender port `10000 + c % 10000`,
//! receiver port `20000 + c % 10000`, where `c` numbers the legs of all flows
//! (flows in name order, legs in path order, from 0); a proxy's two legs are
//! therefore two connections with different address pairs. Sequence numbers
//! start at an initial sequence number (ISN) per connection, `ISN + 1` being
//! the first data byte (the SYN, when the handshake is on, takes the ISN).
//! Windows are 16-bit fields scaled by the smallest shift that fits the
//! receiver's buffer (or proxy cache) into 65535; with the handshake, the
//! SYN and SYN-ACK carry that window-scale option (and MSS, SACK-permitted),
//! without it a reader has to be told the shift (see the table written by
//! the command line). Data segments carry the ACK flag with the receiver's
//! ISN + 1 and a window of 65535. Checksums: IPv4 correct, TCP zero.

use crate::csum::checksum;
use crate::engine::time::Time;
use crate::net::addr::node_ip;
use crate::net::Payload;
use crate::observe::{ConnLabel, PacketLog};
use crate::scenario::Plan;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// How one leg appears on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapConn {
    pub sender_ip: [u8; 4],
    pub receiver_ip: [u8; 4],
    pub sender_port: u16,
    pub receiver_port: u16,
    pub sender_isn: u32,
    pub receiver_isn: u32,
    pub window_shift: u8,
    pub mss: u16,
    pub handshake: bool,
}

/// Every connection's addresses, ports, ISNs and window shift, by
/// connection index (`conns`: what each is, as the engine opened them).
pub fn pcap_conns(plan: &Plan, conns: &[ConnLabel]) -> Vec<PcapConn> {
    conns
        .iter()
        .enumerate()
        .map(|(c, label)| {
            let (l, flow) = (label.leg, &plan.flows[label.flow]);
            let leg = &flow.legs[l];
            // The receiver's buffer: a proxy's cache where it feeds one.
            let feeds = if label.reverse {
                l.checked_sub(1)
            } else {
                (l + 1 < flow.legs.len()).then_some(l)
            };
            let window = feeds.map_or(leg.cfg.rcv_buffer, |p| flow.proxies[p].cache_bytes);
            let (from, to) = (*leg.path.first().unwrap(), *leg.path.last().unwrap());
            let (from, to) = if label.reverse {
                (to, from)
            } else {
                (from, to)
            };
            let mut shift = 0u8;
            while shift < 14 && (window >> shift) > 65_535 {
                shift += 1;
            }
            // Deterministic, spread-out ISNs (Knuth's multiplicative hash).
            let isn = (c as u32).wrapping_add(1).wrapping_mul(2_654_435_761);
            PcapConn {
                sender_ip: node_ip(from),
                receiver_ip: node_ip(to),
                sender_port: 10_000 + (c % 10_000) as u16,
                receiver_port: 20_000 + (c % 10_000) as u16,
                sender_isn: isn,
                receiver_isn: isn ^ 0x8000_0000,
                window_shift: shift,
                mss: leg.cfg.mss.min(65_535) as u16,
                handshake: label.handshake,
            }
        })
        .collect()
}

/// The file name of link direction `ld`: `<link>.<forward|reverse><suffix>.pcap`.
pub fn file_name(plan: &Plan, ld: u32, suffix: &str) -> String {
    dir_file_name(&plan.layers[ld as usize / 2].name, ld, suffix)
}

/// The file name of direction `ld` of the link named `link`.
fn dir_file_name(link: &str, ld: u32, suffix: &str) -> String {
    let dir = if ld.is_multiple_of(2) {
        "forward"
    } else {
        "reverse"
    };
    format!("{link}.{dir}{suffix}.pcap")
}

const TCP_FIN_SYN: u8 = 0x02;
const TCP_ACK: u8 = 0x10;
const TCP_PSH: u8 = 0x08;

/// The IPv4 + UDP headers of a probe datagram (number `seq` of flow
/// `flow`, from node `src` to node `dst`), and its original (wire) length.
/// Ports: 30000 + flow at the source, 40000 + flow at the destination; the
/// datagram's number is not on the wire (UDP has none).
pub fn encode_udp(
    flow: u32,
    src: u32,
    dst: u32,
    size_bytes: u32,
    ip_id: u16,
    out: &mut Vec<u8>,
) -> u32 {
    out.clear();
    let ip_total = size_bytes.max(28);
    out.extend_from_slice(&[0x45, 0]);
    out.extend_from_slice(&(ip_total.min(65_535) as u16).to_be_bytes());
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&[0x40, 0, 64, 17, 0, 0]);
    out.extend_from_slice(&node_ip(src));
    out.extend_from_slice(&node_ip(dst));
    let ck = checksum(&out[..20]);
    out[10..12].copy_from_slice(&ck.to_be_bytes());
    out.extend_from_slice(&(30_000 + (flow % 10_000) as u16).to_be_bytes());
    out.extend_from_slice(&(40_000 + (flow % 10_000) as u16).to_be_bytes());
    out.extend_from_slice(&((ip_total - 20).min(65_535) as u16).to_be_bytes());
    // Checksum 0: not computed (allowed for UDP over IPv4).
    out.extend_from_slice(&[0, 0]);
    ip_total
}

/// The IPv4 + TCP headers of one packet, and its original (wire) length.
pub fn encode(
    c: &PcapConn,
    payload: &Payload,
    size_bytes: u32,
    ip_id: u16,
    out: &mut Vec<u8>,
) -> u32 {
    out.clear();
    let (src, dst, sport, dport, seq, ack, flags, window, data_len);
    let mut opts: Vec<u8> = Vec::new();
    let syn_opts = |opts: &mut Vec<u8>| {
        opts.extend_from_slice(&[2, 4]);
        opts.extend_from_slice(&c.mss.to_be_bytes());
        opts.extend_from_slice(&[1, 3, 3, c.window_shift, 1, 1, 4, 2]);
    };
    match payload {
        Payload::Datagram { .. } | Payload::External => {
            unreachable!("datagrams and real packets are not encoded here")
        }
        Payload::Data(d) => {
            src = c.sender_ip;
            dst = c.receiver_ip;
            sport = c.sender_port;
            dport = c.receiver_port;
            if d.is_syn() {
                seq = c.sender_isn;
                ack = 0;
                flags = TCP_FIN_SYN;
                window = 65_535u16;
                data_len = 0;
                syn_opts(&mut opts);
            } else {
                seq = c.sender_isn.wrapping_add(1).wrapping_add(d.seq as u32);
                ack = c.receiver_isn.wrapping_add(1);
                flags = TCP_ACK | TCP_PSH;
                window = 65_535;
                data_len = d.len;
            }
        }
        Payload::Ack(a) => {
            src = c.receiver_ip;
            dst = c.sender_ip;
            sport = c.receiver_port;
            dport = c.sender_port;
            data_len = 0;
            if c.handshake && a.ack == 0 && a.window_update {
                // The SYN-ACK (its window is never scaled).
                seq = c.receiver_isn;
                ack = c.sender_isn.wrapping_add(1);
                flags = TCP_FIN_SYN | TCP_ACK;
                window = a.wnd.min(65_535) as u16;
                syn_opts(&mut opts);
            } else {
                seq = c.receiver_isn.wrapping_add(1);
                ack = c.sender_isn.wrapping_add(1).wrapping_add(a.ack as u32);
                flags = TCP_ACK;
                window = (a.wnd >> c.window_shift).min(65_535) as u16;
                let blocks = a.sack.as_slice();
                if !blocks.is_empty() {
                    opts.extend_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
                    for &(s, e) in blocks {
                        let base = c.sender_isn.wrapping_add(1);
                        opts.extend_from_slice(&base.wrapping_add(s as u32).to_be_bytes());
                        opts.extend_from_slice(&base.wrapping_add(e as u32).to_be_bytes());
                    }
                }
            }
        }
    }
    debug_assert_eq!(opts.len() % 4, 0);
    let tcp_len = 20 + opts.len() as u32;
    let ip_total = 20 + tcp_len + data_len;
    // IPv4 header.
    out.extend_from_slice(&[0x45, 0]);
    out.extend_from_slice(&(ip_total.min(65_535) as u16).to_be_bytes());
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&[0x40, 0, 64, 6, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    let ck = checksum(&out[..20]);
    out[10..12].copy_from_slice(&ck.to_be_bytes());
    // TCP header.
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    out.push(((tcp_len / 4) as u8) << 4);
    out.push(flags);
    out.extend_from_slice(&window.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&opts);
    size_bytes.max(ip_total)
}

/// pcap files being written, one per link direction, appended to as a run
/// goes (a live run writes what it logged every few hundred milliseconds,
/// so its memory does not grow with its length).
pub struct PcapStream {
    files: Vec<Option<(BufWriter<File>, u64, u16)>>,
    paths: Vec<(u32, PathBuf)>,
    buf: Vec<u8>,
    /// Where files of links built during the run go, and their suffix.
    dir: PathBuf,
    suffix: String,
}

impl PcapStream {
    /// Create one file per link direction in `link_dirs` in `dir` (which
    /// must exist), named `<link>.<forward|reverse><suffix>.pcap`.
    pub fn create(
        plan: &Plan,
        dir: &Path,
        link_dirs: &[u32],
        suffix: &str,
    ) -> io::Result<PcapStream> {
        let mut files: Vec<Option<(BufWriter<File>, u64, u16)>> =
            (0..plan.links.len()).map(|_| None).collect();
        let mut paths = Vec::new();
        for &ld in link_dirs {
            let path = dir.join(file_name(plan, ld, suffix));
            files[ld as usize] = Some((Self::open(&path)?, 0, 0));
            paths.push((ld, path));
        }
        Ok(PcapStream {
            files,
            paths,
            buf: Vec::with_capacity(128),
            dir: dir.to_path_buf(),
            suffix: suffix.to_string(),
        })
    }

    /// A new file with its global header: nanosecond magic, version 2.4,
    /// zone 0, sigfigs 0, snap length, LINKTYPE_RAW (101).
    fn open(path: &Path) -> io::Result<BufWriter<File>> {
        let mut w = BufWriter::new(File::create(path).map_err(|e| named(path, e))?);
        let mut header = Vec::with_capacity(24);
        header.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes());
        header.extend_from_slice(&2u16.to_le_bytes());
        header.extend_from_slice(&4u16.to_le_bytes());
        header.extend_from_slice(&0i32.to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        header.extend_from_slice(&65_535u32.to_le_bytes());
        header.extend_from_slice(&101u32.to_le_bytes());
        w.write_all(&header).map_err(|e| named(path, e))?;
        Ok(w)
    }

    /// Open the files of the links a moving network built that `log` has
    /// events of (named like the plan's: `<link>.<dir><suffix>.pcap`).
    fn open_built(&mut self, plan: &Plan, log: &PacketLog) -> io::Result<()> {
        let first = plan.links.len();
        for e in &log.events {
            let ld = e.link_dir as usize;
            if ld < first || self.files.get(ld).is_some_and(|f| f.is_some()) {
                continue;
            }
            let Some(name) = log.built_names.get(ld / 2 - plan.layers.len()) else {
                continue;
            };
            let path = self.dir.join(dir_file_name(name, ld as u32, &self.suffix));
            if self.files.len() <= ld {
                self.files.resize_with(ld + 1, || None);
            }
            self.files[ld] = Some((Self::open(&path)?, 0, 0));
            self.paths.push((ld as u32, path));
        }
        Ok(())
    }

    /// Append the accepted packets of `log` (a whole log, or the part of a
    /// run's log taken so far).
    pub fn write(&mut self, plan: &Plan, log: &PacketLog) -> io::Result<()> {
        if !log.built_names.is_empty() {
            self.open_built(plan, log)?;
        }
        let conns = pcap_conns(plan, &log.conns);
        let buf = &mut self.buf;
        for (i, e) in log.events.iter().enumerate() {
            let Some(Some((w, n, ip_id))) = self.files.get_mut(e.link_dir as usize) else {
                continue;
            };
            if !log.accepted(i) {
                continue;
            }
            if let Payload::External = e.payload {
                // A real packet: written whole, as it was carried.
                let Some(data) = log.blobs.get(e.conn as usize) else {
                    continue;
                };
                *n += 1;
                record(w, e.t, data, data.len() as u32)
                    .map_err(|err| named_dir(&self.paths, e.link_dir, err))?;
                continue;
            }
            let orig = if let Payload::Datagram { .. } = e.payload {
                // A probe datagram: `conn` is the flow index.
                let f = &plan.flows[e.conn as usize];
                let (src, dst) = (*f.path.first().unwrap(), *f.path.last().unwrap());
                encode_udp(e.conn, src, dst, e.size_bytes, *ip_id, buf)
            } else {
                encode(
                    &conns[e.conn as usize],
                    &e.payload,
                    e.size_bytes,
                    *ip_id,
                    buf,
                )
            };
            *ip_id = ip_id.wrapping_add(1);
            *n += 1;
            record(w, e.t, buf, orig).map_err(|err| named_dir(&self.paths, e.link_dir, err))?;
        }
        Ok(())
    }

    /// Flush and close every file; each file and its number of packets.
    pub fn finish(mut self) -> io::Result<Vec<(PathBuf, u64)>> {
        let mut out = Vec::new();
        for (ld, path) in std::mem::take(&mut self.paths) {
            let (mut w, n, _) = self.files[ld as usize].take().unwrap();
            w.flush().map_err(|e| named(&path, e))?;
            out.push((path, n));
        }
        Ok(out)
    }
}

/// One packet record: its time, captured length, original length, bytes.
fn record(w: &mut BufWriter<File>, t: Time, data: &[u8], orig: u32) -> io::Result<()> {
    w.write_all(&((t.0 / 1_000_000_000) as u32).to_le_bytes())?;
    w.write_all(&((t.0 % 1_000_000_000) as u32).to_le_bytes())?;
    w.write_all(&(data.len() as u32).to_le_bytes())?;
    w.write_all(&orig.to_le_bytes())?;
    w.write_all(data)
}

/// An error writing `path`, naming it (a full file system says no name).
fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// [`named`] for the file of link direction `ld`.
fn named_dir(paths: &[(u32, PathBuf)], ld: u32, e: io::Error) -> io::Error {
    match paths.iter().find(|(d, _)| *d == ld) {
        Some((_, path)) => named(path, e),
        None => e,
    }
}

/// Write one pcap file per link direction in `link_dirs` into `dir` (which
/// must exist); returns each file and its number of packets.
pub fn write_pcaps(
    plan: &Plan,
    log: &PacketLog,
    dir: &Path,
    link_dirs: &[u32],
    suffix: &str,
) -> io::Result<Vec<(PathBuf, u64)>> {
    let mut s = PcapStream::create(plan, dir, link_dirs, suffix)?;
    s.write(plan, log)?;
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{AckSeg, DataSeg, SackBlocks};

    fn conn() -> PcapConn {
        PcapConn {
            sender_ip: [10, 0, 0, 1],
            receiver_ip: [10, 0, 1, 1],
            sender_port: 10_000,
            receiver_port: 20_000,
            sender_isn: 1000,
            receiver_isn: 5000,
            window_shift: 2,
            mss: 1460,
            handshake: false,
        }
    }

    #[test]
    fn a_data_segment_has_a_valid_ipv4_header_and_the_isn_relative_sequence() {
        let mut b = Vec::new();
        let d = Payload::Data(DataSeg {
            seq: 2920,
            len: 1460,
            retx: false,
            probe: false,
            ts: crate::engine::time::Time::ZERO,
        });
        let orig = encode(&conn(), &d, 1500, 7, &mut b);
        assert_eq!(orig, 1500);
        assert_eq!(b.len(), 40);
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 1500);
        assert_eq!(checksum(&b[..20]), 0, "header checksum verifies");
        assert_eq!(&b[12..20], &[10, 0, 0, 1, 10, 0, 1, 1]);
        assert_eq!(
            u32::from_be_bytes([b[24], b[25], b[26], b[27]]),
            1000 + 1 + 2920
        );
        assert_eq!(b[32] >> 4, 5);
    }

    #[test]
    fn an_ack_carries_scaled_window_and_padded_sack_blocks() {
        let mut b = Vec::new();
        let a = Payload::Ack(AckSeg {
            ack: 1460,
            wnd: 40_000,
            sack: SackBlocks::from_slice(&[(2920, 4380), (5840, 7300)]),
            window_update: false,
            tsecr: None,
        });
        let orig = encode(&conn(), &a, 40 + 2 + 16, 0, &mut b);
        assert_eq!(b.len(), 20 + 20 + 4 + 16);
        assert_eq!(
            orig, 60,
            "padded options are longer than skyhop's wire size"
        );
        assert_eq!(&b[12..20], &[10, 0, 1, 1, 10, 0, 0, 1]);
        assert_eq!(
            u32::from_be_bytes([b[28], b[29], b[30], b[31]]),
            1000 + 1 + 1460
        );
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 10_000);
        assert_eq!(&b[40..44], &[1, 1, 5, 18]);
        assert_eq!(
            u32::from_be_bytes([b[44], b[45], b[46], b[47]]),
            1001 + 2920
        );
        assert_eq!(
            u32::from_be_bytes([b[56], b[57], b[58], b[59]]),
            1001 + 7300
        );
    }
}
