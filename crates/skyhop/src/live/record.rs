//! The record of a live run: every packet that arrived from a live host,
//! with the simulated time it entered the world, in the order it entered.
//! Replayed into the same scenario and seed (`super::replay`), it gives the
//! live run's world again, as a deterministic simulation.
//!
//! The file is pcapng (readable by Wireshark and tshark): one interface per
//! live node (named after it, LINKTYPE_RAW, nanosecond timestamps) and one
//! Enhanced Packet Block per arrival, timestamped with its simulated time.
//! A complete record ends with an Interface Statistics Block per interface,
//! timestamped with the run's stop and giving the number of packets
//! recorded on it (`isb_ifrecv`): a record cut short (a full disk, a killed
//! run, a truncated copy) lacks them, and is refused rather than replayed
//! as a shorter run.

use crate::engine::Time;
use crate::files::{self, Accept};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 1;
const ISB: u32 = 5;
const EPB: u32 = 6;
/// `isb_ifrecv`: packets received on the interface.
const ISB_IFRECV: u16 = 4;

/// The largest record read back (bytes): replays hold it in memory.
pub const MAX_RECORD_BYTES: u64 = 1 << 36;
const BYTE_ORDER: u32 = 0x1A2B_3C4D;
const LINKTYPE_RAW: u16 = 101;

fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// Writes the arrivals of a live run as they happen.
pub struct Recorder {
    w: BufWriter<File>,
    /// Interface id of each node index (`u32::MAX`: not a live node).
    iface: Vec<u32>,
    /// Packets recorded per interface.
    per_iface: Vec<u64>,
    pub packets: u64,
}

impl Recorder {
    /// A new record at `path` for the live nodes `nodes` (index, name),
    /// of a network of `n_nodes` nodes.
    pub fn create(path: &Path, n_nodes: usize, nodes: &[(u32, String)]) -> io::Result<Recorder> {
        let mut w = BufWriter::new(File::create(path)?);
        // Section header: byte order, version 1.0, unknown section length.
        let mut b = Vec::new();
        b.extend_from_slice(&BYTE_ORDER.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&(-1i64).to_le_bytes());
        block(&mut w, SHB, &b)?;
        let mut iface = vec![u32::MAX; n_nodes];
        for (k, (node, name)) in nodes.iter().enumerate() {
            iface[*node as usize] = k as u32;
            let mut b = Vec::new();
            b.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
            b.extend_from_slice(&0u16.to_le_bytes());
            b.extend_from_slice(&0u32.to_le_bytes()); // no snap length limit
            option(&mut b, 2, name.as_bytes()); // if_name
            option(&mut b, 9, &[9]); // if_tsresol: nanoseconds
            option(&mut b, 0, &[]);
            block(&mut w, IDB, &b)?;
        }
        Ok(Recorder {
            w,
            iface,
            per_iface: vec![0; nodes.len()],
            packets: 0,
        })
    }

    /// Packet `data` entered the world at node `node` at `t`.
    pub fn arrival(&mut self, t: Time, node: u32, data: &[u8]) -> io::Result<()> {
        let mut b = Vec::with_capacity(20 + pad4(data.len()));
        b.extend_from_slice(&self.iface[node as usize].to_le_bytes());
        b.extend_from_slice(&((t.0 >> 32) as u32).to_le_bytes());
        b.extend_from_slice(&(t.0 as u32).to_le_bytes());
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(data);
        b.resize(20 + pad4(data.len()), 0);
        self.packets += 1;
        self.per_iface[self.iface[node as usize] as usize] += 1;
        block(&mut self.w, EPB, &b)
    }

    /// Close the record of a run that stopped at `stop`: the statistics
    /// blocks that mark it complete, then everything flushed to the disk.
    pub fn finish(mut self, stop: Time) -> io::Result<()> {
        for (k, &n) in self.per_iface.iter().enumerate() {
            let mut b = Vec::new();
            b.extend_from_slice(&(k as u32).to_le_bytes());
            b.extend_from_slice(&((stop.0 >> 32) as u32).to_le_bytes());
            b.extend_from_slice(&(stop.0 as u32).to_le_bytes());
            option(&mut b, ISB_IFRECV, &n.to_le_bytes());
            option(&mut b, 0, &[]);
            block(&mut self.w, ISB, &b)?;
        }
        self.w.flush()?;
        self.w.get_ref().sync_all()
    }
}

fn option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    b.resize(pad4(b.len()), 0);
}

fn block(w: &mut impl Write, kind: u32, body: &[u8]) -> io::Result<()> {
    let total = (12 + body.len()) as u32;
    w.write_all(&kind.to_le_bytes())?;
    w.write_all(&total.to_le_bytes())?;
    w.write_all(body)?;
    w.write_all(&total.to_le_bytes())
}

