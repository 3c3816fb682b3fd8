//! Shared media in the world (the seam of `net/medium.rs`): a member
//! link's packets go to its medium with the member's index, and what the
//! medium delivers or loses comes back by member and direction, taken to
//! the member link's direction; its wake-ups are events of their own.
//! Also the call into a link layer with its I/O record, which a medium's
//! call mirrors.

use super::state::Ev;
use super::world::World;
use crate::engine::Time;
use crate::net::{
    AnyLinkLayer, AnyMedium, Dir, LinkIo, LinkPacket, MediumIo, MediumReport, MemberLink,
};
use crate::observe::PacketEventKind;

impl World {
    /// Start the media (their clocks' first wake-ups).
    pub(super) fn start_media(&mut self) {
        for mi in 0..self.media.list.len() {
            self.medium_call(Time::ZERO, mi, |m, io| m.start(io));
        }
    }

    /// A packet enters direction `dir` of member link `link`.
    #[inline(never)]
    pub(super) fn medium_send(&mut self, now: Time, link: usize, dir: Dir, pkt: LinkPacket) {
        let (mi, j) = self.media.member_of[link].expect("a member link");
        self.medium_call(now, mi as usize, |m, io| m.send(now, j, dir, pkt, io));
    }

    /// A wake-up medium `mi` asked for is due.
    pub(super) fn medium_wake(&mut self, now: Time, mi: u32, token: u32) {
        self.medium_call(now, mi as usize, |m, io| m.wake(now, token, io));
    }

    /// Call into medium `mi` with the (empty) I/O record, then act on it
    /// as on a link layer's, each delivery and loss on its member link.
    fn medium_call(&mut self, now: Time, mi: usize, f: impl FnOnce(&mut AnyMedium, &mut MediumIo)) {
        let io = &mut self.media.io;
        io.seq = self.q.seq();
        f(&mut self.media.list[mi], io);
        self.q.set_seq(io.seq);
        for w in io.wakes.drain(..) {
            self.q.push_seq(
                w.at,
                w.seq,
                Ev::Medium {
                    medium: mi as u32,
                    token: w.token,
                },
            );
        }
        let lost = std::mem::take(&mut self.media.io.lost);
        for &(j, dir, slot, why) in &lost {
            let ld = 2 * self.media.links[mi][j as usize] as usize + dir.index();
            if let Some(log) = self.log.as_deref_mut() {
                let p = self.packets.get(slot);
                log.record(now, ld as u32, PacketEventKind::Drop(why), slot, &p);
            }
            self.free_lost(slot);
        }
        let delivered = std::mem::take(&mut self.media.io.delivered);
        let mut lost = lost;
        lost.clear();
        self.media.io.lost = lost;
        for &(j, dir, slot) in &delivered {
            let link = self.media.links[mi][j as usize] as usize;
            self.log_arrival(now, link, dir, slot);
            self.arrive(now, slot, 2 * link + dir.index());
        }
    }

    /// At the end of the run: each member link takes its counters from its
    /// medium (as of `stop`), and each medium gives its report.
    pub(super) fn settle_media(&mut self, stop: Time) -> Vec<(String, MediumReport)> {
        let mut out = Vec::new();
        for (mi, m) in self.media.list.iter().enumerate() {
            for (j, &k) in self.media.links[mi].iter().enumerate() {
                let s = |d| m.stats_at(j as u32, d, stop);
                let c = |d| m.counters(j as u32, d);
                self.layers[k as usize] = AnyLinkLayer::Member(MemberLink {
                    stats: [s(Dir::Forward), s(Dir::Reverse)],
                    counters: [c(Dir::Forward), c(Dir::Reverse)],
                });
            }
            out.push((self.media.names[mi].clone(), m.report(stop)));
        }
        out
    }

    /// Call into link layer `link` with the (empty) I/O record, then act on
    /// it: schedule its wake-ups, free what it lost, and pass on what it
    /// delivered. The record is empty again before any delivery is passed
    /// on, since a delivery can lead to a nested call.
    #[inline]
    pub(super) fn link_call(
        &mut self,
        now: Time,
        link: usize,
        f: impl FnOnce(&mut AnyLinkLayer, &mut LinkIo),
    ) {
        let io = &mut self.link_io;
        io.seq = self.q.seq();
        f(&mut self.layers[link], io);
        self.q.set_seq(io.seq);
        for i in 0..io.wakes.len() {
            let w = io.wakes[i];
            self.q.push_seq(
                w.at,
                w.seq,
                Ev::Link {
                    link: link as u32,
                    token: w.token,
                },
            );
        }
        io.wakes.clear();
        let mut lost = std::mem::take(&mut io.lost);
        for &(dir, slot, why) in &lost {
            if let Some(log) = self.log.as_deref_mut() {
                let ld = (2 * link + dir.index()) as u32;
                let p = self.packets.get(slot);
                log.record(now, ld, PacketEventKind::Drop(why), slot, &p);
            }
            self.free_lost(slot);
        }
        lost.clear();
        self.link_io.lost = lost;
        let io = &mut self.link_io;
        let delivered = match io.delivered.len() {
            0 => return,
            1 => {
                let d = io.delivered.pop().unwrap();
                let (dir, slot) = d;
                self.log_arrival(now, link, dir, slot);
                self.arrive(now, slot, 2 * link + dir.index());
                return;
            }
            _ => std::mem::take(&mut io.delivered),
        };
        for &(dir, slot) in &delivered {
            self.log_arrival(now, link, dir, slot);
            self.arrive(now, slot, 2 * link + dir.index());
        }
    }
}
