//! The application seam as the world sees it: starting a flow's
//! application, its timer, deliveries to it, and acting on what it asks
//! (`AppIo`: bytes for streams, streams to open and close, datagrams, an
//! error, being done). Also the count of open connections per satellite
//! leg that AeroTCP's adaptive allocation divides the link by.

use super::state::Ev;
use super::world::World;
use crate::app::AppIo;
use crate::engine::Time;
use crate::error::SimError;

impl World {
    /// Flow `f`'s connections open on its satellite legs change by `delta`.
    pub(super) fn aero_count(&mut self, f: usize, delta: i64) {
        for i in 0..self.flows[f].aero_groups.len() {
            let g = self.flows[f].aero_groups[i];
            let n = self.aero.add(g, delta);
            for k in 0..self.aero.members(g).len() {
                let c = self.aero.members(g)[k];
                self.conns[c].sender.set_connections_open(n);
            }
        }
    }

    /// Flow `f` starts: its application starts.
    pub(super) fn start_flow(&mut self, now: Time, f: usize) {
        if !self.flows[f].opens_own {
            self.aero_count(f, 1);
        }
        let mut io = std::mem::take(&mut self.app_io);
        io.streams = self.flows[f].streams.len();
        self.flows[f].app.start(now, &mut io);
        self.after_app(now, f, io);
    }

    /// The application's timer event (stale generations are ignored).
    pub(super) fn app_timer(&mut self, now: Time, f: usize, gen: u32) {
        if self.flows[f].app_timer.gen != gen {
            return;
        }
        self.flows[f].app_timer.at = Time::MAX;
        let mut io = std::mem::take(&mut self.app_io);
        io.streams = self.flows[f].streams.len();
        let app = &mut self.flows[f].app;
        if app.poll_at().is_some_and(|d| d <= now) {
            app.on_timer(now, &mut io);
        }
        self.after_app(now, f, io);
    }

    /// In-order bytes reached the far end of connection `c`'s stream.
    #[inline]
    pub(super) fn deliver_to_app(&mut self, now: Time, c: usize, bytes: u64) {
        let fi = self.conns[c].flow;
        let stream = self.conns[c].stream;
        let total = self.conns[c].ledger.delivered();
        let io = &mut self.app_io;
        let fl = &mut self.flows[fi];
        io.streams = fl.streams.len();
        fl.app.on_delivered(now, stream, bytes, total, io);
        if io.sends.is_empty()
            && io.opens.is_empty()
            && io.closes.is_empty()
            && io.error.is_none()
            && (fl.done_at.is_some() || !fl.app.done())
            && fl.app.poll_at().is_none()
        {
            // Nothing asked for (the common case of every delivery).
            return;
        }
        let io = std::mem::take(&mut self.app_io);
        self.after_app(now, fi, io);
    }

    /// Act on what an application asked for: open and close streams, hand
    /// bytes to stream senders and datagrams to the datagram path, note an
    /// error, note that it finished, arm its timer.
    #[inline]
    pub(super) fn after_app(&mut self, now: Time, f: usize, mut io: AppIo) {
        for i in 0..io.opens.len() {
            let o = io.opens[i];
            self.open_stream(f, o.dir, Some(o.handshake), now);
        }
        io.opens.clear();
        for i in 0..io.closes.len() {
            let s = io.closes[i];
            let fl = &mut self.flows[f];
            if let Some(k) = fl.aero_streams.iter().position(|&x| x == s) {
                fl.aero_streams.swap_remove(k);
                self.aero_count(f, -1);
            }
        }
        if self.flows[f].quic.is_some() {
            // A QUIC flow: its connection's streams (`quic.rs`).
            self.quic_app_io(now, f, &mut io);
        }
        io.closes.clear();
        for i in 0..io.sends.len() {
            let (stream, bytes) = io.sends[i];
            let Some(first) = self.flows[f].streams.get(stream) else {
                io.fail(format!("data for stream {stream}, which was never opened"));
                continue;
            };
            let c = first[0];
            let mut out = std::mem::take(&mut self.data_out);
            self.conns[c].sender.add_app_data(now, bytes, &mut out);
            self.send_data(now, c, &mut out);
            self.data_out = out;
            self.after_sender(now, c);
        }
        io.sends.clear();
        if !io.datagrams.is_empty() {
            self.send_datagrams(now, f, &mut io.datagrams);
        }
        if let Some(detail) = io.error.take() {
            self.error = Some(SimError::ByteConservation {
                flow: self.flows[f].name.clone(),
                detail,
            });
        }
        self.app_io = io;
        let fl = &mut self.flows[f];
        if fl.done_at.is_none() && fl.app.done() {
            fl.done_at = Some(now);
            // Done: the flow (or each of its streams still open) closes.
            let open = if fl.opens_own {
                std::mem::take(&mut fl.aero_streams).len() as i64
            } else {
                1
            };
            self.aero_count(f, -open);
            self.apps_pending -= 1;
        }
        let fl = &mut self.flows[f];
        if let Some(gen) = fl.app_timer.arm(fl.app.poll_at()) {
            let at = fl.app_timer.at.max(now);
            self.q.push(
                at,
                Ev::AppTimer {
                    flow: f as u32,
                    gen,
                },
            );
        }
    }
}