/// One recorded arrival.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub t: Time,
    /// The live node's name (the interface it was recorded on).
    pub node: String,
    pub data: Vec<u8>,
}

/// A complete record: its live nodes, its arrivals and the time its run
/// stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The live nodes (the interfaces), in the record's order.
    pub nodes: Vec<String>,
    pub arrivals: Vec<Arrival>,
    pub stop: Time,
}

/// Read a record (a regular file of at most `max_bytes`); errors say what
/// is wrong with the file.
pub fn read(path: &Path, max_bytes: u64) -> Result<Record, String> {
    let f = files::open(path, max_bytes, Accept::Regular).map_err(|e| e.to_string())?;
    let mut r = BufReader::new(f);
    let mut names: Vec<String> = Vec::new();
    // Per interface: packets read, and the count and stop its statistics give.
    let mut counts: Vec<u64> = Vec::new();
    let mut stats: Vec<Option<(u64, Time)>> = Vec::new();
    let mut out = Vec::new();
    let mut first = true;
    let short = |e: io::Error| match files::from_read(e) {
        files::FileError::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            "truncated: it ends inside a block".to_string()
        }
        e => e.to_string(),
    };
    loop {
        let mut head = [0u8; 8];
        let got = read_full(&mut r, &mut head).map_err(short)?;
        if got == 0 {
            break;
        }
        if got < head.len() {
            return Err("truncated: it ends inside a block".into());
        }
        let kind = u32::from_le_bytes(head[..4].try_into().unwrap());
        let len = u32::from_le_bytes(head[4..].try_into().unwrap()) as usize;
        if first && kind != SHB {
            return Err("not a pcapng record of a live run (no section header)".into());
        }
        first = false;
        if len < 12 || !len.is_multiple_of(4) || len as u64 > 1 << 24 {
            return Err(format!("a block of impossible length {len}"));
        }
        let mut body = vec![0u8; len - 8];
        r.read_exact(&mut body).map_err(short)?;
        if body[len - 12..] != head[4..] {
            return Err("a block whose two lengths differ (a damaged record)".into());
        }
        let body = &body[..len - 12];
        let u = |k: usize| u32::from_le_bytes(body[k..k + 4].try_into().unwrap());
        match kind {
            SHB if body.len() < 4 || u(0) != BYTE_ORDER => {
                return Err("a section in another byte order".into());
            }
            SHB => {}
            IDB => {
                if stats.iter().any(Option::is_some) {
                    return Err("an interface described after the record's end".into());
                }
                let mut name = format!("if{}", names.len());
                for (code, value) in options(body, 8) {
                    if code == 2 {
                        name = String::from_utf8_lossy(value).into_owned();
                    }
                }
                names.push(name);
                counts.push(0);
                stats.push(None);
            }
            EPB => {
                if body.len() < 20 {
                    return Err("a truncated packet block".into());
                }
                let iface = u(0) as usize;
                let t = ((u(4) as u64) << 32) | u(8) as u64;
                let caplen = u(12) as usize;
                if 20 + caplen > body.len() {
                    return Err("a packet longer than its block".into());
                }
                let node = names
                    .get(iface)
                    .ok_or_else(|| {
                        format!("a packet on interface {iface}, which is not described")
                    })?
                    .clone();
                if stats[iface].is_some() {
                    return Err(format!(
                        "a packet of node {node} after its interface's closing statistics"
                    ));
                }
                counts[iface] += 1;
                out.push(Arrival {
                    t: Time(t),
                    node,
                    data: body[20..20 + caplen].to_vec(),
                });
            }
            ISB => {
                if body.len() < 12 {
                    return Err("a truncated statistics block".into());
                }
                let iface = u(0) as usize;
                let stop = Time(((u(4) as u64) << 32) | u(8) as u64);
                let recv = options(body, 12)
                    .find(|(code, v)| *code == ISB_IFRECV && v.len() == 8)
                    .map(|(_, v)| u64::from_le_bytes(v.try_into().unwrap()));
                let (Some(slot), Some(n)) = (stats.get_mut(iface), recv) else {
                    return Err(format!(
                        "statistics of interface {iface}, which is not described, or without a packet count"
                    ));
                };
                *slot = Some((n, stop));
            }
            _ => {}
        }
    }
    if names.is_empty() || stats.iter().any(Option::is_none) {
        return Err(
            "truncated: it ends before the statistics that close a complete record (the disk was full, the run was killed, or the file was cut)"
                .into(),
        );
    }
    let stop = stats[0].map_or(Time::ZERO, |(_, s)| s);
    for (i, s) in stats.iter().enumerate() {
        let (n, at) = s.expect("checked above");
        if n != counts[i] || at != stop {
            return Err(format!(
                "node {} has {} packets where the record's end says {n}{}",
                names[i],
                counts[i],
                if at != stop {
                    " (and another stop time)"
                } else {
                    ""
                }
            ));
        }
    }
    if out.windows(2).any(|w| w[1].t < w[0].t) {
        return Err("arrivals out of time order".into());
    }
    if out.last().is_some_and(|a| a.t > stop) {
        return Err("a packet after the run's stop".into());
    }
    Ok(Record {
        nodes: names,
        arrivals: out,
        stop,
    })
}

