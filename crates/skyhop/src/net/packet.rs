//! A packet on the wire: routing metadata plus a TCP data segment or ACK;
//! and the store of the packets on the move (`PacketStore`).

use crate::channel::PacketKind;
use crate::engine::Time;
use crate::tcp::{AckSeg, DataSeg, SackBlocks, MAX_SACK_BLOCKS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    Data(DataSeg),
    Ack(AckSeg),
    /// A datagram of a probe flow (`conn` is then the flow index): its
    /// number in the flow and when it was sent.
    Datagram {
        seq: u64,
        sent_at: crate::engine::Time,
    },
    /// A packet from outside the simulated network (a live host's IP
    /// packet), carried whole: `conn` is then its index in the world's
    /// table of external packets, which holds its bytes.
    External,
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Bytes on the wire (headers included).
    pub size_bytes: u32,
    /// The connection (flow leg) this packet belongs to (a datagram's flow,
    /// an external packet's index).
    pub conn: u32,
    /// Route (list of link directions) the packet follows, and the index of
    /// the next link direction to cross.
    pub route: u32,
    pub hop: u16,
    pub payload: Payload,
}

impl Packet {
    #[inline]
    pub fn is_ack(&self) -> bool {
        matches!(self.payload, Payload::Ack(_))
    }
}

/// The routing header and payload of a packet on the move, and its entry
/// in the in-flight list of the link direction it is crossing, in one
/// cache line: a packet is read cold when it leaves a queue or a long link,
/// and its arrival reads its slot anyway. An ACK's SACK blocks (64 bytes of
/// its 112) are kept apart, in the store's side table, so that a data
/// segment or an ACK without blocks costs one line at every hop.
///
/// The payload is three words and a flag byte, by kind (`kind`):
/// a data segment (or SYN) `a` = seq, `b` = TSval, `c` = len, flags
/// retx and probe; an ACK `a` = ack, `b` = window, `c` = TSecr, flags
/// window update, TSecr present and the number of SACK blocks; a
/// datagram `a` = its number, `b` = when sent.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct Slot {
    pub size_bytes: u32,
    pub conn: u32,
    pub route: u32,
    pub hop: u16,
    kind: u8,
    flags: u8,
    a: u64,
    b: u64,
    c: u64,
    /// The in-flight list of the link direction the packet is crossing
    /// (`net/fifo.rs`): the slot queued after it on the same direction
    /// (`NO_SLOT`: none yet), and when that packet arrives at the far end
    /// with the event sequence number its arrival took when it was queued.
    /// The successor's arrival is kept here, not in its own slot, so that
    /// an arrival, which reads its own slot anyway, schedules the next
    /// one without reading the next packet's line.
    pub(crate) next_arrival: Time,
    pub(crate) next_seq: u64,
    pub(crate) next: u32,
}

/// No slot (the end of an in-flight list).
pub(crate) const NO_SLOT: u32 = u32::MAX;

const KIND_DATA: u8 = 0;
const KIND_ACK: u8 = 1;
const KIND_DATAGRAM: u8 = 2;
const KIND_EXTERNAL: u8 = 3;

/// Flags of a data segment.
const RETX: u8 = 1;
const PROBE: u8 = 2;
/// Flags of an ACK (the number of SACK blocks in the bits above).
const WINDOW_UPDATE: u8 = 1;
const HAS_TSECR: u8 = 2;
const SACK_SHIFT: u32 = 2;
const _: () = assert!(MAX_SACK_BLOCKS < 1 << (8 - SACK_SHIFT));

/// What a link sees of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotView {
    /// A TCP segment (data or SYN), an ACK or a datagram: its kind, its
    /// first sequence number (data) and whether it was sent before.
    Sim(PacketKind, u64, bool),
    /// A packet from outside (`conn` is its index in the table of external packets).
    External,
}

impl Slot {
    const EMPTY: Slot = Slot {
        size_bytes: 0,
        conn: 0,
        route: 0,
        hop: 0,
        kind: KIND_EXTERNAL,
        flags: 0,
        a: 0,
        b: 0,
        c: 0,
        next_arrival: Time::ZERO,
        next_seq: 0,
        next: NO_SLOT,
    };

    /// Write the routing header of a packet at its route's start, field by
    /// field (for `PacketStore::alloc_data` and `alloc_ack`).
    #[inline(always)]
    fn set_head(&mut self, size_bytes: u32, conn: u32, route: u32) -> &mut Slot {
        self.size_bytes = size_bytes;
        self.conn = conn;
        self.route = route;
        self.hop = 0;
        self
    }

