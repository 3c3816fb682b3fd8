//! QUIC-terminating proxies as the world sees them: each one's relay
//! (`pep::QuicRelay`, one per direction) between the connection that ends
//! at it and the one it opens onward. After every input to the flow's
//! connections the world runs each relay: it reads from its incoming
//! connection's proxy end what that end has for it, as far as the relay's
//! room allows, hands the pieces to the same streams of the outgoing
//! connection, finishes a stream there once it was read to its end, and
//! records the proxy's occupancy — the bytes it holds, read or not.

use super::world::World;
use crate::engine::Time;
use crate::error::SimError;

impl World {
    /// Relay `dir` (0: forward, from connection `p` to `p + 1`; 1: reverse)
    /// of terminating proxy `p` of QUIC flow `f`.
    pub(super) fn quic_relay(&mut self, now: Time, f: usize, p: usize, dir: usize) {
        let fl = &mut self.flows[f];
        let q = fl.quic.as_deref_mut().expect("a QUIC flow");
        // The proxy is end 1 of connection p and end 0 of connection p + 1.
        let (inc_end, out_end) = if dir == 0 { (1, 0) } else { (0, 1) };
        let (a, b) = q.legs.split_at_mut(p + 1);
        let (inc, out) = match dir {
            0 => (&mut a[p].conn, &mut b[0].conn),
            _ => (&mut b[0].conn, &mut a[p].conn),
        };
        let relay = &mut q.relays[p][dir];
        let pieces = &mut q.pieces;
        let mut moved = false;
        let mut k = 0;
        while let Some(&s) = inc.relay_readable(inc_end).get(k) {
            let room = relay.room();
            if room == 0 {
                break;
            }
            let r = inc.relay_read(now, inc_end, s, room, pieces);
            for piece in pieces.drain(..) {
                out.relay_send(s, relay.track(piece));
            }
            if r.fin {
                out.relay_finish(s);
            }
            moved |= r.bytes > 0 || r.fin;
            // A stream read dry left the list; one cut short by the room stays.
            if inc.relay_readable(inc_end).get(k) == Some(&s) {
                k += 1;
            }
        }
        if dir == 0 {
            // A probe's datagrams (RFC 9221) go on as they came.
            let mut dgrams = Vec::new();
            inc.take_relayed_datagrams(&mut dgrams);
            for d in dgrams {
                out.relay_datagram(now, d);
            }
        }
        if moved {
            out.relay_pump(now, out_end);
        }
        let occ = relay.held() + inc.unread(inc_end);
        relay.occupancy.observe(now, occ);
        if dir == 0 {
            if let Some(tr) = fl.proxy_traces.get_mut(p) {
                tr.push(now, occ as f64);
            }
        }
        let bound = relay.windows.bound();
        if occ > bound && self.error.is_none() {
            self.error = Some(SimError::CacheOverflow {
                flow: fl.name.clone(),
                node: format!("the QUIC relay of node {}", relay.node),
                detail: format!("{occ} B held, more than its {bound} B"),
            });
        }
    }
}