/// Read until `buf` is full or the file ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The options of a block's body from `at`: (code, value) up to the end
/// of options or of the body.
fn options(body: &[u8], mut at: usize) -> impl Iterator<Item = (u16, &[u8])> {
    std::iter::from_fn(move || {
        if at + 4 > body.len() {
            return None;
        }
        let code = u16::from_le_bytes([body[at], body[at + 1]]);
        let l = u16::from_le_bytes([body[at + 2], body[at + 3]]) as usize;
        if code == 0 || at + 4 + l > body.len() {
            return None;
        }
        let value = &body[at + 4..at + 4 + l];
        at += 4 + pad4(l);
        Some((code, value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("skyhop-record-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn three(path: &Path) {
        let mut rec = Recorder::create(path, 4, &[(1, "W".into()), (3, "G".into())]).unwrap();
        rec.arrival(Time(5), 3, &[1, 2, 3]).unwrap();
        rec.arrival(Time(5), 1, &[9; 41]).unwrap();
        rec.arrival(Time(7_000_000_000), 1, &[]).unwrap();
        rec.finish(Time(8_000_000_000)).unwrap();
    }

    #[test]
    fn a_record_reads_back_in_order_with_its_nodes_and_stop() {
        let d = dir("back");
        let path = d.join("arrivals.pcapng");
        three(&path);
        let rec = read(&path, 1 << 20).unwrap();
        let a = &rec.arrivals;
        assert_eq!(a.len(), 3);
        assert_eq!(
            (a[0].t, a[0].node.as_str(), a[0].data.as_slice()),
            (Time(5), "G", &[1u8, 2, 3][..])
        );
        assert_eq!((a[1].node.as_str(), a[1].data.len()), ("W", 41));
        assert_eq!(a[2].t, Time(7_000_000_000));
        assert_eq!(rec.stop, Time(8_000_000_000));
        assert_eq!(rec.nodes, ["W", "G"]);
        let size = std::fs::metadata(&path).unwrap().len();
        let e = read(&path, size - 1).unwrap_err();
        assert!(e.contains(&format!("larger than {}", size - 1)), "{e}");
        std::fs::write(&path, b"not a record at all").unwrap();
        assert!(read(&path, 1 << 20).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A record cut anywhere — inside a block or between two — is refused:
    /// never a shorter run.
    #[test]
    fn a_record_cut_at_any_byte_is_refused() {
        let d = dir("cut");
        let path = d.join("arrivals.pcapng");
        three(&path);
        let whole = std::fs::read(&path).unwrap();
        let cut = d.join("cut.pcapng");
        for len in 0..whole.len() {
            std::fs::write(&cut, &whole[..len]).unwrap();
            let e = read(&cut, 1 << 20).expect_err(&format!("cut at {len}"));
            assert!(e.contains("truncated"), "cut at {len}: {e}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_record_missing_a_packet_block_is_refused_by_its_counts() {
        let d = dir("drop");
        let path = d.join("arrivals.pcapng");
        three(&path);
        let whole = std::fs::read(&path).unwrap();
        // Walk the blocks; drop the first packet block.
        let mut at = 0;
        let mut out = Vec::new();
        let mut dropped = false;
        while at < whole.len() {
            let kind = u32::from_le_bytes(whole[at..at + 4].try_into().unwrap());
            let len = u32::from_le_bytes(whole[at + 4..at + 8].try_into().unwrap()) as usize;
            if kind == EPB && !dropped {
                dropped = true;
            } else {
                out.extend_from_slice(&whole[at..at + len]);
            }
            at += len;
        }
        std::fs::write(&path, &out).unwrap();
        let e = read(&path, 1 << 20).unwrap_err();
        assert!(
            e.contains("node G has 0 packets where the record's end says 1"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn special_files_are_refused_unread() {
        let e = read(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.contains("not a regular file (a character device"), "{e}");
    }
}