    /// Write a data segment's fields.
    #[inline(always)]
    fn set_data(&mut self, d: &DataSeg) {
        self.kind = KIND_DATA;
        self.flags = if d.retx { RETX } else { 0 } | if d.probe { PROBE } else { 0 };
        self.a = d.seq;
        self.b = d.ts.0;
        self.c = d.len as u64;
    }

    /// Write an ACK's fields (its SACK blocks only counted).
    #[inline(always)]
    fn set_ack(&mut self, a: &AckSeg) {
        self.kind = KIND_ACK;
        self.flags = if a.window_update { WINDOW_UPDATE } else { 0 }
            | if a.tsecr.is_some() { HAS_TSECR } else { 0 }
            | (a.sack.len() as u8) << SACK_SHIFT;
        self.a = a.ack;
        self.b = a.wnd;
        self.c = a.tsecr.map_or(0, |t| t.0);
    }

    /// The payload's kind and fields.
    #[inline(always)]
    fn set_payload(&mut self, p: &Payload) {
        match p {
            Payload::Data(d) => self.set_data(d),
            Payload::Ack(a) => self.set_ack(a),
            Payload::Datagram { seq, sent_at } => {
                self.kind = KIND_DATAGRAM;
                self.flags = 0;
                (self.a, self.b, self.c) = (*seq, sent_at.0, 0);
            }
            Payload::External => {
                self.kind = KIND_EXTERNAL;
                self.flags = 0;
                (self.a, self.b, self.c) = (0, 0, 0);
            }
        }
    }

    /// The data segment this slot holds (its kind is `KIND_DATA`).
    #[inline(always)]
    fn data(&self) -> DataSeg {
        DataSeg {
            seq: self.a,
            len: self.c as u32,
            retx: self.flags & RETX != 0,
            probe: self.flags & PROBE != 0,
            ts: Time(self.b),
        }
    }

    /// The number of SACK blocks of the ACK this slot holds.
    #[inline(always)]
    fn n_sack(&self) -> u8 {
        self.flags >> SACK_SHIFT
    }

    /// What a link layer is told of this packet.
    #[inline(always)]
    pub fn view(&self) -> SlotView {
        match self.kind {
            KIND_DATA => {
                let d = self.data();
                if d.is_syn() {
                    SlotView::Sim(PacketKind::Syn, 0, d.retx)
                } else {
                    SlotView::Sim(PacketKind::Data, d.seq, d.retx)
                }
            }
            KIND_ACK => SlotView::Sim(PacketKind::Ack, 0, false),
            KIND_DATAGRAM => SlotView::Sim(PacketKind::Data, self.a, false),
            _ => SlotView::External,
        }
    }

    /// A TCP data segment (or SYN) or an ACK: `Some(true)` for an ACK.
    #[inline(always)]
    pub fn tcp_is_ack(&self) -> Option<bool> {
        match self.kind {
            KIND_DATA => Some(false),
            KIND_ACK => Some(true),
            _ => None,
        }
    }

    #[inline]
    pub fn is_external(&self) -> bool {
        self.kind == KIND_EXTERNAL
    }
}

/// 64 bytes: one ACK's SACK blocks, on a line of their own.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct SackLine([(u64, u64); MAX_SACK_BLOCKS]);

const _: () = assert!(std::mem::size_of::<Slot>() == 64);
const _: () = assert!(std::mem::size_of::<SackLine>() == 64);

