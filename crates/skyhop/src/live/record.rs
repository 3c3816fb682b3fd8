//! The record of a live run: every packet that arrived from a live host,
//! with the simulated time it entered the world, in the order it entered.
//! Replayed into the same scenario and seed (`super::replay`), it gives the
//! live run's world again, as a deterministic simulation.
//!
//! The file is pcapng (readable by Wireshark and tshark): one interface per
//! live node (named after it, LINKTYPE_RAW, nanosecond timestamps) and one
//! Enhanced Packet Block per arrival, timestamped with its simulated time.

use crate::engine::Time;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 1;
const EPB: u32 = 6;
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
        block(&mut self.w, EPB, &b)
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.w.flush()
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

/// Read a record; errors name what is wrong with the file. At most
/// `max_bytes` of packet data are read (a bound on memory).
pub fn read(path: &Path, max_bytes: u64) -> Result<Vec<Arrival>, String> {
    let f = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    if !f.metadata().map(|m| m.is_file()).unwrap_or(false) {
        return Err("not a regular file".into());
    }
    let mut r = BufReader::new(f);
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut total = 0u64;
    let mut first = true;
    loop {
        let mut head = [0u8; 8];
        match r.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e.to_string()),
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
        r.read_exact(&mut body)
            .map_err(|_| "truncated block".to_string())?;
        let body = &body[..len - 12];
        match kind {
            SHB if body.len() < 4
                || u32::from_le_bytes(body[..4].try_into().unwrap()) != BYTE_ORDER =>
            {
                return Err("a section in another byte order".into());
            }
            SHB => {}
            IDB => {
                let mut name = format!("if{}", names.len());
                let mut o = 8;
                while o + 4 <= body.len() {
                    let code = u16::from_le_bytes([body[o], body[o + 1]]);
                    let l = u16::from_le_bytes([body[o + 2], body[o + 3]]) as usize;
                    if code == 0 || o + 4 + l > body.len() {
                        break;
                    }
                    if code == 2 {
                        name = String::from_utf8_lossy(&body[o + 4..o + 4 + l]).into_owned();
                    }
                    o += 4 + pad4(l);
                }
                names.push(name);
            }
            EPB => {
                if body.len() < 20 {
                    return Err("a truncated packet block".into());
                }
                let u = |k: usize| u32::from_le_bytes(body[k..k + 4].try_into().unwrap());
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
                total += caplen as u64;
                if total > max_bytes {
                    return Err(format!("more than {max_bytes} bytes of packets"));
                }
                out.push(Arrival {
                    t: Time(t),
                    node,
                    data: body[20..20 + caplen].to_vec(),
                });
            }
            _ => {}
        }
    }
    if out.windows(2).any(|w| w[1].t < w[0].t) {
        return Err("arrivals out of time order".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_in_order_with_its_nodes() {
        let dir = std::env::temp_dir().join(format!("skyhop-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("arrivals.pcapng");
        let mut rec = Recorder::create(&path, 4, &[(1, "W".into()), (3, "G".into())]).unwrap();
        rec.arrival(Time(5), 3, &[1, 2, 3]).unwrap();
        rec.arrival(Time(5), 1, &[9; 41]).unwrap();
        rec.arrival(Time(7_000_000_000), 1, &[]).unwrap();
        rec.finish().unwrap();
        let a = read(&path, 1 << 20).unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(
            (a[0].t, a[0].node.as_str(), a[0].data.as_slice()),
            (Time(5), "G", &[1u8, 2, 3][..])
        );
        assert_eq!((a[1].node.as_str(), a[1].data.len()), ("W", 41));
        assert_eq!(a[2].t, Time(7_000_000_000));
        assert!(read(&path, 10).unwrap_err().contains("more than 10 bytes"));
        std::fs::write(&path, b"not a record at all").unwrap();
        assert!(read(&path, 1 << 20).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
