//! Split proxies as the world sees them: a relay between the receiver of
//! its incoming leg and the sender of its outgoing leg (`pep::ProxyRt`).
//! The world hands it both endpoints and puts what it returns on the wire:
//! ACKs of the incoming leg first, then data of the outgoing leg.
//!
//! Ack-after-forward (a proxy's integrity rule): the incoming receiver's ACK
//! is capped at the outgoing sender's `snd_max`. The cap is raised, and a
//! deferred ACK flushed, after each event that can make the outgoing sender
//! transmit (an arrival forwarded into it, an ACK or a timer of its own), so
//! an ACK the rule holds back goes out the moment the bytes it covers have
//! been put on the outgoing wire.

use super::world::World;
use crate::engine::Time;
use crate::pep::{ProxyRt, RelayOut};
use crate::tcp::{AckSeg, DataSeg};

impl World {
    /// A SYN arrived: the receiver answers with a SYN-ACK. At a proxy, its
    /// incoming leg's receiver answers, and the proxy opens its outgoing leg
    /// (its own SYN) at once, so the legs' handshakes run in sequence along
    /// the path; a retransmitted SYN does not open it again.
    pub(super) fn syn_at_receiver(&mut self, now: Time, c: usize, seg: &DataSeg) {
        let mut acks = std::mem::take(&mut self.ack_out);
        self.conns[c].receiver.on_segment(now, seg, &mut acks);
        self.send_acks(now, c, &mut acks);
        self.ack_out = acks;
        if let Some(pi) = self.conns[c].proxy_out {
            let out = self.flows[self.conns[c].flow].proxies[pi].out_conn;
            let mut outv = std::mem::take(&mut self.data_out);
            self.conns[out].sender.connect(now, &mut outv);
            self.send_data(now, out, &mut outv);
            self.data_out = outv;
            self.after_sender(now, out);
        }
    }

    /// Ack-after-forward: raise receiver `inc`'s ACK cap to what sender `out`
    /// has transmitted and send the deferred ACK it allows.
    pub(super) fn sync_ack_limit(&mut self, now: Time, inc: usize, out: usize) {
        let mut acks = std::mem::take(&mut self.ack_out);
        let (i, o) = two_mut(&mut self.conns, inc, out);
        ProxyRt::sync_ack_limit(&mut i.receiver, &o.sender, &mut acks);
        self.send_acks(now, inc, &mut acks);
        self.ack_out = acks;
    }

    /// In-order bytes left connection `c`'s receiver into proxy `pi`.
    pub(super) fn deliver_to_proxy(&mut self, now: Time, c: usize, pi: usize, bytes: u64) {
        let fi = self.conns[c].flow;
        let mut io = std::mem::take(&mut self.relay_io);
        let out = self.flows[fi].proxies[pi].out_conn;
        let (i, o) = two_mut(&mut self.conns, c, out);
        self.flows[fi].proxies[pi].on_incoming_delivered(
            now,
            bytes,
            &mut i.receiver,
            &mut o.sender,
            &mut io,
        );
        self.after_relay(now, c, out, io);
    }

    /// Put a relay call's output on the wire: the incoming leg's ACKs first,
    /// then the outgoing leg's data.
    fn after_relay(&mut self, now: Time, inc: usize, out: usize, mut io: RelayOut) {
        if !io.acks.is_empty() {
            self.send_acks(now, inc, &mut io.acks);
        }
        if io.out_touched {
            self.send_data(now, out, &mut io.data);
            self.after_sender(now, out);
        }
        io.out_touched = false;
        self.relay_io = io;
    }

    /// After connection `c`'s sender took an ACK acknowledging `acked` new
    /// bytes: if a proxy feeds it, the proxy releases them (and its
    /// incoming leg may open its window); with ack-after-forward, the
    /// incoming leg's ACK cap follows what was sent.
    #[inline]
    pub(super) fn after_ack_at_proxy_sender(&mut self, now: Time, c: usize, acked: u64) {
        let limits = self.conns[c].limits_acks_of;
        if let Some(inc) = limits {
            // Raise the cap first, so that a window update sent on release
            // carries the new ACK value too (one ACK instead of two).
            let limit = self.conns[c].sender.snd_max();
            self.conns[inc].receiver.set_ack_limit(limit);
        }
        if acked > 0 {
            if let Some(pi) = self.conns[c].proxy_in {
                let fi = self.conns[c].flow;
                let inc = self.flows[fi].proxies[pi].in_conn;
                let mut io = std::mem::take(&mut self.relay_io);
                let (i, o) = two_mut(&mut self.conns, inc, c);
                self.flows[fi].proxies[pi].on_outgoing_acked(
                    now,
                    acked,
                    &mut i.receiver,
                    &mut o.sender,
                    &mut io,
                );
                self.after_relay(now, inc, c, io);
                self.observe_proxy(now, fi, pi);
            }
        }
        if let Some(inc) = limits {
            self.sync_ack_limit(now, inc, c);
        }
    }

    /// Record proxy `pi` of flow `fi`'s cache occupancy now.
    pub(super) fn observe_proxy(&mut self, now: Time, fi: usize, pi: usize) {
        let p = &self.flows[fi].proxies[pi];
        let occ = p.occupancy(
            &self.conns[p.in_conn].receiver,
            &self.conns[p.out_conn].sender,
        );
        self.flows[fi].proxies[pi].observe(now, occ);
        if let Some(tr) = self.flows[fi].proxy_traces.get_mut(pi) {
            tr.push(now, occ as f64);
        }
    }

    /// The proxy's integrity statistics: does an ACK leaving it on its
    /// incoming leg (connection `c`) cover bytes its outgoing leg has not
    /// transmitted yet?
    pub(super) fn note_proxy_acks(&mut self, c: usize, pi: usize, acks: &[AckSeg]) {
        let p = &mut self.flows[self.conns[c].flow].proxies[pi];
        let sent = self.conns[p.out_conn].sender.snd_max();
        for ack in acks {
            p.note_ack(ack.ack, sent);
        }
    }
}

/// Two distinct elements of a slice, mutably.
#[inline]
fn two_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "two_mut needs two different indices");
    if a < b {
        let (lo, hi) = v.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}