/// Ask the kernel to back the 2 MiB-aligned stretches of `v`'s buffer with
/// transparent huge pages (where it offers them on request; a hint, no
/// effect on results). A world with hundreds of thousands of packets in
/// flight reads their slots scattered over tens of megabytes, more than
/// the processor's address translations cover in 4 KiB pages: each cold
/// slot would cost a page walk besides its cache miss. Called when the
/// buffer moves or grows; the part not yet touched is then faulted in as
/// huge pages.
#[cold]
#[inline(never)]
fn advise_huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        let lo = start.next_multiple_of(HUGE);
        let hi = end & !(HUGE - 1);
        if hi > lo {
            // SAFETY: the range lies inside `v`'s allocation; the advice
            // changes how its pages are backed, never their contents.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// The packets on the move: a slot each, numbered (a link holds slot
/// numbers, not packets), reused once the packet arrives or is lost.
#[derive(Default)]
pub struct PacketStore {
    slots: Vec<Slot>,
    /// SACK blocks by slot number, for the ACKs that carry some (grown on
    /// the first such ACK in a slot beyond its end).
    sack: Vec<SackLine>,
    free: Vec<u32>,
}

impl PacketStore {
    pub fn with_capacity(n: usize) -> PacketStore {
        PacketStore {
            slots: Vec::with_capacity(n),
            sack: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Store `p` in a free slot and return its number.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        let i = self.take_free();
        let s = self.slots[i].set_head(p.size_bytes, p.conn, p.route);
        s.hop = p.hop;
        s.set_payload(&p.payload);
        if let Payload::Ack(a) = p.payload {
            self.put_blocks(i, &a.sack);
        }
        i as u32
    }

    /// Slot `i`'s SACK blocks into the side table (nothing without blocks).
    #[inline(always)]
    fn put_blocks(&mut self, i: usize, sack: &SackBlocks) {
        if !sack.is_empty() {
            if i >= self.sack.len() {
                self.sack.resize(self.slots.len(), SackLine::default());
                advise_huge_pages(&self.sack);
            }
            self.sack[i] = SackLine(sack.blocks());
        }
    }

    /// A free slot's number (a new one at the end if none is free).
    #[inline(always)]
    fn take_free(&mut self) -> usize {
        match self.free.pop() {
            Some(i) => i as usize,
            None => {
                let cap = self.slots.capacity();
                self.slots.push(Slot::EMPTY);
                if self.slots.capacity() != cap {
                    advise_huge_pages(&self.slots);
                }
                self.slots.len() - 1
            }
        }
    }

    /// `alloc` for a TCP data segment at its route's start, written into
    /// its slot field by field: a `Packet` built on the stack and copied
    /// in wide loads spans several of the stores that built it, which the
    /// processor cannot forward, and the copy waits for every older store
    /// (cold per-connection lines included) to reach the cache.
    #[inline(always)]
    pub fn alloc_data(&mut self, size_bytes: u32, conn: u32, route: u32, seg: &DataSeg) -> u32 {
        let i = self.take_free();
        self.slots[i]
            .set_head(size_bytes, conn, route)
            .set_data(&DataSeg::read_fields(seg));
        i as u32
    }

    /// `alloc` for an ACK at its route's start, written in place as
    /// `alloc_data` is (its SACK blocks, if any, in the side table).
    #[inline(always)]
    pub fn alloc_ack(&mut self, size_bytes: u32, conn: u32, route: u32, a: &AckSeg) -> u32 {
        let i = self.take_free();
        self.slots[i].set_head(size_bytes, conn, route).set_ack(a);
        self.put_blocks(i, &a.sack);
        i as u32
    }

    /// Slot `i`'s header and payload (its SACK blocks aside).
    #[inline(always)]
    pub fn slot(&self, i: u32) -> &Slot {
        &self.slots[i as usize]
    }

    #[inline(always)]
    pub fn slot_mut(&mut self, i: u32) -> &mut Slot {
        &mut self.slots[i as usize]
    }

    /// The whole packet in slot `i`.
    #[inline]
    pub fn get(&self, i: u32) -> Packet {
        let s = &self.slots[i as usize];
        let payload = match s.kind {
            KIND_DATA => Payload::Data(s.data()),
            KIND_ACK => Payload::Ack(AckSeg {
                ack: s.a,
                wnd: s.b,
                sack: match s.n_sack() {
                    0 => SackBlocks::default(),
                    n => SackBlocks::from_blocks(n, self.sack[i as usize].0),
                },
                window_update: s.flags & WINDOW_UPDATE != 0,
                tsecr: (s.flags & HAS_TSECR != 0).then_some(Time(s.c)),
            }),
            KIND_DATAGRAM => Payload::Datagram {
                seq: s.a,
                sent_at: Time(s.b),
            },
            _ => Payload::External,
        };
        Packet {
            size_bytes: s.size_bytes,
            conn: s.conn,
            route: s.route,
            hop: s.hop,
            payload,
        }
    }

    /// The packet in slot `i`, whose slot is free again.
    #[inline(always)]
    pub fn take(&mut self, i: u32) -> Packet {
        let p = self.get(i);
        self.free.push(i);
        p
    }

    /// Slot `i` is free again (its packet was lost or taken).
    #[inline]
    pub fn release(&mut self, i: u32) {
        self.free.push(i);
    }

    /// A hint to bring slot `i` into the cache ahead of use (no effect on results).
    #[inline(always)]
    pub fn prefetch(&self, i: u32) {
        if let Some(s) = self.slots.get(i as usize) {
            crate::engine::prefetch(s);
        }
    }

    /// A hint: slot `i` (in the cache) will be read whole soon; if it holds
    /// an ACK with SACK blocks, bring its line of the side table in too.
    #[inline(always)]
    pub fn prefetch_blocks(&self, i: u32) {
        let s = &self.slots[i as usize];
        if s.kind == KIND_ACK && s.n_sack() != 0 {
            crate::engine::prefetch(&self.sack[i as usize]);
        }
    }

    /// The most packets on the move at once so far (the slots ever used:
    /// a slot is added only when none is free).
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }

    /// The packets still on the move (not in a free slot).
    pub fn live(&self) -> Vec<Packet> {
        let mut free = vec![false; self.slots.len()];
        for &i in &self.free {
            free[i as usize] = true;
        }
        (0..self.slots.len() as u32)
            .filter(|&i| !free[i as usize])
            .map(|i| self.get(i))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(n: usize) -> Packet {
        let blocks: Vec<(u64, u64)> = (0..n as u64)
            .map(|k| (100 * k + 50, 100 * k + 90))
            .collect();
        Packet {
            size_bytes: 52 + 8 * n as u32,
            conn: 7,
            route: 3,
            hop: 1,
            payload: Payload::Ack(AckSeg {
                ack: 10,
                wnd: 1 << 40,
                sack: SackBlocks::from_slice(&blocks),
                window_update: n == 2,
                tsecr: (n % 2 == 1).then_some(Time(99)),
            }),
        }
    }

    fn same(a: &Packet, b: &Packet) -> bool {
        (a.size_bytes, a.conn, a.route, a.hop, a.payload)
            == (b.size_bytes, b.conn, b.route, b.hop, b.payload)
    }

    #[test]
    fn a_stored_packet_comes_back_whole_and_its_slot_is_reused() {
        let mut st = PacketStore::default();
        let data = Packet {
            size_bytes: 1500,
            conn: 1,
            route: 2,
            hop: 0,
            payload: Payload::Data(DataSeg {
                seq: 1 << 35,
                len: 1448,
                retx: true,
                probe: false,
                ts: Time(5),
            }),
        };
        let dg = Packet {
            size_bytes: 200,
            conn: 4,
            route: 0,
            hop: 2,
            payload: Payload::Datagram {
                seq: 9,
                sent_at: Time(3),
            },
        };
        let ext = Packet {
            size_bytes: 60,
            conn: 11,
            route: 1,
            hop: 0,
            payload: Payload::External,
        };
        let mut all = vec![data, dg, ext];
        all.extend((0..=MAX_SACK_BLOCKS).map(ack));
        let slots: Vec<u32> = all.iter().map(|p| st.alloc(*p)).collect();
        for (p, &i) in all.iter().zip(&slots) {
            assert!(same(p, &st.get(i)));
        }
        assert_eq!(
            st.slot(slots[0]).view(),
            SlotView::Sim(PacketKind::Data, 1 << 35, true)
        );
        assert_eq!(
            st.slot(slots[3]).view(),
            SlotView::Sim(PacketKind::Ack, 0, false)
        );
        assert!(st.slot(slots[2]).is_external());
        assert_eq!(st.live().len(), all.len());
        assert_eq!(st.high_water(), all.len());
        // An ACK with blocks taken, then one without in its slot, then one with fewer.
        let i = slots[7];
        assert!(same(&st.take(i), &ack(4)));
        assert_eq!(st.alloc(ack(0)), i);
        assert!(same(&st.get(i), &ack(0)));
        st.release(i);
        assert_eq!(st.alloc(ack(1)), i);
        assert!(same(&st.get(i), &ack(1)));
        assert_eq!(st.live().len(), all.len());
        assert_eq!(st.high_water(), all.len(), "a freed slot is reused");
    }

    #[test]
    fn a_segment_or_ack_written_in_place_is_the_packet_alloc_would_store() {
        // Each kind into a fresh slot and into slots a packet of another
        // kind (or an ACK with more blocks) held before.
        let mut st = PacketStore::default();
        let seg = DataSeg {
            seq: 1 << 40,
            len: 1448,
            retx: false,
            probe: true,
            ts: Time(77),
        };
        let as_packet = |size_bytes, payload| Packet {
            size_bytes,
            conn: 5,
            route: 9,
            hop: 0,
            payload,
        };
        for round in 0..3 {
            let d = st.alloc_data(1500, 5, 9, &seg);
            assert!(same(&st.get(d), &as_packet(1500, Payload::Data(seg))));
            let mut acks = Vec::new();
            for n in [MAX_SACK_BLOCKS, 0, 2, 1] {
                let Payload::Ack(a) = ack(n).payload else {
                    unreachable!()
                };
                let k = st.alloc_ack(40 + n as u32, 5, 9, &a);
                assert!(same(&st.get(k), &as_packet(40 + n as u32, Payload::Ack(a))));
                acks.push(k);
            }
            // Free them in an order that puts ACKs where data was and back.
            st.release(d);
            for &k in acks.iter().rev() {
                st.release(k);
            }
            assert_eq!(st.live().len(), 0, "round {round}");
        }
    }
}
